"""Lantern Links on a 320 px phone and the table screen, a whole game: the table draws
the chain from the start word through the checkpoint to the end word and it grows
tile by tile with the open word marked; every phone shows its player's own tiles at
all times; the current player plays by a button and passes; when everyone has
passed the player asked sees the question with its rewind and finish buttons, and
finishing (it cannot be taken back) is asked first."""

from __future__ import annotations

import time
from itertools import pairwise

import pytest
from screens.screen_support import WAIT_MS, accessibility_problems, board_shot, screenshot

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

    server = start_server("lantern-links", players=3, seed=8)
    table = device(width=1024, height=768)
    table.goto(server.table_url)
    phones = []
    for seat in (1, 2, 3):
        phone = device(width=320, height=640)
        phone.goto(table.locator(f".seat-card:nth-child({seat}) a.join-link").get_attribute("href"))
        phone.wait_for_url(f"**/seat/{seat}")
        phones.append(phone)
    first, second, _ = phones
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
    screenshot(second, "seat-lantern-waiting")

    # the chain grows tile by tile, left to right, the newest tile holding the open word
    placed = 0
    for _ in range(4):
        state = server.hub.session.state
        seat = state.turn
        tile = linking(state, seat)
        phone = phones[seat - 1]
        if tile is None:
            phone.click("#do-pass")
            moved(server, state)
            continue
        phone.click(f"#do-play-{state.hands[seat - 1].index(tile)}")
        placed += 1
        expect(table.locator(".chain .link.tile")).to_have_count(placed)
        expect(table.locator(".chain .link.open")).to_have_id(f"link-{placed}")
        expect(table.locator(".open-word")).to_contain_text(server.hub.session.state.open)
        expect(phone.locator(".hand .tile-card")).to_have_count(len(server.hub.session.state.hands[seat - 1]))
    assert placed >= 1
    # one look at the page (a live redraw between two looks would replace the elements)
    boxes = table.evaluate("""(n) => ['start', ...Array.from({length: n}, (_, i) => String(i + 1))].map((id) => {
        const r = document.getElementById('link-' + id).getBoundingClientRect(); return [r.top, r.left]; })""", placed)
    for before, after in pairwise(boxes):
        assert after > before                              # reading order: along the row, then down
    screenshot(table, "table-lantern")
    board_shot(table, "#board", "lantern-table")
    assert accessibility_problems(table) == []

    # everyone passes: the player asked sees the question and the two buttons
    while not server.hub.session.state.paused:
        state = server.hub.session.state
        phones[state.turn - 1].click("#do-pass")
        moved(server, state)
    asked = phones[server.hub.session.state.turn - 1]
    expect(asked.locator("#region-prompt")).to_contain_text("rewind")
    expect(asked.locator("#do-rewind")).to_be_visible()
    expect(asked.locator("#do-finish")).to_be_visible()
    screenshot(asked, "seat-lantern-rewind-or-finish")
    board_shot(asked, "main", "lantern-seat")
    asked.click("#do-finish")
    expect(asked.locator(".ask .question")).to_contain_text("Finish the route?")
    asked.locator(".ask button.yes").click()
    expect(table.locator(".said")).to_contain_text("Route 1 finished")
    expect(table.locator(".chain .link.tile")).to_have_count(0)          # route 2: a fresh chain

    # the other two routes, quickly: the table hears the end of the game
    for _ in range(2):
        assert server.hub.submit("finish").accepted
    expect(table.locator(".said")).to_contain_text("The game is over")
    expect(table.locator(".scores")).to_contain_text(str(server.hub.session.state.total))
