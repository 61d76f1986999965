"""What a second evening on the phones found (issue 43), each by taps and by keyboard in
chromium: a keeper's route card and Clover's place pickers start on nothing and the
card is asked first; the phone's reply to a tap whose form went away stands where
the seat acted, never over the controls needed next or the board; Clover's guessers
see the board being resolved first; after Yes focus is on what changed, not the body."""

from __future__ import annotations

import pytest
from screens.screen_support import answer_asked, join_seat

pytestmark = pytest.mark.slow

#: the element at the middle of ``sel`` once it is scrolled to the top of the window: is
#: it ``sel`` itself (or inside it), or does something lie over it?
UNCOVERED = """(sel) => {
  const el = document.querySelector(sel);
  el.scrollIntoView({block: 'start'});
  const r = el.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + Math.min(r.width / 2, 20), r.top + Math.min(r.height / 2, 8));
  return !!at && (el === at || el.contains(at));
}"""

#: where focus is: 'body', or the id / class of the element and of its form
FOCUS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return 'body';
  const form = el.closest('form.control');
  const control = form && form.querySelector('input[name=control]');
  return (el.id || el.className || el.tagName) + '|' + (control ? control.value : '');
}"""


def logged(server) -> list[str]:
    return server.hub.session.log.path.read_text(encoding="utf-8").splitlines()


def yes_by_keyboard(page, button: str, question: str) -> None:
    """The keyboard's way through an asked tap: Enter on the button, the question with
    focus on No, Shift+Tab to Yes, Enter."""
    from playwright.sync_api import expect

    page.focus(button)
    page.keyboard.press("Enter")
    ask = page.locator(".ask")
    expect(ask.locator(".question")).to_contain_text(question)
    expect(ask.locator("button.no")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(ask.locator("button.yes")).to_be_focused()
    page.keyboard.press("Enter")


def test_a_keepers_route_card_starts_on_nothing_and_replacing_the_route_is_asked(start_server, device):
    from playwright.sync_api import expect

    server = start_server("compass-code", players=3, seed=3, options={"keeper": "human", "mode": "standard"})
    table = device(width=1280, height=800)
    table.goto(server.table_url)
    keeper = join_seat(device, table, server.hub.session.state.keeper)
    drawn = server.hub.session.state.card
    other = next(str(n) for n in (9, 8) if n != drawn)
    third = next(str(n) for n in (12, 13) if n != drawn)           # typed into the picker: "1", "2"
    picker = keeper.locator("#route-card-card")
    expect(picker).to_have_value("")                                    # "Choose", not card 1
    expect(picker.locator("option").first).to_have_text("Choose")
    before = len(logged(server))
    keeper.click("#do-route-card")                                      # nothing picked: nothing sent
    keeper.focus("#do-route-card")
    keeper.keyboard.press("Enter")
    keeper.wait_for_timeout(300)
    assert len(logged(server)) == before and server.hub.session.state.card == drawn

    # by taps: asked first, No keeps the drawn route, Yes replaces it
    picker.select_option(other)
    answer_asked(keeper, "#do-route-card", f"Use route card {other}?", yes=False)
    expect(keeper.locator("form.control .feedback").filter(has_text="Kept as it was")).to_have_count(1)
    assert server.hub.session.state.card == drawn
    picker.select_option(other)
    answer_asked(keeper, "#do-route-card", f"Use route card {other}?")
    expect(keeper.locator("#region-view")).to_contain_text(f"card {other}")
    assert server.hub.session.state.card == int(other)

    # by keyboard: the card typed into the picker, Enter on the button, Yes; focus on the answer
    keeper.focus("#route-card-card")
    keeper.keyboard.type(third)
    expect(picker).to_have_value(third)
    yes_by_keyboard(keeper, "#do-route-card", f"Use route card {third}?")
    expect(keeper.locator("#region-view")).to_contain_text(f"card {third}")
    assert server.hub.session.state.card == int(third)
    expect(keeper.locator("form.control .feedback").filter(has_text=third)).to_have_count(1)
    assert keeper.evaluate(FOCUS).endswith("|route-card"), keeper.evaluate(FOCUS)   # the form, not the body


def clover_at_resolution(server) -> None:
    for seat in (1, 2, 3, 4):
        for zone, clue in (("top", "serendipity"), ("right", "melancholy"), ("bottom", "nostalgia"),
                           ("left", "wanderlust")):
            reply = server.hub.submit(f"clue {seat} {zone} {clue}")
            assert reply is not None and reply.accepted, reply
    assert server.hub.session.state.layout is not None


def clover_committer(start_server, device):
    """Clover at its first resolution: the server, the committer's phone (390 x 844) and
    the spectator's."""
    server = start_server("clover", players=4, seed=11, options={"extra": 2})
    clover_at_resolution(server)
    table = device(width=1280, height=800)
    table.goto(server.table_url)
    state = server.hub.session.state
    return server, join_seat(device, table, state.committer()), join_seat(device, table, state.spectator)


def test_clovers_committer_sees_the_board_it_places_on_first(start_server, device):
    from playwright.sync_api import expect

    _, committer, spectator = clover_committer(start_server, device)
    expect(committer.locator("#region-prompt")).to_contain_text("commit")
    where = committer.evaluate("""() => ({board: document.querySelector('.clover').getBoundingClientRect().top,
        own: document.querySelector('.myboard').getBoundingClientRect().top, height: window.innerHeight})""")
    # in the first screenful, under the name, the prompt and the talk button (it was 1,400 px down)
    assert where["board"] < where["own"] and where["board"] < where["height"] * 2 / 3, where
    expect(committer.locator("#region-view h2").first).to_have_text("What everyone sees")
    # the spectator's own board (the one being guessed) still comes first on theirs
    expect(spectator.locator("#region-view h2").first).to_have_text("Only for you")
    # the reply to a tap on the board stands after the board, not over it
    committer.click("#pick-2")
    committer.click("#slot-top-left")
    expect(committer.locator("#feedback")).to_contain_text("Card 2 is in the")
    expect(committer.locator("#feedback")).to_be_in_viewport()
    assert committer.evaluate(UNCOVERED, ".clover")


def test_clovers_place_pickers_start_on_nothing(start_server, device):
    from playwright.sync_api import expect

    server, committer, _ = clover_committer(start_server, device)
    slots = server.hub.session.state.layout.slots
    for sel in ("#place-card", "#place-slot", "#turn-card"):
        expect(committer.locator(sel)).to_have_value("")
        expect(committer.locator(sel).locator("option").first).to_have_text("Choose")
    before = len(logged(server))
    committer.click("#do-place")                                         # by tap: nothing picked, nothing sent
    committer.focus("#do-place")
    committer.keyboard.press("Enter")                                    # by keyboard: the same
    committer.wait_for_timeout(300)
    assert len(logged(server)) == before and server.hub.session.state.layout.slots == slots
    committer.select_option("#place-card", "3")
    committer.select_option("#place-slot", "bottom-right")
    committer.click("#do-place")
    expect(committer.locator("#slot-bottom-right .num")).to_have_text("3")


def two_windows_locked(start_server, device):
    """A scored game of four phones, round 1's two facts locked: the decoder's phone and the packet."""
    from playwright.sync_api import expect

    server = start_server("two-windows", players=4, seed=2, options={"packets": [1, 2, 3, 4, 5, 6]})
    table = device(width=1280, height=800)
    table.goto(server.table_url)
    phones = {seat: join_seat(device, table, seat) for seat in (1, 2, 3, 4)}
    state = server.hub.session.state
    packet, speakers = server.hub.session.referee.packet(state), dict(state.speakers)
    for holder in ("a", "b"):
        phones[speakers[holder]].get_by_role("button", name=packet.report(holder)[0]).click()
    decoder = phones[speakers["decoder"]]
    expect(decoder.locator("#do-more")).to_be_visible()
    return decoder, packet


def test_after_more_the_reply_keeps_out_of_the_final_pickers_way(start_server, device):
    from playwright.sync_api import expect

    decoder, packet = two_windows_locked(start_server, device)
    answer_asked(decoder, "#do-more", "Reveal the second facts?")
    expect(decoder.locator("#feedback")).to_contain_text("final")
    expect(decoder.locator("#do-more")).to_have_count(0)                   # its form went with the move
    assert decoder.evaluate(UNCOVERED, "#final-name"), "the reply lies over the final-answer picker"
    assert decoder.evaluate(UNCOVERED, "#region-view"), "the reply lies over the revealed facts"
    decoder.select_option("#final-name", packet.target)                   # and the picker works
    answer_asked(decoder, "#do-final", f"Give {packet.target} as the final answer?")
    expect(decoder.locator(".said li", has_text="Right, ")).to_have_count(1)


def test_after_yes_by_enter_focus_is_on_the_reply_not_the_body(start_server, device):
    from playwright.sync_api import expect

    decoder, _ = two_windows_locked(start_server, device)
    yes_by_keyboard(decoder, "#do-more", "Reveal the second facts?")
    reply = decoder.locator("#feedback")
    expect(reply).to_contain_text("final")
    expect(reply).to_be_focused()                                           # the More form is gone: its reply
    assert decoder.evaluate(FOCUS) != "body"


def test_a_long_lantern_reply_never_hides_the_chain(start_server, device):
    from playwright.sync_api import expect

    server = start_server("lantern-links", players=4, seed=8)
    table = device(width=1024, height=768)
    table.goto(server.table_url)
    phones = [join_seat(device, table, seat) for seat in (1, 2, 3, 4)]
    for by_keyboard in (False, True):
        state = server.hub.session.state
        passer = phones[state.turn - 1]
        if by_keyboard:
            passer.focus("#do-pass")
            passer.keyboard.press("Enter")
        else:
            passer.click("#do-pass")
        reply = passer.locator("#feedback")
        expect(reply).to_contain_text("turn")
        expect(passer.locator("#do-pass")).to_have_count(0)                  # not this seat's turn now
        assert passer.evaluate(UNCOVERED, ".chain"), "the reply lies over the chain"
        assert passer.evaluate(FOCUS) != "body"
