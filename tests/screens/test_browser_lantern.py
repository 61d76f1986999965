"""Lantern Links on the table screen and four 320 px phones, a whole game of three routes
played by taps on the phone of the player whose turn it is: the table draws
the chain from the start word through the checkpoint to the end word and it grows
tile by tile with the open word marked; every phone shows its player's own tiles at
all times; the current player plays by a button and passes; when everyone has
passed the player asked sees the question with its rewind and finish buttons, and
finishing (it cannot be taken back) is asked first."""

from __future__ import annotations

import time
from itertools import pairwise

import pytest
from screens.screen_support import (
    WAIT_MS,
    accessibility_problems,
    answer_asked,
    assert_board_first,
    board_shot,
    screenshot,
)

pytestmark = pytest.mark.slow


def moved(server, before) -> None:
    """Wait until the click just made has been applied (the state is a new one)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while server.hub.session.state is before:
        assert time.monotonic() < deadline, "the click was never applied"
        time.sleep(0.05)


def linking(state, seat: int) -> str | None:
    return next((t for t in state.hands[seat - 1] if state.open in state.words[t]), None)


def test_a_whole_game_by_buttons(start_server, device):
    from playwright.sync_api import expect

    server = start_server("lantern-links", players=4, seed=8)
    table = device(width=1024, height=768)
    table.goto(server.table_url)
    phones = []
    for seat in (1, 2, 3, 4):
        phone = device(width=320, height=640)
        phone.goto(table.locator(f".seat-card:nth-child({seat}) a.join-link").get_attribute("href"))
        phone.wait_for_url(f"**/seat/{seat}")
        phones.append(phone)
    first, second = phones[:2]
    state = server.hub.session.state
    # the chain: start, six places with the checkpoint after the third, end; start is open
    chain = table.locator(".chain .link")
    expect(chain).to_have_count(9)
    expect(table.locator("#link-start")).to_contain_text(state.start)
    expect(table.locator("#link-checkpoint")).to_contain_text(state.checkpoint)
    expect(table.locator("#link-end")).to_contain_text(state.end)
    expect(table.locator(".chain .link.open")).to_have_id("link-start")
    expect(first.locator("#region-prompt")).to_contain_text("play a tile")
    expect(second.locator("#region-prompt")).to_be_empty()
    expect(second.locator("fieldset", has_text="Play a tile")).to_have_count(0)   # not seat 2's turn
    for seat, phone in enumerate(phones, 1):      # everyone's own tiles, whose turn it is or not
        expect(phone.locator(".hand .tile-card")).to_have_count(len(state.hands[seat - 1]))
        expect(phone.locator(".hand")).to_contain_text(state.hands[seat - 1][0])
    assert accessibility_problems(second) == []
    # nothing in the game is private: no phone heads its tiles or the chain "Only for you"
    expect(second.locator("#region-view h2")).to_have_text(["What everyone sees"])
    screenshot(second, "seat-lantern-waiting")

    # the chain grows tile by tile, left to right, the newest tile holding the open word
    placed = play(server, table, phones, 4)
    assert placed >= 1
    # one look at the page (a live redraw between two looks would replace the elements)
    boxes = table.evaluate("""(n) => ['start', ...Array.from({length: n}, (_, i) => String(i + 1))].map((id) => {
        const r = document.getElementById('link-' + id).getBoundingClientRect(); return [r.top, r.left]; })""", placed)
    for before, after in pairwise(boxes):
        assert after > before                              # reading order: along the row, then down
    screenshot(table, "table-lantern")
    board_shot(table, "#board", "lantern-table")
    assert accessibility_problems(table) == []
    assert_board_first(table, "lantern")

    # a phone's reply says what its tap did, and goes once the game moves on: it never
    # stays over the board saying "...'s turn" when the prompt says "Your turn"
    state = server.hub.session.state
    passer, following = phones[state.turn - 1], phones[state.turn % 4]
    passer.click("#do-pass")
    reply = passer.locator("#feedback")
    expect(reply).to_contain_text("turn")
    moved(server, state)
    state = server.hub.session.state
    following.click("#do-pass")
    moved(server, state)
    expect(reply).to_be_empty()
    expect(following.locator("#feedback")).to_contain_text("turn")

    # everyone passes: the player asked sees the question and the two buttons
    asked = pass_round(server, phones)
    expect(asked.locator("#region-prompt")).to_contain_text("rewind")
    expect(asked.locator("#do-rewind")).to_be_visible()
    expect(asked.locator("#do-finish")).to_be_visible()
    screenshot(asked, "seat-lantern-rewind-or-finish")
    board_shot(asked, "main", "lantern-seat")
    finish(asked)
    expect(table.locator(".said")).to_contain_text("Route 1 finished")
    expect(table.locator(".chain .link.tile")).to_have_count(0)          # route 2: a fresh chain

    # the other two routes, by taps as well: a few tiles, everyone passes, finish
    for route in (2, 3):
        expect(table.locator(".chain .link.open")).to_have_id("link-start")
        play(server, table, phones, 2)
        finish(pass_round(server, phones))
        if route == 2:
            expect(table.locator(".said")).to_contain_text("Route 2 finished")
            expect(table.locator(".chain .link.tile")).to_have_count(0)
    expect(table.locator(".said")).to_contain_text("The game is over")
    expect(table.locator(".scores")).to_contain_text(str(server.hub.session.state.total))
    # the result stays on every screen after the last move
    expect(table.locator("#region-board .result")).to_contain_text("The game is over")
    for phone in phones:
        expect(phone.locator("#region-prompt .result")).to_contain_text("The game is over")


def play(server, table, phones, turns: int) -> int:
    """``turns`` turns from the phones: a linking tile played by its button (the chain on
    the table grows by that tile and its word is the open one), else a pass; how many placed."""
    from playwright.sync_api import expect

    placed = 0
    for _ in range(turns):
        state = server.hub.session.state
        seat = state.turn
        tile = linking(state, seat)
        phone = phones[seat - 1]
        if tile is None:
            phone.click("#do-pass")
            moved(server, state)
            continue
        already = len(state.chain)
        phone.click(f"#do-play-{state.hands[seat - 1].index(tile)}")
        placed += 1
        expect(table.locator(".chain .link.tile")).to_have_count(already + 1)
        expect(table.locator(".chain .link.open")).to_have_id(f"link-{already + 1}")
        expect(table.locator(".open-word")).to_contain_text(server.hub.session.state.open)
        expect(phone.locator(".hand .tile-card")).to_have_count(len(server.hub.session.state.hands[seat - 1]))
    return placed


def pass_round(server, phones):
    """Everyone passes until the route pauses; the phone of the player asked."""
    while not server.hub.session.state.paused:
        state = server.hub.session.state
        phones[state.turn - 1].click("#do-pass")
        moved(server, state)
    return phones[server.hub.session.state.turn - 1]


def finish(asked) -> None:
    """Finish the route from the asked player's phone (it cannot be taken back: asked first)."""

    answer_asked(asked, "#do-finish", "Finish the route?")
