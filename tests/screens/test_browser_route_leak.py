"""Hidden information stays hidden (issue 14): over a whole three-leg voyage with a
human keeper, the next leg's route never reaches the previous keeper's page: not its
visible text, not an attribute a screen reader reads (aria-label, role="status"), not
the replies to the keeper's own commands."""

from __future__ import annotations

import json

import pytest
from screens.screen_support import WAIT_MS, answer_asked, join_seat

from facilitator.games.compass_code.rules import feedback

pytestmark = pytest.mark.slow

ROUTES = ["ESNW", "NESW", "WSEN"]
WORDS = {"N": "north", "E": "east", "S": "south", "W": "west"}


def forms(route: str) -> list[str]:
    """Every way a screen could write a route: letters, spaced letters, words."""
    return [route, " ".join(route), ", ".join(WORDS[d] for d in route), " ".join(WORDS[d] for d in route)]


def join(device, table, seat: int):
    """``seat``'s phone, and every reply its clicks get."""
    page = join_seat(device, table, seat)
    replies: list[str] = []
    page.on("response", lambda r: replies.append(r.text()) if r.url.endswith("/command") else None)
    return page, replies


def send(page, route: str) -> None:
    for field, direction in zip("abcd", route):
        page.select_option(f"#send-{field}", direction)
    page.click("#do-send")


def totals(page, anchors: int, clockwise: int) -> None:
    page.select_option("#feedback-anchors", str(anchors))
    page.select_option("#feedback-clockwise", str(clockwise))
    answer_asked(page, "#do-feedback", "Give the totals")      # they cannot be taken back


def test_next_route_never_reaches_the_previous_keeper(start_server, device):
    from playwright.sync_api import expect

    server = start_server("compass-code", players=3, seed=5,
                          options={"keeper": "human", "mode": "standard", "routes": ROUTES})
    table = device(width=1280, height=900)
    table.goto(server.table_url)
    seats = {n: join(device, table, n) for n in (1, 2, 3)}
    for leg in (1, 2, 3):
        keeper, keeper_replies = seats[leg]     # the rules: seat k keeps leg k
        state = server.hub.session.state
        assert state.keeper == leg
        captain, _ = seats[state.captain]
        expect(keeper.locator(".route")).to_be_visible()
        # a wrong guess first (the keeper says its totals), then the route itself
        wrong = "WNES" if ROUTES[leg - 1] != "WNES" else "NWES"
        send(captain, wrong)
        expect(keeper.locator("#do-feedback")).to_be_visible()
        told = feedback(wrong, ROUTES[leg - 1])
        anchors, clockwise = told.anchors, told.clockwise
        totals(keeper, anchors, clockwise)
        expect(table.locator(".said")).to_contain_text(f"{anchors} anchor")
        # an earlier leg may have said the same totals: wait for these to be applied
        expect(keeper.locator("#do-feedback")).to_have_count(0)
        captain, _ = seats[server.hub.session.state.captain]   # the captaincy moves each guess
        send(captain, ROUTES[leg - 1])
        expect(keeper.locator("#do-feedback")).to_be_visible()
        before = len(keeper_replies)
        totals(keeper, 4, 0)
        if leg < 3:
            expect(table.locator(".said")).to_contain_text(f"Leg {leg + 1} of 3")
            nxt = ROUTES[leg]
            new_keeper, _ = seats[leg + 1]
            expect(new_keeper.locator(".route")).to_be_visible()
            expect(keeper.locator(".route")).to_have_count(0)
            keeper.wait_for_timeout(500)   # any late live update has arrived
            page_html = keeper.content()
            said = [json.loads(r) for r in keeper_replies[before:]]
            assert said, "the keeper's own command got a reply"
            for form in forms(nxt):
                assert form not in page_html, f"leg {leg + 1}'s route {form!r} on seat {leg}'s page"
                for reply in said:
                    assert form not in json.dumps(reply), f"leg {leg + 1}'s route in seat {leg}'s reply"
            for status in keeper.locator("[role=status]").all_inner_texts():
                assert nxt not in status.replace(" ", "")
        else:
            expect(table.locator(".said")).to_contain_text("voyage", timeout=WAIT_MS)
    assert server.hub.session.over
