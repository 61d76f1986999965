"""Two Windows on real screens at a table of four, each player on their own phone, every
command a tap on the phone of the seat that speaks: the practice game (one round), where
each informant team's phone shows its own report only, each locks one fact, the joint
reveal reaches every screen and the decoder names the entry (the rules' practice
example: FORM ROUND and SURFACE STRIPED identify Brook at the first stage, 2 points);
and a scored game of six rounds (--packets 1-6)."""

from __future__ import annotations

import pytest
from screens.screen_support import (
    accessibility_problems,
    answer_asked,
    assert_board_first,
    board_shot,
    screenshot,
)

pytestmark = pytest.mark.slow


def test_informants_lock_facts_and_see_the_joint_reveal(start_server, device):
    from playwright.sync_api import expect

    server = start_server("two-windows", players=4, seed=2, options={"practice": True})
    table = device(width=1280, height=900)
    table.goto(server.table_url)
    links = [table.locator(f".seat-card:nth-child({n}) a.join-link").get_attribute("href") for n in (1, 2, 3, 4)]
    decoder, holder_a, holder_b, partner = (device() for _ in range(4))
    for page, href, seat in zip((decoder, holder_a, holder_b, partner), links, (1, 2, 3, 4)):
        page.goto(href)
        page.wait_for_url(f"**/seat/{seat}")

    # round 1: Oak (seats 1 and 4, seat 1 speaking) decodes, Pine (seat 2) holds A, Reed (seat 3) holds B
    expect(holder_a.locator("#region-view")).to_contain_text("FORM ROUND")
    expect(holder_a.locator("#region-view")).to_contain_text("SIZE SMALL")
    expect(holder_b.locator("#region-view")).to_contain_text("SURFACE STRIPED")
    for page, hidden in ((holder_a, "STRIPED"), (holder_b, "SMALL"), (decoder, "ROUND"), (partner, "ROUND")):
        expect(page.locator("#region-view")).not_to_contain_text(hidden)
    expect(holder_a.locator("#region-prompt")).to_contain_text("lock one fact")
    # the report is headed as the informants' own; the revealed board as everyone's
    expect(holder_a.locator("#region-view h2")).to_have_text(["Only for you", "What everyone sees"])
    expect(decoder.locator("#region-view h2")).to_have_text(["What everyone sees"])
    screenshot(holder_a, "seat-two-windows-report")
    assert accessibility_problems(holder_a) == []

    holder_a.get_by_role("button", name="FORM ROUND").click()
    expect(holder_a.locator("#region-view")).to_contain_text("Locked")
    expect(table.locator(".said")).to_contain_text("Report A's slip is locked")
    expect(table.locator("body")).not_to_contain_text("FORM ROUND")      # not before the reveal
    expect(decoder.locator("body")).not_to_contain_text("form round")
    expect(partner.locator("body")).not_to_contain_text("form round")

    expect(table.locator(".revealed .column")).to_have_count(2)
    expect(table.locator(".revealed li")).to_have_count(0)                  # nothing revealed yet
    holder_b.get_by_role("button", name="SURFACE STRIPED").click()
    for page in (table, decoder, holder_a, holder_b, partner):
        expect(page.locator(".said")).to_contain_text("form round")
        expect(page.locator(".said")).to_contain_text("surface striped")
    # the revealed facts side by side: report A's on the left, report B's on the right
    a_col, b_col = table.locator(".revealed .column").nth(0), table.locator(".revealed .column").nth(1)
    expect(a_col.locator("li")).to_have_text(["FORM ROUND"])
    expect(b_col.locator("li")).to_have_text(["SURFACE STRIPED"])
    a_box, b_box = a_col.bounding_box(), b_col.bounding_box()
    assert a_box["x"] + a_box["width"] <= b_box["x"] and abs(a_box["y"] - b_box["y"]) < 2
    # the catalogue is a tap away on the decoder's phone
    catalogue = decoder.locator("details.catalogue-box")
    expect(catalogue.locator("table")).not_to_be_visible()
    catalogue.locator("summary").click()
    expect(catalogue.locator("table")).to_be_visible()
    expect(catalogue.locator("tbody tr", has_text="Brook")).to_contain_text("round")
    board_shot(table, "#board", "two-windows-table")
    board_shot(decoder, "#region-view", "two-windows-seat")
    expect(holder_b.locator("#region-view")).to_contain_text("Revealed")
    expect(decoder.locator("#region-prompt")).to_contain_text("decodes")
    screenshot(holder_b, "seat-two-windows-reveal")

    assert_board_first(table, "two-windows")
    # the final answer and "more" cannot be taken back: no name is preselected, a tap
    # without one sends nothing, and each tap is asked first (No keeps things)
    logged = server.hub.session.log.path.read_text(encoding="utf-8")
    expect(decoder.locator("#final-name")).to_have_value("")
    decoder.click("#do-final")
    decoder.wait_for_timeout(500)
    expect(decoder.locator(".ask")).to_have_count(0)
    answer_asked(decoder, "#do-more", "Reveal the second facts?", yes=False)
    decoder.select_option("#final-name", "Brook")
    answer_asked(decoder, "#do-final", "Give Brook as the final answer?", yes=False)
    assert server.hub.session.log.path.read_text(encoding="utf-8") == logged
    screenshot(decoder, "seat-two-windows-decoder")
    answer_asked(decoder, "#do-final", "Give Brook as the final answer?")
    expect(table.locator(".said")).to_contain_text("Brook")
    expect(table.locator(".scores")).to_contain_text("2 / 2")
    expect(table.locator(".said")).to_contain_text("Practice over: 2 of 2 points")
    expect(partner.locator(".said")).to_contain_text("Brook")
    # the result stays on every screen
    expect(table.locator("#region-board .result")).to_contain_text("2 of 2 points")
    for page in (decoder, holder_a, holder_b, partner):
        expect(page.locator("#region-prompt .result")).to_contain_text("2 of 2 points")
    screenshot(table, "table-two-windows")
    screenshot(decoder, "seat-two-windows-over")
    assert accessibility_problems(decoder) == []


def test_a_scored_game_of_six_rounds_by_taps(start_server, device):
    """Six rounds at a table of four: in each, the two informant spokespeople lock a fact
    on their phones, the revealed slips stand side by side on the table, and the decoding
    spokesperson names the target from a phone (2 points a round at the first stage)."""
    from playwright.sync_api import expect

    server = start_server("two-windows", players=4, seed=2, options={"packets": [1, 2, 3, 4, 5, 6]})
    referee = server.hub.session.referee
    table = device(width=1280, height=900)
    table.goto(server.table_url)
    phones = {}
    for seat in (1, 2, 3, 4):
        phones[seat] = device()
        phones[seat].goto(table.locator(f".seat-card:nth-child({seat}) a.join-link").get_attribute("href"))
        phones[seat].wait_for_url(f"**/seat/{seat}")
    for number in range(1, 7):
        state = server.hub.session.state
        assert state.round == number
        packet, speakers = referee.packet(state), dict(state.speakers)
        expect(table.locator(".revealed li")).to_have_count(0)                # nothing revealed yet
        for holder in ("a", "b"):
            phones[speakers[holder]].get_by_role("button", name=packet.report(holder)[0]).click()
        a_col, b_col = table.locator(".revealed .column").nth(0), table.locator(".revealed .column").nth(1)
        expect(a_col.locator("li")).to_have_text([packet.a[0]])
        expect(b_col.locator("li")).to_have_text([packet.b[0]])
        decoder = phones[speakers["decoder"]]
        expect(decoder.locator("#final-name")).to_have_value("")            # never a name preselected
        decoder.select_option("#final-name", packet.target)
        answer_asked(decoder, "#do-final", f"Give {packet.target} as the final answer?")
        answers = table.locator(".said li", has_text="Right, ")
        expect(answers).to_have_count(number)                                 # one answer a round
        expect(answers.last).to_contain_text(f"Right, {packet.target}")
        expect(table.locator(".scores")).to_contain_text(f"{2 * number} / 12")
    assert server.hub.session.state.over
    expect(table.locator("#region-board .result")).to_contain_text("12 of 12 points")
    for phone in phones.values():
        expect(phone.locator("#region-prompt .result")).to_contain_text("12 of 12 points")
