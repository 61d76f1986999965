"""A Compass Code leg on real screens: join by token, the captain sends from a phone,
the human keeper's marks update live, a wrong total is flagged privately (never on
the table), the corrected totals score as a free clue (the same captain proposes
again), and the keeper's screen moves with the leg."""

from __future__ import annotations

import pytest
from screens.screen_support import WAIT_MS, accessibility_problems, screenshot

pytestmark = pytest.mark.slow


def join(device, table, seat: int):
    href = table.locator(f"#region-live .seat-card:nth-child({seat}) a.join-link").get_attribute("href")
    page = device()
    page.goto(href)
    page.wait_for_url(f"**/seat/{seat}")
    return page


def test_compass_leg_with_human_keeper(start_server, device):
    from playwright.sync_api import expect

    # rules example routes: leg 1 hides E S N W; a guess N E S W scores C C - A (1 anchor, 2 clockwise)
    server = start_server("compass-code", players=3, seed=5,
                          options={"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]})
    table = device(width=1280, height=900)
    table.goto(server.table_url)
    expect(table.locator("h1")).to_contain_text("Compass Code")
    expect(table.locator(".seat-card")).to_have_count(3)
    expect(table.locator(".seat-card .qr svg")).to_have_count(3)               # a QR code a seat
    expect(table.locator(".seat-card .short")).to_have_count(3)                # and a short code
    screenshot(table, "table-compass-start")

    keeper = join(device, table, 1)
    captain = join(device, table, 2)
    expect(keeper.locator(".route")).to_contain_text("E S N W")
    expect(captain.locator("#region-prompt")).to_contain_text("captain")
    expect(captain.locator(".route")).to_have_count(0)        # the captain never sees the route

    for field, direction in zip("abcd", "NESW"):
        captain.select_option(f"#send-{field}", direction)
    captain.click("#do-send")
    expect(keeper.locator("table.marks tr.pending .mark [aria-hidden=true]")).to_have_text("C C – A", timeout=WAIT_MS)
    # letters are shown; a screen reader hears the words
    expect(keeper.locator("table.marks tr.pending .mark .sr-only")).to_have_text("clockwise, clockwise, neither, anchor")
    expect(keeper.locator(".route .sr-only")).to_have_text("east, south, north, west")
    expect(keeper.locator("#region-prompt")).to_contain_text("totals")
    # "restart the leg" discards the leg's guesses: a tap only asks, and No keeps the leg
    logged = server.hub.session.log.path.read_text(encoding="utf-8")
    captain.click("#do-restart-leg")
    expect(captain.locator("form.control .ask .question")).to_contain_text("Restart the leg?")
    expect(captain.locator(".ask button.no")).to_be_focused()
    captain.locator(".ask button.no").click()
    expect(captain.locator("form.control .feedback").filter(has_text="Kept as it was")).to_have_count(1)
    assert server.hub.session.log.path.read_text(encoding="utf-8") == logged
    expect(table.locator(".said")).to_contain_text("Guess 1 is north east south west")

    keeper.select_option("#feedback-anchors", "0")
    keeper.select_option("#feedback-clockwise", "2")
    keeper.click("#do-feedback")
    expect(keeper.locator(".alert")).to_contain_text("Recount")
    expect(keeper.locator(".messages")).to_contain_text("Recount: guess 1")
    screenshot(keeper, "seat-compass-keeper-recount")
    assert accessibility_problems(keeper) == []
    expect(table.locator("body")).not_to_contain_text("Recount")
    expect(table.locator("body")).not_to_contain_text("E S N W")

    keeper.select_option("#feedback-anchors", "1")
    keeper.select_option("#feedback-clockwise", "2")
    keeper.click("#do-feedback")
    expect(table.locator(".said")).to_contain_text("1 anchor")
    expect(keeper.locator(".alert")).to_have_count(0)
    expect(keeper.locator("table.marks tbody tr").first.locator(".mark [aria-hidden=true]")).to_have_text("C C – A")
    screenshot(captain, "seat-compass-captain")

    # a corrected total is a free clue: the same captain proposes guess 1 again
    third = join(device, table, 3)
    expect(third.locator("#region-view")).to_contain_text("Nothing private")
    expect(captain.locator("#region-prompt")).to_contain_text("captain")
    for field, direction in zip("abcd", "ESNW"):
        captain.select_option(f"#send-{field}", direction)
    captain.click("#do-send")
    expect(keeper.locator("table.marks tr.pending .mark [aria-hidden=true]")).to_have_text("A A A A")
    keeper.select_option("#feedback-anchors", "4")
    keeper.select_option("#feedback-clockwise", "0")
    keeper.click("#do-feedback")
    expect(table.locator(".said")).to_contain_text("Leg 2 of 3")
    # leg 2 is kept by seat 2: its screen now holds the new route, seat 1's no longer does
    expect(captain.locator(".route")).to_contain_text("N E S W")
    expect(keeper.locator(".route")).to_have_count(0)
    screenshot(table, "table-compass")
    assert accessibility_problems(table) == []
    screenshot(keeper, "seat-compass-keeper")
