"""A whole Compass Code voyage on real screens at a table of four, each player on their
own phone: join by token, the captain sends from a phone, the human keeper's marks
update live, a wrong total is flagged privately (never on the table), the corrected
totals score as a free clue (the same captain proposes again), the keeper's screen
moves with the leg, and every guess and total of the three legs is a tap on the phone
of the seat whose turn it is, the table's history growing one row a guess."""

from __future__ import annotations

import time

import pytest
from screens.screen_support import (
    WAIT_MS,
    accessibility_problems,
    answer_asked,
    assert_board_first,
    board_shot,
    join_seat,
    screenshot,
    wait_until,
)

pytestmark = pytest.mark.slow


#: the points in clockwise order
POINTS = "NESW"


def totals(guess: str, route: str) -> tuple[int, int]:
    """The rules' count: an anchor where the guess names the hidden point, clockwise where
    the hidden point is the next one clockwise from the guessed one."""
    anchors = sum(g == r for g, r in zip(guess, route))
    clockwise = sum(POINTS[(POINTS.index(g) + 1) % 4] == r for g, r in zip(guess, route))
    return anchors, clockwise


def give_totals(keeper, anchors: int, clockwise: int) -> None:
    """The keeper's totals from its phone: nothing is preselected, and the tap is asked
    first (totals cannot be taken back), naming what was picked; Yes gives them."""
    from playwright.sync_api import expect

    for field in ("anchors", "clockwise"):
        expect(keeper.locator(f"#feedback-{field}")).to_have_value("")
    keeper.select_option("#feedback-anchors", str(anchors))
    keeper.select_option("#feedback-clockwise", str(clockwise))
    answer_asked(keeper, "#do-feedback", f"anchors {anchors}, clockwise steps {clockwise}?")


def moved(server, before) -> None:
    """Wait until the click just made has been applied (the state is a new one)."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while server.hub.session.state is before:
        assert time.monotonic() < deadline, "the click was never applied"
        time.sleep(0.05)


def test_compass_leg_with_human_keeper(start_server, device):
    from playwright.sync_api import expect

    # rules example routes: leg 1 hides E S N W; a guess N E S W scores C C - A (1 anchor, 2 clockwise)
    server = start_server("compass-code", players=4, seed=5,
                          options={"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]})
    table = device(width=1280, height=900)
    table.goto(server.table_url)
    expect(table.locator("h1")).to_contain_text("Compass Code")
    expect(table.locator(".seat-card")).to_have_count(4)
    expect(table.locator(".seat-card .qr svg")).to_have_count(4)               # a QR code a seat
    expect(table.locator(".seat-card .short")).to_have_count(4)                # and a short code
    screenshot(table, "table-compass-start")

    keeper = join_seat(device, table, 1)
    captain = join_seat(device, table, 2)
    fourth = join_seat(device, table, 4)
    expect(fourth.locator(".route")).to_have_count(0)          # the crew never sees the route
    expect(keeper.locator(".route")).to_contain_text("E S N W")
    expect(captain.locator("#region-prompt")).to_contain_text("captain")
    expect(captain.locator(".route")).to_have_count(0)        # the captain never sees the route

    # no picker of a move starts on a value: a guess or the bearing check is never one tap
    for picker in ("#send-a", "#send-b", "#send-c", "#send-d", "#check-direction", "#check-position"):
        expect(captain.locator(picker)).to_have_value("")
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
    # the table's board: the guess on the compass (its positions on the points), one row a guess
    history = table.locator("table.history tbody tr")
    expect(history).to_have_count(1)
    expect(history.first).to_have_class("pending")
    marks = table.evaluate("""() => {
        const face = document.querySelector('.rose-face').getBoundingClientRect();
        const cx = face.left + face.width / 2, cy = face.top + face.height / 2;
        return Object.fromEntries(Array.from(document.querySelectorAll('.rose-face .badge'), (b) => {
            const r = b.getBoundingClientRect();
            return [b.dataset.mark, [r.left + r.width / 2 - cx, r.top + r.height / 2 - cy]]; })); }""")
    assert marks["1"][1] < 0 and marks["3"][1] > 0                    # N E S W: 1 at the north, 3 at the south
    assert marks["2"][0] > 0 and marks["4"][0] < 0                    # 2 at the east, 4 at the west
    expect(table.locator(".candidates")).to_contain_text("Routes still possible: 24")

    # the totals: nothing preselected, so a tap without picking sends nothing at all
    for field in ("anchors", "clockwise"):
        expect(keeper.locator(f"#feedback-{field}")).to_have_value("")
    keeper.click("#do-feedback")
    keeper.wait_for_timeout(500)
    expect(keeper.locator(".ask")).to_have_count(0)
    assert server.hub.session.log.path.read_text(encoding="utf-8") == logged
    # picked, the tap asks first, naming the totals; No keeps things as they are
    keeper.select_option("#feedback-anchors", "0")
    keeper.select_option("#feedback-clockwise", "2")
    answer_asked(keeper, "#do-feedback", "Give the totals: anchors 0, clockwise steps 2?", yes=False)
    expect(keeper.locator("form.control .feedback").filter(has_text="Kept as it was")).to_have_count(1)
    assert server.hub.session.log.path.read_text(encoding="utf-8") == logged
    answer_asked(keeper, "#do-feedback", "Give the totals: anchors 0, clockwise steps 2?")
    expect(keeper.locator(".alert")).to_contain_text("Recount")
    expect(keeper.locator(".messages")).to_contain_text("Recount: guess 1")
    screenshot(keeper, "seat-compass-keeper-recount")
    assert accessibility_problems(keeper) == []
    expect(table.locator("body")).not_to_contain_text("Recount")
    expect(table.locator("body")).not_to_contain_text("E S N W")

    give_totals(keeper, 1, 2)
    expect(table.locator(".said")).to_contain_text("1 anchor")
    expect(history).to_have_count(1)
    expect(history.first.locator("td [aria-hidden=true]")).to_have_text("N E S W")
    expect(history.first.locator("td").nth(1)).to_have_text("1 anchor, 2 clockwise steps")
    expect(table.locator(".candidates")).not_to_contain_text(": 24")
    expect(keeper.locator(".alert")).to_have_count(0)
    expect(keeper.locator("table.marks tbody tr").first.locator(".mark [aria-hidden=true]")).to_have_text("C C – A")
    screenshot(captain, "seat-compass-captain")
    board_shot(table, "#board", "compass-table")
    board_shot(keeper, "#region-view", "compass-seat")
    assert_board_first(table, "compass")

    # a corrected total is a free clue: the same captain proposes guess 1 again
    third = join_seat(device, table, 3)
    expect(third.locator(".route")).to_have_count(0)                          # the board, not the route
    expect(third.locator("table.history tbody tr")).to_have_count(1)
    # the public board is not headed "Only for you" on a phone that holds nothing private
    expect(third.locator("#region-view h2")).to_have_text(["What everyone sees"])
    expect(keeper.locator("#region-view h2")).to_have_text(["Only for you"])
    # the history fits a 390 px phone and a 320 px one: nothing cut ("Cloc…"), no scrolling
    for width in (390, 320):
        third.set_viewport_size({"width": width, "height": 700})
        wait_until(third, f"window.innerWidth === {width}")
        fits = third.evaluate("""() => { const box = document.querySelector('.table-box:has(table.history)');
            const cut = Array.from(box.querySelectorAll('th, td')).filter((c) => c.scrollWidth > c.clientWidth + 1);
            return [box.scrollWidth - box.clientWidth, cut.map((c) => c.innerText)]; }""")
        assert fits[0] <= 1 and fits[1] == [], (width, fits)
        assert accessibility_problems(third) == []
    expect(captain.locator("#region-prompt")).to_contain_text("captain")
    for field, direction in zip("abcd", "ESNW"):
        captain.select_option(f"#send-{field}", direction)
    captain.click("#do-send")
    expect(keeper.locator("table.marks tr.pending .mark [aria-hidden=true]")).to_have_text("A A A A")
    expect(history).to_have_count(2)
    give_totals(keeper, 4, 0)
    expect(table.locator(".said")).to_contain_text("Leg 2 of 3")
    # the score says what the status sentence says: one leg solved of the one played
    expect(table.locator(".scores div", has_text="Legs solved").locator("dd")).to_have_text("1 of 1 played")
    expect(table.locator("#region-status .status")).to_contain_text("Legs solved: 1 of 1 played")
    # leg 2 is kept by seat 2: its screen now holds the new route, seat 1's no longer does
    expect(captain.locator(".route")).to_contain_text("N E S W")
    expect(keeper.locator(".route")).to_have_count(0)
    expect(history).to_have_count(0)                                           # a new leg, a new history
    # private messages stay with the seat they were said to: the new keeper never sees the
    # old keeper's "Recount", and the old keeper still has it after a reload
    expect(captain.locator(".messages")).not_to_contain_text("Recount")
    keeper.reload()
    expect(keeper.locator(".messages")).to_contain_text("Recount: guess 1")
    screenshot(table, "table-compass")
    assert accessibility_problems(table) == []
    screenshot(keeper, "seat-compass-keeper")

    # legs 2 and 3 to the end of the game, each guess and total a tap on the phone whose turn it is
    phones = {1: keeper, 2: captain, 3: third, 4: fourth}
    for leg, (route, wrong) in enumerate((("NESW", "NEWS"), ("WSEN", "WSNE")), 2):
        for guess, sent in enumerate((wrong, route), 1):
            state = server.hub.session.state
            assert state.leg == leg and state.keeper is not None
            asked, keeping = phones[state.captain], phones[state.keeper]
            expect(asked.locator("#region-prompt")).to_contain_text("captain")
            for field, direction in zip("abcd", sent):
                asked.select_option(f"#send-{field}", direction)
            asked.click("#do-send")
            expect(keeping.locator("table.marks tr.pending")).to_have_count(1)
            anchors, clockwise = totals(sent, route)
            before = server.hub.session.state
            give_totals(keeping, anchors, clockwise)
            moved(server, before)
            if sent != route:
                expect(history).to_have_count(guess)               # one row a guess
                expect(history.nth(guess - 1).locator("td").nth(1)).to_contain_text(
                    f"{anchors} anchor" if anchors == 1 else f"{anchors} anchors")
    expect(table.locator(".said")).to_contain_text("3 of 3")
    expect(table.locator(".scores")).to_contain_text("3 of 3 played")
    # the result is on every screen after the last move
    expect(table.locator("#region-board .result")).to_contain_text("The voyage is over: 3 of 3 legs solved")
    for phone in phones.values():
        expect(phone.locator("#region-prompt .result")).to_contain_text("The voyage is over: 3 of 3 legs solved")
    expect(table.locator("#connection")).to_be_empty()
