"""The screens' last stumbles of a third evening (issue 49), each in Debian's chromium.

The phones' questions and answers run against the real listen loop: pocketsphinx (the
light mode) or pocketsphinx and Whisper (both engines) hear espeak-ng's voice, posted
through a seat's talk routes with that phone's own cookies, and espeak-ng speaks the
referee's sentences into files.  Every page state looked at is also run through axe,
which must find nothing of any impact."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from screens.screen_support import (
    ROOT,
    START_SECONDS,
    WAIT_MS,
    WAIT_SECONDS,
    axe_findings,
    free_port,
    wait_until,
    wait_until_live,
)
from support import read_jsonl, silence, speak

from facilitator.screens import ScreenServer, ScreenSettings
from facilitator.session import Session
from facilitator.table_data import TableData

pytestmark = pytest.mark.slow

COMMAND = "send north east south west"
#: where focus is on a page: "body", or the element's id or class
FOCUS = """() => { const el = document.activeElement;
  return !el || el === document.body ? 'body' : (el.id || el.className || el.tagName); }"""


def needs_espeak() -> None:
    if shutil.which("espeak-ng") is None:
        pytest.fail("these tests need espeak-ng (.ci/setup installs it)")


class VoiceTable:
    """A game's screens with the real listen loop attached, as voice play attaches it;
    the table has no microphone of its own (the phones are the microphones)."""

    def __init__(self, root: Path, engines: str, game: str = "compass-code", **options: Any) -> None:
        from facilitator.speech.audio.devices import SilentSource
        from facilitator.speech.audio.endpoint import Endpointer
        from facilitator.speech.base import VoiceSettings
        from facilitator.speech.engines.recognize import make_recognizer
        from facilitator.speech.loop.listen import ListenLoop, LoopSettings, StreamCaptions
        from facilitator.speech.voice_out.tts import FileSpeaker

        self.root = root
        self.log = root / "game.jsonl"
        self.session, opening = Session.start(game, log_path=self.log, table=TableData(root / "data"), **options)
        self.server = ScreenServer(self.session, opening, ScreenSettings(port=0), data=root / "data").start()
        self.speaker = FileSpeaker(root / "said", VoiceSettings())
        self.loop = ListenLoop(self.server.hub.shared, make_recognizer(second_engine=engines), self.speaker,
                               VoiceSettings(), StreamCaptions(io.StringIO()), LoopSettings(),
                               wall_clock=time.monotonic)
        self.server.hub.shared.attach_loop(self.loop)
        self.source = SilentSource()
        self.thread = threading.Thread(target=self.loop.run_audio,
                                       args=(self.source, Endpointer(complete=self.loop.complete)), daemon=True)
        self.thread.start()

    def join(self, device: Callable[..., Any], seat: int, *, script: bool = True) -> Any:
        page = device(script=script)
        page.goto(f"{self.server.base_url}/join/{self.server.seats.seats[seat].token}")
        page.wait_for_url(f"**/seat/{seat}")
        if script:
            wait_until_live(page)
        return page

    def say(self, page: Any, seat: int, text: str) -> None:
        """``text``, said by espeak-ng into seat ``seat``'s phone: press, chunks, release,
        posted as the page's script posts them (with that phone's cookies)."""
        pcm = silence(0.3) + speak(text, "en-us", self.root) + silence(0.3)
        # the audio is posted at once, so the loop dates its start back by its length, as
        # a phone's held press: the player pressed after the referee fell silent
        self.quiet(len(pcm) / 32_000)
        base = self.server.base_url
        utterance = page.request.post(f"{base}/seat/{seat}/talk").json()["utterance"]
        chunks = [pcm[i:i + 6400] for i in range(0, len(pcm), 6400)]
        for n, chunk in enumerate(chunks):
            answer = page.request.post(f"{base}/seat/{seat}/talk/{utterance}/{n}", data=chunk,
                                       headers={"content-type": "application/octet-stream"})
            assert answer.ok, answer.text()
        assert page.request.post(f"{base}/seat/{seat}/talk/{utterance}/end?chunks={len(chunks)}").ok

    def quiet(self, seconds: float) -> None:
        """Wait until the referee's last sentence and the deaf window after it have been
        over for ``seconds``."""
        deadline = time.monotonic() + WAIT_SECONDS
        while self.loop.clock.now() < self.loop.quiet_from + seconds:
            assert time.monotonic() < deadline, "the referee never fell quiet"
            time.sleep(0.05)

    def scored(self) -> list[dict[str, Any]]:
        return [e for e in read_jsonl(self.log) if e["type"] == "guess-scored"]

    def close(self) -> None:
        self.source.close()
        self.thread.join(30)
        self.server.stop()
        self.session.log.close()
        self.speaker.synthesizer.close()


@pytest.fixture
def voice_table(tmp_path: Path) -> Iterator[Callable[..., VoiceTable]]:
    needs_espeak()
    made: list[VoiceTable] = []

    def start(engines: str = "off", **kwargs: Any) -> VoiceTable:
        table = VoiceTable(tmp_path, engines, **{"players": 4, "seed": 1, **kwargs})
        made.append(table)
        return table
    yield start
    for table in made:
        table.close()


@pytest.fixture
def phone(browser: Any) -> Iterator[Callable[..., Any]]:
    """A new phone (390 x 844; ``script=False``: a browser with JavaScript turned off)."""
    contexts: list[Any] = []

    def new(script: bool = True, width: int = 390, height: int = 844) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, java_script_enabled=script)
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        return context.new_page()
    yield new
    for context in contexts:
        context.close()


def asked(table: VoiceTable, page: Any, seat: int = 1) -> Any:
    """Seat ``seat``'s phone says the captain's guess; the light mode asks about it there."""
    from playwright.sync_api import expect

    table.say(page, seat, COMMAND)
    expect(page.locator("#region-talk .reply")).to_contain_text("Is that right?")
    question = page.locator("#region-talk form.talk-answer")
    expect(question).to_have_count(1)
    return question


def clean(page: Any, where: str) -> None:
    assert axe_findings(page) == [], where


def clean_without_script(browser: Any, page: Any, where: str) -> None:
    """axe on a page shown by a browser without JavaScript, where axe itself cannot
    run: the same document (its HTML as shown, its styles from the server) opened in a
    browser whose pages' own scripts never load."""
    html, url = page.content(), page.url
    context = browser.new_context(viewport=page.viewport_size)
    try:
        context.route("**/*.js", lambda route: route.abort())
        context.route(url, lambda route: route.fulfill(status=200, content_type="text/html", body=html))
        copy = context.new_page()
        copy.goto(url)
        assert copy.evaluate("document.body.dataset.seen === undefined")   # none of its own scripts ran
        assert axe_findings(copy) == [], where
    finally:
        context.close()


# -- 1. focus after Yes or No --------------------------------------------------------------

@pytest.mark.parametrize("how", ["keyboard yes", "tapped no"])
def test_after_yes_or_no_on_the_phone_focus_goes_to_the_referees_answer(voice_table, phone, how):
    """The question's form went away and nothing took focus: it fell to the page's body."""
    from playwright.sync_api import expect

    table = voice_table()
    captain = table.join(phone, 1)
    question = asked(table, captain)
    clean(captain, "the question on the captain's phone")
    if how == "keyboard yes":
        question.get_by_role("button", name="Yes").focus()
        captain.keyboard.press("Enter")
        expect(captain.locator("#region-talk .reply")).to_contain_text("North east south west:")
    else:
        question.get_by_role("button", name="No").click()
        expect(captain.locator("#region-talk .reply")).to_contain_text("Cancelled")
    expect(question).to_have_count(0)
    # every live update the answer brought has been drawn (the region redrawn under focus)
    wait_until(captain, f"Number(document.body.dataset.seen) >= {table.server.hub.version}")
    assert captain.evaluate(FOCUS) != "body"
    assert captain.locator("#region-talk .reply").evaluate("el => el === document.activeElement"), \
        captain.evaluate(FOCUS)
    clean(captain, "the answer on the captain's phone")


# -- 3. the question's group, 4. another seat's line while it is open, 5. its Yes ---------

def test_the_question_is_a_named_group_and_another_seats_route_shows_what_was_heard(voice_table, phone):
    """In the light mode, while seat 1 was asked, seat 3's route showed both "Heard
    nothing: hold the button ..." and "Referee: That is Ann's guess to send."; the
    question was a ``form role="group"`` (axe: aria-allowed-role)."""
    from playwright.sync_api import expect

    table = voice_table()
    captain, third = table.join(phone, 1), table.join(phone, 3)
    question = asked(table, captain)
    group = question.get_by_role("group")
    expect(group).to_have_accessible_name(
        "Answer the referee's question: Referee: Send north east south west. Is that right?")
    table.say(third, 3, COMMAND)           # once the question was said
    reply = third.locator("#region-talk .reply")
    expect(reply).to_have_text("Referee: That is Player 1's guess to send.")
    expect(third.locator("#region-talk .heard")).to_have_text(f"Heard: {COMMAND}")
    expect(third.locator("#region-talk")).not_to_contain_text("Heard nothing")
    expect(question).to_have_count(1)                      # seat 1's question is still open
    clean(third, "seat 3's refused route")
    clean(captain, "the captain's open question")


def test_another_seats_yes_is_told_whose_question_it_is(voice_table, phone):
    """Seat 2's Yes while seat 1's question was open was answered 409 "That question is
    already closed", which was not true."""
    from playwright.sync_api import expect

    table = voice_table()
    captain, second = table.join(phone, 1), table.join(phone, 2)
    asked(table, captain)
    answer = second.evaluate("""async () => {
        const r = await fetch('/seat/2/answer', {method: 'POST', credentials: 'same-origin',
          headers: {'Accept': 'application/json', 'Content-Type': 'application/x-www-form-urlencoded'},
          body: 'answer=yes'});
        return {status: r.status, body: await r.json()}; }""")
    assert answer["status"] == 409 and answer["body"]["error"] == "not-yours", answer
    assert "Player 1's phone" in answer["body"]["message"] and "closed" not in answer["body"]["message"]
    expect(captain.locator("#region-talk form.talk-answer")).to_have_count(1)   # still open, still seat 1's
    assert table.scored() == []


# -- 6. without JavaScript ----------------------------------------------------------------

def test_without_javascript_yes_shows_the_answer_and_a_late_yes_a_page(voice_table, phone, browser):
    """An in-time Yes was applied but the page shown still held the question; a late Yes
    showed raw JSON."""
    from playwright.sync_api import expect

    table = voice_table()
    speaking = table.join(phone, 1)                        # the phone that speaks (its script on)
    asked(table, speaking)
    plain = phone(script=False)
    plain.context.add_cookies(speaking.context.cookies())  # the same seat, in a browser without scripts
    plain.goto(f"{table.server.base_url}/seat/1")
    stale = phone(script=False)
    stale.context.add_cookies(speaking.context.cookies())
    stale.goto(f"{table.server.base_url}/seat/1")          # a second tab, left on the question
    expect(stale.locator("form.talk-answer")).to_have_count(1)
    clean_without_script(browser, plain, "the question without a script")
    plain.locator("form.talk-answer").get_by_role("button", name="Yes").click()
    plain.wait_for_url(f"{table.server.base_url}/seat/1")
    expect(plain.locator("form.talk-answer")).to_have_count(0)            # the page shown is after the answer
    expect(plain.locator("#region-talk .reply")).to_contain_text("North east south west:")
    assert len(table.scored()) == 1
    stale.locator("form.talk-answer").get_by_role("button", name="Yes").click()
    expect(stale.get_by_role("alert")).to_have_text("That question is already closed: nothing was sent.")
    assert "<html" in stale.content() and '"error"' not in stale.content()
    clean_without_script(browser, stale, "the late Yes's page")
    stale.get_by_role("link", name="Back to your seat's screen").click()
    stale.wait_for_url(f"{table.server.base_url}/seat/1")
    assert len(table.scored()) == 1


# -- 7. the result of an echoed command on the phone that said it --------------------------

def test_an_echoed_guess_shows_its_result_on_the_phone_that_said_it(voice_table, phone):
    """After the echo's window closed, the speaker's phone still showed only "Referee:
    Send north east south west.", not the result."""
    from playwright.sync_api import expect

    table = voice_table(engines="always")
    captain = table.join(phone, 1)
    table.say(captain, 1, COMMAND)
    reply = captain.locator("#region-talk .reply")
    expect(reply).to_contain_text("Send north east south west.", timeout=2 * WAIT_MS)   # Whisper loads first
    assert "Is that right?" not in reply.inner_text(), "heard unsure: asked, not echoed"
    expect(reply).to_contain_text("North east south west:")     # the window closed: the result
    expect(captain.locator("#region-talk .heard")).to_have_text(f"Heard: {COMMAND}")
    assert len(table.scored()) == 1
    clean(captain, "the result on the captain's phone")


# -- 10. serve --screens with no microphone ------------------------------------------------

def test_serve_with_screens_and_no_microphone_hears_the_phones(tmp_path, phone):
    """It fell back to typed lines and hid the phones' talk controls, where play --screens
    makes the phones the microphones."""
    from playwright.sync_api import expect

    needs_espeak()
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    service = subprocess.Popen(
        [sys.executable, "-m", "facilitator", "serve", "--screens", "--port", str(port), "--data-dir",
         str(tmp_path / "data"), "--input-device", "no-such-microphone", "--speech-out", str(tmp_path / "said"),
         "--second-engine", "off", "--voices", "off"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    err: list[str] = []
    pump = threading.Thread(target=lambda: err.extend(line.decode() for line in service.stderr), daemon=True)
    out = threading.Thread(target=lambda: [None for _ in service.stdout], daemon=True)
    pump.start()
    out.start()
    try:
        deadline = time.monotonic() + START_SECONDS
        while not any("table screen: open " in line for line in err):
            assert time.monotonic() < deadline and service.poll() is None, err
            time.sleep(0.1)
        table_url = next(line for line in err if "table screen: open " in line).split("open ", 1)[1].strip()
        screen = phone(width=1280, height=800)
        screen.goto(table_url)
        wait_until_live(screen)
        href = screen.locator("#region-live .seat-card:nth-child(1) a.join-link").get_attribute("href")
        seat = phone()
        seat.goto(href)
        seat.wait_for_url("**/seat/1")
        wait_until_live(seat)
        expect(seat.locator("#talk-button")).to_be_visible()                 # the phone is a microphone
        expect(seat.locator("#region-talk")).not_to_contain_text("not listening")
        assert any("the seats' phones are the microphones" in line for line in err), err
        assert not any("continuing in text mode" in line for line in err), err
        pcm = silence(0.3) + speak("let's play compass code with four players", "en-us", tmp_path) + silence(0.3)
        utterance = seat.request.post(f"http://127.0.0.1:{port}/seat/1/talk").json()["utterance"]
        chunks = [pcm[i:i + 6400] for i in range(0, len(pcm), 6400)]
        for n, chunk in enumerate(chunks):
            assert seat.request.post(f"http://127.0.0.1:{port}/seat/1/talk/{utterance}/{n}", data=chunk,
                                     headers={"content-type": "application/octet-stream"}).ok
        assert seat.request.post(f"http://127.0.0.1:{port}/seat/1/talk/{utterance}/end?chunks={len(chunks)}").ok
        expect(seat.locator("#region-talk .heard")).to_contain_text("compass code")
        clean(seat, "a phone of serve --screens with no microphone")
    finally:
        service.terminate()
        try:
            service.wait(30)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()
        pump.join(10)
        out.join(10)
        for pipe in (service.stdin, service.stdout, service.stderr):
            if pipe is not None:
                pipe.close()


# -- 2. Clover's committer places by touch without scrolling between a card and a slot ----

def clover_committer(start_server, phone):
    server = start_server("clover", players=4, seed=11, options={"extra": 2})
    for seat in (1, 2, 3, 4):
        for zone, clue in (("top", "serendipity"), ("right", "melancholy"), ("bottom", "nostalgia"),
                           ("left", "wanderlust")):
            assert server.hub.submit(f"clue {seat} {zone} {clue}").accepted
    committer = server.hub.session.state.committer()
    page = phone()
    page.goto(f"{server.base_url}/join/{server.seats.seats[committer].token}")
    page.wait_for_url(f"**/seat/{committer}")
    wait_until_live(page)
    return server, page


PLACES = """() => { const top = (el) => el.getBoundingClientRect().top + scrollY;
  const bottom = (el) => el.getBoundingClientRect().bottom + scrollY;
  const slots = Array.from(document.querySelectorAll('.clover .slot-button'));
  const cards = Array.from(document.querySelectorAll('.clover .pool .pick'));
  return { slotsTop: Math.min(...slots.map(top)), slotsBottom: Math.max(...slots.map(bottom)),
           cardsTop: Math.min(...cards.map(top)), cardsBottom: Math.max(...cards.map(bottom)),
           commit: top(document.getElementById('do-commit')), place: top(document.getElementById('place-card')),
           own: top(document.querySelector('.myboard')), height: innerHeight,
           wide: document.scrollingElement.scrollWidth - innerWidth }; }"""


def test_clovers_committer_has_every_card_and_slot_in_one_view_and_commit_beside_them(start_server, phone):
    """Commit sat about 3,100 px down, the Place pickers at 2,530 px, the pool at
    906-1,663 px: placing by touch meant scrolling between a pool card and a slot."""
    from playwright.sync_api import expect

    server, page = clover_committer(start_server, phone)
    at = page.evaluate(PLACES)
    # a card of the pool and a slot of the board fit in one screenful together
    assert max(at["cardsBottom"], at["slotsBottom"]) - min(at["cardsTop"], at["slotsTop"]) <= at["height"], at
    # commit and the pickers come straight after the board and its cards, before the seat's own board
    assert at["cardsBottom"] < at["commit"] < at["cardsBottom"] + at["height"] / 2, at
    assert at["commit"] < at["place"] < at["own"], at
    assert at["wide"] <= 1, at                                # the cards scroll sideways, the page does not
    clean(page, "the committer's phone")
    # the last card of the pool, placed by touch: scrolled into its row, tapped, then a slot
    cards = page.locator(".clover .pool .pick")
    last = cards.nth(cards.count() - 1)
    number = last.get_attribute("data-card")
    last.scroll_into_view_if_needed()
    scrolled = page.evaluate("scrollY")
    last.click()
    page.locator("#slot-bottom-right").click()
    expect(page.locator("#slot-bottom-right .num")).to_have_text(number)
    assert abs(page.evaluate("scrollY") - scrolled) < at["height"], "the page jumped away from the cards"
    assert server.hub.session.state.layout.placed()["bottom-right"] == int(number)


# -- 9. Clover's second attempt --------------------------------------------------------------

def test_one_right_card_stays_locked_in_the_screens_words(start_server, phone):
    """"1 card is right and stay locked." (stays)."""
    from playwright.sync_api import expect

    from facilitator.games.clover.board import SLOTS

    server, page = clover_committer(start_server, phone)
    state = server.hub.session.state
    truth = state.boards[state.spectator]
    layout = state.layout
    first = SLOTS[0]
    wanted = tuple(truth[first])
    right = next(k for k in range(1, len(layout.cards) + 1)
                 if sorted(layout.words(k)) == sorted(wanted))
    others = [k for k in range(1, len(layout.cards) + 1) if k != right]
    assert server.hub.submit(f"place {right} {first.value}").accepted
    for _ in range(4):
        if tuple(server.hub.session.state.layout.words(right)) == wanted:
            break
        assert server.hub.submit(f"turn {right}").accepted
    # the other three slots get cards that are wrong there (a card of the board turned
    # from its face, or an extra)
    for slot, card in zip(SLOTS[1:], others):
        assert server.hub.submit(f"place {card} {slot.value}").accepted
        if tuple(server.hub.session.state.layout.words(card)) == tuple(truth[slot]):
            assert server.hub.submit(f"turn {card}").accepted
    page.reload()
    wait_until_live(page)
    page.click("#do-commit")
    page.locator(".ask button.yes").click()
    expect(page.locator("#region-said")).to_contain_text("1 card is right and stays locked.")
    expect(page.locator("#region-said")).not_to_contain_text("and stay locked")


# -- 8. Two Windows: facts never break inside a word; a practice says it is one -------------

BROKEN = r"""() => Array.from(document.querySelectorAll('.side-by-side li, .facts li')).flatMap((el) => {
  const out = []; const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) for (const m of node.data.matchAll(/\S+/g)) {
    const r = document.createRange(); r.setStart(node, m.index); r.setEnd(node, m.index + m[0].length);
    if (new Set(Array.from(r.getClientRects(), (x) => Math.round(x.top))).size > 1) out.push(m[0]); }
  return out; })"""


def test_two_windows_facts_never_break_inside_a_word_and_a_practice_ends_as_one(start_server, phone):
    """"NOTCHE/D" at 390 px ("ROUN/D", "SURFA/CE" at 320 px); at a practice's end every
    screen said "Game over: 0 of 2 points." while the voice said "Practice over", the
    score panel "Points 0 / 2", and the practice report "Round 1, packet 0"."""
    from playwright.sync_api import expect

    from facilitator.screens.seats import TABLE_COOKIE, cookie_name

    server = start_server("two-windows", players=3, seed=5, options={"practice": True})
    holders = {n: server.seats.claim(server.seats.seats[n].token)[1] for n in server.seats.seats}
    for line in ("a sends FORM ROUND", "b sends EDGE NOTCHED", "more"):
        assert server.hub.submit(line).accepted, line

    def open_seat(seat: int, width: int) -> Any:
        page = phone(width=width)
        page.context.add_cookies([{"name": cookie_name(seat), "value": holders[seat], "url": server.base_url}])
        page.goto(f"{server.base_url}/seat/{seat}")
        wait_until_live(page)
        return page
    for width in (390, 320):
        for seat in (1, 2, 3):
            page = open_seat(seat, width)
            expect(page.locator(".side-by-side li").first).to_be_visible()
            assert page.evaluate(BROKEN) == [], (width, seat)
            assert page.evaluate("document.scrollingElement.scrollWidth - innerWidth") <= 1
    reader = open_seat(2, 390)
    expect(reader.locator("#region-messages")).to_contain_text("Practice round, report A:")
    expect(reader.locator("#region-messages")).not_to_contain_text("packet 0")
    assert server.hub.submit("final Acorn").accepted
    table = phone(width=1280, height=800)
    table.context.add_cookies([{"name": TABLE_COOKIE, "value": server.seats.table_key, "url": server.base_url}])
    table.goto(f"{server.base_url}/table")
    wait_until_live(table)
    for page in (table, reader, open_seat(1, 390)):
        wait_until(page, "!!document.querySelector('.result')")
        expect(page.locator("body")).to_contain_text("The practice is over.")   # the result's heading
        expect(page.locator(".result").first).to_contain_text("Practice over: 0 of 2 points.")
        expect(page.locator("body")).not_to_contain_text("Game over")
        clean(page, "a practice's end")
    expect(table.locator(".scores")).to_contain_text("Practice points")
    expect(table.locator(".scores dt")).not_to_have_text(re.compile("^Points$"))
