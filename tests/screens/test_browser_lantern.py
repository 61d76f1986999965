"""Lantern Links on a 320 px phone: speech is never required, the current player plays
a tile by its button and passes, and every screen has labelled controls and live
regions that fit."""

from __future__ import annotations

import pytest
from screens.screen_support import accessibility_problems, screenshot

pytestmark = pytest.mark.slow


def test_the_current_player_plays_by_buttons(start_server, device):
    from playwright.sync_api import expect

    server = start_server("lantern-links", players=3, seed=8)
    table = device(width=1024, height=768)
    table.goto(server.table_url)
    phones = []
    for seat in (1, 2):
        phone = device(width=320, height=640)
        phone.goto(table.locator(f".seat-card:nth-child({seat}) a.join-link").get_attribute("href"))
        phone.wait_for_url(f"**/seat/{seat}")
        phones.append(phone)
    first, second = phones
    expect(first.locator("#region-prompt")).to_contain_text("play a tile")
    expect(second.locator("#region-prompt")).to_be_empty()
    expect(second.locator("fieldset", has_text="Play a tile")).to_have_count(0)   # not seat 2's turn
    assert accessibility_problems(first) == []
    screenshot(first, "seat-lantern-player")

    state = server.hub.session.state
    hand = state.hands[0]
    playable = next(t for t in hand if state.open in state.words[t])   # a tile that links
    first.click(f"#do-play-{hand.index(playable)}")
    expect(table.locator(".said")).to_contain_text("Player 2")
    expect(second.locator("#region-prompt")).to_contain_text("play a tile")
    second.click("#do-pass")
    expect(table.locator(".said")).to_contain_text("pass")
    assert accessibility_problems(table) == []
    screenshot(table, "table-lantern")
