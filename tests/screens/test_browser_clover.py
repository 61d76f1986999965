"""Clover on real screens, a whole game at a table of four, each player on their own
phone: a seat joins with its short code, writes clues with instant refused / noted
feedback on its phone (while typing, then on Submit), every seat writes its clues on
its own phone, and each of the four boards is resolved by touch on the committer's
phone (pick a card, tap a slot, turn it; commit, confirmed) while the table screen
draws it: the square in order, the clues on its edges, a turned card's words moved."""

from __future__ import annotations

import tomllib

import pytest
from screens.screen_support import (
    accessibility_problems,
    answer_asked,
    assert_board_first,
    board_shot,
    screenshot,
    wait_until_live,
)

from facilitator.games.clover.board import SLOTS, turns_between
from facilitator.paths import content_dir

pytestmark = pytest.mark.slow

EDGES = ("top", "right", "bottom", "left")


def box(page, selector: str) -> dict:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


def assert_square(page, board: str) -> None:
    """The four slots form a square in the right order, and each clue sits on its edge."""
    tl, tr, br, bl = (box(page, f"{board} .pos-{pos}") for pos in
                      ("top-left", "top-right", "bottom-right", "bottom-left"))
    assert tl["x"] < tr["x"] and bl["x"] < br["x"]                      # left column, right column
    assert tl["y"] < bl["y"] and tr["y"] < br["y"]                      # top row, bottom row
    assert abs(tl["y"] - tr["y"]) < 2 and abs(bl["y"] - br["y"]) < 2
    assert abs(tl["x"] - bl["x"]) < 2 and abs(tr["x"] - br["x"]) < 2
    slots = box(page, f"{board} .square-slots")
    top, right, bottom, left = (box(page, f"{board} .edge-{edge}") for edge in EDGES)
    assert top["y"] + top["height"] <= slots["y"] + 1
    assert bottom["y"] >= slots["y"] + slots["height"] - 1
    assert left["x"] + left["width"] <= slots["x"] + 1
    assert right["x"] >= slots["x"] + slots["width"] - 1


def assert_right_of_centre(page, card: str, word: str) -> None:
    whole = box(page, f"{card} .card4")
    drawn = page.locator(f"{card} .card4 .w", has_text=word).first.bounding_box()
    assert drawn is not None and drawn["x"] > whole["x"] + whole["width"] / 2

#: each card word on the page: its size against the page's own text, and whether it is
#: broken across lines (a word split inside itself: "mountai/n"); with ``word`` set,
#: every card word is that word first (the deck's widest)
CARD_WORDS = r"""(word) => {
  const body = parseFloat(getComputedStyle(document.body).fontSize);
  const words = Array.from(document.querySelectorAll('.card4 .w'));
  if (word) words.forEach((w) => { w.textContent = word; });
  return words.map((w) => {
    const range = document.createRange(); range.selectNodeContents(w);
    const vertical = getComputedStyle(w).writingMode.startsWith('vertical');
    const lines = new Set(Array.from(range.getClientRects(), (r) => Math.round(vertical ? r.left : r.top))).size;
    return {word: w.textContent, size: parseFloat(getComputedStyle(w).fontSize), body, lines};
  }).filter((w) => w.size < w.body || w.lines > 1);
}"""


def widest_word(page) -> str:
    """The deck's word that takes the most room in the page's card type."""
    deck = tomllib.loads((content_dir() / "clover" / "keywords.toml").read_text(encoding="utf-8"))
    words = [w for card in deck["cards"] for w in card["words"]]
    return page.evaluate("""(words) => { const w = document.querySelector('.card4 .w'), s = getComputedStyle(w);
        const c = document.createElement('canvas').getContext('2d');
        c.font = s.fontWeight + ' ' + s.fontSize + ' ' + s.fontFamily;
        return words.reduce((a, b) => c.measureText(b).width > c.measureText(a).width ? b : a); }""", words)


def assert_card_words_readable(page) -> None:
    """Every card word is at least the page's text size and whole on one line: the
    words dealt, then the deck's widest word on every card (the page is reloaded)."""
    assert page.evaluate(CARD_WORDS, "") == []
    assert page.evaluate(CARD_WORDS, widest_word(page)) == []
    page.reload()
    wait_until_live(page)


#: clues unlike any concrete keyword of the deck
CLUES = {"right": "serendipity", "bottom": "melancholy", "left": "nostalgia"}


def test_clues_then_board_by_touch(start_server, device):
    from playwright.sync_api import expect

    server = start_server("clover", players=4, seed=11, options={"extra": 2})
    table = device(width=1280, height=1000)
    table.goto(server.table_url)
    expect(table.locator(".dial")).to_have_attribute("aria-valuenow", "2")
    expect(table.locator(".legends")).to_contain_text("No record yet")        # a fresh data directory
    code = table.locator(".seat-card:nth-child(1) .short").inner_text()

    phone = device(width=320, height=700)          # usable at 320 px wide
    phone.goto(server.base_url + "/join")
    phone.fill("#code", code.lower())
    phone.get_by_role("button", name="Join").click()
    phone.wait_for_url("**/seat/1")
    expect(phone.locator("#region-prompt")).to_contain_text("clues")
    phones = {1: phone}
    for seat in (2, 3, 4):
        phones[seat] = device()
        phones[seat].goto(table.locator(f".seat-card:nth-child({seat}) a.join-link").get_attribute("href"))
        phones[seat].wait_for_url(f"**/seat/{seat}")

    # feedback while typing: the referee's own check, nothing logged until Submit
    logged = len(server.hub.session.log.path.read_text(encoding="utf-8").splitlines())
    # the phone draws the player's board as the clover: bottom right at the bottom right
    assert_square(phone, ".myboard")
    state = server.hub.session.state
    for slot in SLOTS:
        for edge, word in zip(EDGES, state.boards[1][slot]):
            expect(phone.locator(f".myboard .pos-{slot.value} .w-{edge}")).to_have_text(word)
    first_word = phone.locator(".myboard .pos-top-left .w-top").inner_text()
    phone.fill("#clue-top", first_word)
    expect(phone.locator("#fb-clue-top")).to_contain_text("one of your own keywords")
    phone.fill("#clue-top", "two words")
    expect(phone.locator("#fb-clue-top")).to_contain_text("has a space")
    phone.fill("#clue-top", "Zqxvyk")
    expect(phone.locator("#fb-clue-top")).to_contain_text("not in the dictionary")
    assert len(server.hub.session.log.path.read_text(encoding="utf-8").splitlines()) == logged
    phone.fill("#clue-top", first_word)
    phone.click("#do-clue-top")                      # submitted anyway: refused, and the table hears so
    expect(phone.locator("#fb-clue-top")).to_contain_text("one of your own keywords")
    expect(table.locator(".said")).to_contain_text("Player 1, your clue for top was not accepted")
    phone.fill("#clue-top", "Zqxvyk")
    phone.click("#do-clue-top")
    expect(phone.locator("#fb-clue-top")).to_contain_text("Your clue for top is Zqxvyk")
    for zone, clue in CLUES.items():
        phone.fill(f"#clue-{zone}", clue)
        phone.click(f"#do-clue-{zone}")
        expect(phone.locator(f"#fb-clue-{zone}")).to_contain_text(f"Your clue for {zone} is {clue}")
    expect(phone.locator(".zones")).to_contain_text("nostalgia")
    expect(phone.locator(".myboard .edge-left")).to_contain_text("nostalgia")     # each clue on its edge
    expect(table.locator("body")).not_to_contain_text("Zqxvyk")        # clues stay private until resolution
    screenshot(phone, "seat-clover-clues")
    assert accessibility_problems(phone) == []          # at 320 px

    # the other seats write theirs on their own phones
    for seat in (2, 3, 4):
        for zone, clue in {"top": "serendipity", **CLUES}.items():
            phones[seat].fill(f"#clue-{zone}", clue)
            phones[seat].click(f"#do-clue-{zone}")
            # kept among the seat's messages (the clue forms go once all four seats are in)
            expect(phones[seat].locator(".messages")).to_contain_text(f"Your clue for {zone} is {clue}")
    expect(table.locator(".said")).to_contain_text("Resolution 1 of 4")
    expect(table.locator(".pool li")).to_have_count(6)                   # four cards and the dial's two
    expect(table.locator(".clover .edge-top")).to_contain_text("Zqxvyk")          # the spectator's clues
    expect(table.locator(".clover .edge-right")).to_contain_text("serendipity")
    expect(table.locator(".clover .edge-bottom")).to_contain_text("melancholy")
    assert_square(table, ".clover")

    # the guessers' phones show the board being resolved; the committer's is played by touch
    expect(phone.locator(".clover .pool li")).to_have_count(6)
    for resolution in (1, 2, 3, 4):
        state = server.hub.session.state
        board, committer = state.boards[state.spectator], phones[state.committer()]
        expect(committer.locator("#region-prompt")).to_contain_text("commit")
        for slot in SLOTS:
            layout = server.hub.session.state.layout
            card, turns = next((k, turns_between(layout.words(k), board[slot]))
                               for k in range(1, len(layout.cards) + 1)
                               if layout.slot_of(k) is None and turns_between(layout.words(k), board[slot]) is not None)
            committer.click(f"#pick-{card}")
            expect(committer.locator(f"#pick-{card}")).to_have_attribute("aria-pressed", "true")
            committer.click(f"#slot-{slot.value}")
            expect(table.locator(f"#slot-{slot.value} .num")).to_have_text(str(card))     # drawn on the table
            expect(committer.locator(f"#slot-{slot.value} .num")).to_have_text(str(card))
            expect(committer.locator("#feedback")).to_contain_text(f"Card {card} is in the")   # the phone's answer
            expect(committer.locator("#feedback")).to_be_in_viewport()   # shown where it was touched
            for _ in range(turns):
                top = table.locator(f"#slot-{slot.value} .w-top").inner_text()
                committer.click(f"#turn-{card}")
                # a quarter turn clockwise: the top word moves to the right edge, drawn there
                expect(table.locator(f"#slot-{slot.value} .w-right")).to_have_text(top)
                expect(committer.locator(f"#slot-{slot.value} .w-right")).to_have_text(top)
                if resolution == 1:
                    assert_right_of_centre(table, f"#slot-{slot.value}", top)
            for edge, word in zip(EDGES, board[slot]):
                expect(table.locator(f"#slot-{slot.value} .w-{edge}")).to_have_text(word)
        if resolution == 1:
            screenshot(table, "table-clover-board")
            board_shot(table, "#board", "clover-table")
            assert_square(committer, ".clover")
            assert accessibility_problems(table) == []
            screenshot(phone, "seat-clover-guessers")
            board_shot(committer, "#region-view", "clover-seat")
            assert_board_first(table, "clover")
            # the card words at the page's own text size at least, never broken inside a
            # word, on the table screen and on a 390 px phone (the committer's)
            for page, width, height in ((table, 1280, 800), (committer, 390, 844)):
                page.set_viewport_size({"width": width, "height": height})
                assert_card_words_readable(page)
            table.set_viewport_size({"width": 1280, "height": 1000})
        answer_asked(committer, "#do-commit", "Commit the board?")   # it cannot be taken back
        expect(table.locator(".said li", has_text="All four right at the first attempt")).to_have_count(resolution)
        if resolution < 4:
            expect(table.locator(".said")).to_contain_text(f"Resolution {resolution + 1} of 4")
            # a new board: nothing placed yet, the next spectator's clues on the square's edges
            expect(table.locator(".clover .slot .num")).to_have_count(0)
        if resolution == 1:
            expect(table.locator(".scores")).to_contain_text("Player 1")
            screenshot(table, "table-clover")
    expect(table.locator(".said")).to_contain_text("The game is over")
    expect(table.locator(".clover")).to_have_count(0)                         # no board after the game
    # the result stays on every screen after the last move
    expect(table.locator("#region-board .result")).to_contain_text("Game over: 24 of 24 points")
    for seat_phone in phones.values():
        expect(seat_phone.locator("#region-prompt .result")).to_contain_text("Game over: 24 of 24 points")
    expect(table.locator(".legends")).not_to_contain_text("No record yet")   # the table's record is set
