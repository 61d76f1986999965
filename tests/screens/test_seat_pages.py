"""What the pages say (issue 15), read from the served HTML: every button names what it
does, pickers show a card's words, the score starts sensibly, letters are said as
words, the logs keep list semantics and can be reached by keyboard."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

ROUTES = {"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]}
CLUES = ("serendipity", "melancholy", "nostalgia", "whimsy")


@pytest.fixture
def page(start_server) -> Iterator:
    clients: list[httpx.Client] = []

    def open_page(server, seat: int | None) -> str:
        c = httpx.Client(base_url=server.base_url, timeout=20, follow_redirects=True)
        clients.append(c)
        if seat is None:
            return c.get(server.table_url).text
        return c.get(f"/join/{server.seats.seats[seat].token}").text

    yield open_page
    for c in clients:
        c.close()


def button_names(html: str) -> list[str]:
    names = []
    for attrs, inner in re.findall(r"<button([^>]*)>(.*?)</button>", html, re.DOTALL):
        label = re.search(r'aria-label="([^"]*)"', attrs)
        names.append(label.group(1) if label else re.sub(r"<[^>]+>|\s+", " ", inner).strip())
    return names


def test_every_clover_button_names_what_it_does_and_cards_show_their_words(start_server, page):
    server = start_server("clover", players=3, seed=4, options={"extra": 1})
    writing = page(server, 1)
    submits = [n for n in button_names(writing) if n.startswith("Submit")]
    assert sorted(submits) == sorted(f"Submit the {z} clue" for z in ("Top", "Right", "Bottom", "Left"))
    for seat in (1, 2, 3):
        for zone, clue in zip(("top", "right", "bottom", "left"), CLUES):
            assert server.hub.submit(f"clue {seat} {zone} {clue}").accepted
    layout = server.hub.session.state.layout
    committer = server.hub.session.state.committer()
    board = page(server, committer)
    for card in range(1, len(layout.cards) + 1):      # a card is offered with its words, not a bare number
        assert f'<option value="{card}">{card}: {" · ".join(layout.words(card))}</option>' in board
    assert len(set(button_names(board))) == len(button_names(board))   # no two buttons share a name


def test_compass_says_routes_as_words_and_starts_with_no_leg_played(start_server, page):
    server = start_server("compass-code", players=3, seed=3, options=ROUTES)
    table = page(server, None)
    # the score says what the status says: legs solved of those played (none yet), the leg now
    assert re.search(r"<dt>Legs solved</dt><dd>none played yet</dd>", table) and "0 / 0" not in table
    assert re.search(r"<dt>Leg</dt><dd>1 of 3</dd>", table)
    keeper = page(server, 1)
    assert '<span aria-hidden="true">E S N W</span><span class="sr-only">east, south, north, west</span>' in keeper
    captain = page(server, 2)
    assert '<option value="N">north</option>' in captain


def test_logs_keep_list_semantics_and_take_the_keyboard(start_server, page):
    server = start_server("lantern-links", players=3, seed=8)
    for html, count in ((page(server, None), 1), (page(server, 1), 2)):   # announcements (+ messages)
        assert not re.search(r"<ol[^>]*role=", html)               # a list stays a list
        logs = re.findall(r'<div class="scroller" role="log"[^>]*tabindex="0"[^>]*>\s*<ol', html)
        assert len(logs) == count


def test_a_keeper_enters_a_physical_route_card_on_its_screen(start_server, page):
    """DESIGN: a physical card is entered by its number on the keeper's screen."""
    server = start_server("compass-code", players=3, seed=3, options={"keeper": "human"})
    deck = server.hub.session.referee.deck
    drawn = server.hub.session.state.route
    number = next(n for n in range(1, 25) if deck.route_of(n) != drawn)
    route = " ".join(deck.route_of(number))
    with httpx.Client(base_url=server.base_url, timeout=20, follow_redirects=True) as keeper:
        before = keeper.get(f"/join/{server.seats.seats[1].token}").text
        assert 'id="do-route-card"' in before
        asked = keeper.post("/seat/1/command", data={"control": "route-card", "card": str(number)},
                            headers={"Accept": "application/json"}).json()
        assert asked["accepted"] is None and f"Use route card {number}?" in asked["confirm"]   # it replaces the route
        assert server.hub.session.state.route == drawn
        reply = keeper.post("/seat/1/command", data={"control": "route-card", "card": str(number), "confirm": "yes"},
                            headers={"Accept": "application/json"}).json()
        assert reply["accepted"] and reply["public"] == []           # nothing said aloud
        words = " ".join({"N": "north", "E": "east", "S": "south", "W": "west"}[d] for d in deck.route_of(number))
        assert reply["private"] == [f"Leg 1: card {number} entered; your route is {words}. Keep it hidden."]
        after = keeper.get("/seat/1").text
        assert f"<span aria-hidden=\"true\">{route}</span>" in after and f"(card {number})" in after
        assert keeper.post("/seat/1/command", data={"control": "route-card", "card": "25"},
                           headers={"Accept": "application/json"}).status_code == 409   # not offered
        assert server.hub.session.state.route == deck.route_of(number)
        assert route not in page(server, 2) and route not in page(server, None)   # the others never see it
        server.hub.submit("send N E S W")
        assert 'id="do-route-card"' not in keeper.get("/seat/1").text   # only before the leg's first guess
