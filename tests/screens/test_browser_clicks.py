"""Clicks on real screens: releasing a seat asks first and says what its next holder
would see; a click's reply stays beside its form and keyboard focus stays on the
form; a click while the service is down says so; the announcements open at their
newest line."""

from __future__ import annotations

import pytest
from screens.screen_support import join_seat, screenshot

pytestmark = pytest.mark.slow

ROUTES = {"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]}


def test_release_is_asked_replies_stay_and_a_dead_service_is_said(start_server, device):
    from playwright.sync_api import expect

    server = start_server("compass-code", players=3, seed=5, options=dict(ROUTES))
    table = device(width=1280, height=900)
    table.goto(server.table_url)
    keeper = join_seat(device, table, 1)
    captain = join_seat(device, table, 2)

    # the keys of the keyboard: focus stays on the form after a submit that redraws it
    for field, direction in zip("abcd", "NESW"):
        captain.select_option(f"#send-{field}", direction)
    captain.focus("#do-send")
    captain.keyboard.press("Enter")
    expect(captain.locator("#feedback, form.control .feedback").filter(has_text="Guess 1")).to_have_count(1)
    assert captain.evaluate("document.activeElement !== document.body")
    # the newest announcement is in view in the log
    expect(table.locator(".said")).to_contain_text("Guess 1 is north east south west")
    gap = table.locator(".said-box .scroller").evaluate("b => b.scrollHeight - b.scrollTop - b.clientHeight")
    assert gap <= 2

    # releasing the keeper's seat: one tap only asks, and says what the next holder sees
    expect(table.locator("#release-1")).to_be_visible()
    table.click("#release-1")
    question = table.locator(".seat-card .ask .question")
    expect(question).to_contain_text("Release seat 1?")
    expect(question).to_contain_text("route and the marks")
    screenshot(table, "table-release-asked")
    assert server.seats.seats[1].held
    table.locator(".ask button.no").click()
    assert server.seats.seats[1].held
    table.click("#release-1")
    table.locator(".ask button.yes").click()
    expect(table.locator(".seat-card:nth-child(1) .qr svg")).to_have_count(1)    # free: a new QR code
    assert not server.seats.seats[1].held
    expect(keeper.locator("body")).to_contain_text("does not hold this seat")   # it reloads by itself

    # the service goes away: a click says it was not sent
    # the questions fold behind one control on a phone
    expect(captain.locator("#do-repeat")).not_to_be_visible()
    captain.locator("details.queries summary").click()
    expect(captain.locator("#do-repeat")).to_be_visible()
    server.stop()
    captain.click("#do-repeat")
    expect(captain.locator("form.control .feedback").filter(has_text="cannot be reached")).to_have_count(1)
    screenshot(captain, "seat-click-while-down")
