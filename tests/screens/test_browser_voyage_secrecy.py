"""A whole three-leg voyage with a human keeper on real screens (issue 14): each
leg's route appears only on its keeper's phone (seat k keeps leg k), and never on
the previous keeper's page, in its reply to the totals that ended the leg, or on
the table screen."""

from __future__ import annotations

import pytest
from screens.screen_support import screenshot

pytestmark = pytest.mark.slow

ROUTES = ["ESNW", "NESW", "WSEN"]


def said(route: str) -> str:
    return ", ".join({"N": "north", "E": "east", "S": "south", "W": "west"}[d] for d in route)


def spaced(route: str) -> str:
    return " ".join(route)


def test_each_legs_route_reaches_only_that_legs_keeper(start_server, device):
    from playwright.sync_api import expect

    server = start_server("compass-code", players=3, seed=5,
                          options={"keeper": "human", "mode": "standard", "routes": list(ROUTES)})
    table = device(width=1280, height=900)
    table.goto(server.table_url)
    phones = {}
    for seat in (1, 2, 3):
        href = table.locator(f"#region-live .seat-card:nth-child({seat}) a.join-link").get_attribute("href")
        phones[seat] = device()
        phones[seat].goto(href)
        phones[seat].wait_for_url(f"**/seat/{seat}")

    for leg, route in enumerate(ROUTES, 1):
        keeper = phones[leg]
        # shown as letters, read by a screen reader as words
        expect(keeper.locator(".route [aria-hidden=true]")).to_have_text(spaced(route))
        expect(keeper.locator(".route .sr-only")).to_have_text(said(route))
        for seat, phone in phones.items():
            if seat != leg:
                expect(phone.locator(".route")).to_have_count(0)
                text = phone.locator("main").inner_text()
                assert spaced(route) not in text and said(route) not in text
        expect(table.locator("main")).not_to_contain_text(spaced(route))
        expect(table.locator("main")).not_to_contain_text(said(route))
        captain = next(p for p in phones.values() if "captain" in p.locator("#region-prompt").inner_text())
        for field, direction in zip("abcd", route):
            captain.select_option(f"#send-{field}", direction)
        captain.click("#do-send")
        expect(keeper.locator("#region-prompt")).to_contain_text("totals")
        keeper.select_option("#feedback-anchors", "4")
        keeper.select_option("#feedback-clockwise", "0")
        keeper.click("#do-feedback")                 # the totals cannot be taken back: asked first
        expect(keeper.locator(".ask .question")).to_contain_text("anchors 4, clockwise steps 0")
        with keeper.expect_response(lambda r, leg=leg: r.url.endswith(f"/seat/{leg}/command")) as answered:
            keeper.locator(".ask button.yes").click()
        reply = answered.value.json()
        assert reply["accepted"]
        if leg == len(ROUTES):
            break
        following = spaced(ROUTES[leg])
        assert not any(following in line for line in reply["private"]), reply["private"]
        expect(table.locator(".said")).to_contain_text(f"Leg {leg + 1} of 3")
        expect(phones[leg + 1].locator(".route [aria-hidden=true]")).to_have_text(following)
        expect(keeper.locator(".route")).to_have_count(0)
        assert following not in keeper.locator("body").inner_text()       # page, prompt, status regions
        expect(table.locator("main")).not_to_contain_text(following)
    expect(table.locator(".said")).to_contain_text("Leg 3")
    assert server.hub.session.over
    screenshot(table, "table-compass-voyage-end")
