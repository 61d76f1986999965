"""A phone held to talk, heard by the real listen loop (issue 34), over https as on the LAN
(the LAN service listening on loopback, its phones told ``table.test``: see ``lan_support``).

The whole path with nothing faked but the microphone and the speaker: chromium's fake
capture device plays espeak-ng saying "send north east south west" and, six seconds
later, "yes"; the page records it through its AudioWorklet and streams it over TLS
(the generated certificate, pinned by its key's hash in chromium) to the screens;
the hub hands it to the ``ListenLoop`` (attached as voice play attaches it), which
decodes it with pocketsphinx (``make_recognizer(second_engine="off")``), asks, hears
the "yes", applies the guess and logs it; the phone shows what was heard and what
the referee said.  The table's own microphone is a silent recording played in real
time.  A seat that may not send is refused in words; hostile requests are refused
with their reasons and reach neither the loop nor the log."""

from __future__ import annotations

import io
import json
import shutil
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from screens.lan_support import CHROMIUM_RULE, PHONES_HOST, lan_settings
from screens.screen_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_MS,
    accessibility_problems,
    closed_clean,
)
from screens.test_browser_talk import COMMAND, spoken_wav
from screens.test_phone_talk import declared_too_large

from facilitator.screens import ScreenServer
from facilitator.screens import certificate as certs
from facilitator.screens.seats import cookie_name
from facilitator.session import Session
from facilitator.table_data import TableData

pytestmark = pytest.mark.slow

#: when, in the fake microphone's recording, the "yes" is said (seconds from its start)
YES_AT = 1.0 + 1.73 + 6.0


class Voice:
    """The speaker: records what is said and returns at once (barge-in has nothing to stop)."""

    def __init__(self) -> None:
        self.spoken: list[str] = []

    def speak(self, text: str) -> float:
        self.spoken.append(text)
        return 0.0

    def earcon(self, name: str) -> None:
        return None


def mixed_wav(root: Path) -> Path:
    """1 s of silence, the command, 6 s, "yes", 6 s: what the captain's phone hears."""
    import wave

    command = spoken_wav(root / "command.wav", COMMAND, 1.0, 6.0)
    yes = spoken_wav(root / "yes.wav", "yes", 0.0, 6.0)
    with wave.open(str(command)) as a, wave.open(str(yes)) as b:
        assert a.getframerate() == b.getframerate()
        rate, frames = a.getframerate(), a.readframes(a.getnframes()) + b.readframes(b.getnframes())
    path = root / "command-then-yes.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)
    return path


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    if not CHROMIUM.exists() or shutil.which("espeak-ng") is None:
        pytest.fail("this test needs /usr/bin/chromium and espeak-ng (.ci/setup installs both)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    root = tmp_path_factory.mktemp("loop-talk")
    data = root / "data"
    cert = certs.ensure(data, PHONES_HOST)        # made ahead, so chromium can be told its key
    wav = mixed_wav(root)
    args = [*CHROMIUM_ARGS, "--use-fake-device-for-media-stream", f"--use-file-for-fake-audio-capture={wav}",
            f"--ignore-certificate-errors-spki-list={cert.spki_sha256}", CHROMIUM_RULE]
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)
        try:
            yield {"browser": launched, "data": data, "root": root}
        finally:
            launched.close()


@pytest.fixture
def table(browser: dict[str, Any], tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """Compass Code for four (machine keeper, seed 1: seat 1 captains leg 1) with screens
    on the LAN and the real listen loop attached, its table microphone a silent
    recording in real time."""
    from facilitator.speech.audio.devices import WavSource, write_wav
    from facilitator.speech.audio.endpoint import Endpointer
    from facilitator.speech.base import VoiceSettings
    from facilitator.speech.engines.recognize import make_recognizer
    from facilitator.speech.loop.listen import ListenLoop, LoopSettings, StreamCaptions

    log = tmp_path / "game.jsonl"
    session, opening = Session.start("compass-code", players=4, seed=1, log_path=log,
                                     table=TableData(browser["data"]))
    server = ScreenServer(session, opening, lan_settings(), data=browser["data"]).start()
    voice = Voice()
    captions = io.StringIO()
    loop = ListenLoop(server.hub.shared, make_recognizer(second_engine="off"), voice,  # type: ignore[arg-type]
                      VoiceSettings(), StreamCaptions(captions), LoopSettings(), wall_clock=time.monotonic)
    server.hub.shared.attach_loop(loop)          # what voice play does with --screens
    assert server.hub.listener is loop
    silence = tmp_path / "table-mic.wav"
    write_wav(silence, bytes(16_000 * 2 * 240))
    source = WavSource(silence, realtime=True)
    running = threading.Thread(target=loop.run_audio, args=(source, Endpointer(complete=loop.complete)),
                               name="listen-loop", daemon=True)
    running.start()
    contexts: list[Any] = []

    def phone(seat: int) -> Any:
        context = browser["browser"].new_context(viewport={"width": 390, "height": 844})
        context.set_default_timeout(WAIT_MS)
        context.grant_permissions(["microphone"])
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{server.base_url}/join/{server.seats.seats[seat].token}")
        page.wait_for_url(f"https://{PHONES_HOST}:{server.port}/seat/{seat}")
        assert page.evaluate("isSecureContext")
        return page
    try:
        yield {"server": server, "loop": loop, "voice": voice, "log": log, "phone": phone}
    finally:
        try:
            closed_clean(contexts, request)
        finally:
            source.close()
            running.join(30)
            server.stop()
            session.log.close()


def events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def hold(page: Any, seconds: float) -> float:
    """Hold the talk button down for ``seconds``; when it was pressed (monotonic)."""
    from playwright.sync_api import expect

    box = page.locator("#talk-button").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    pressed = time.monotonic()
    expect(page.locator("#talk-button")).to_have_attribute("aria-pressed", "true")
    time.sleep(max(0.0, pressed + seconds - time.monotonic()))
    page.mouse.up()
    return pressed


def test_a_phone_talks_to_the_real_listen_loop_and_the_game_moves(table):
    from playwright.sync_api import expect

    server, log = table["server"], table["log"]
    names = server.hub.session.state.names
    # seat 2 may not send a guess now (seat 1 captains): refused in words, on its phone too
    other = table["phone"](2)
    hold(other, 4.0)
    expect(other.locator("#region-talk .heard")).to_have_text(f"Heard: {COMMAND}")
    expect(other.locator("#region-talk .reply")).to_have_text(f"Referee: That is {names[0]}'s guess to send.")
    rejected = [e for e in events(log) if e["type"] == "command-rejected"]
    assert len(rejected) == 1 and rejected[0]["reason"] == "another seat's phone"
    assert not any(e["type"] == "guess-scored" for e in events(log))
    # the captain's phone: the command, then the referee's question, then "yes"
    captain = table["phone"](1)
    pressed = hold(captain, 4.0)
    expect(captain.locator("#region-talk .heard")).to_have_text(f"Heard: {COMMAND}")
    expect(captain.locator("#region-talk .reply")).to_contain_text("Is that right?")
    assert not any(e["type"] == "guess-scored" for e in events(log))   # asked, not yet applied
    # the fake microphone began with the first press: hold across the "yes" it says then
    time.sleep(max(0.0, pressed + YES_AT - 1.7 - time.monotonic()))
    hold(captain, 3.5)
    expect(captain.locator("#region-talk .heard")).to_have_text("Heard: yes")
    expect(captain.locator("#region-talk .reply")).to_contain_text("North east south west:")
    scored = [e for e in events(log) if e["type"] == "guess-scored"]
    assert len(scored) == 1 and scored[0]["route"] == "NESW" and scored[0]["guess"] == 1
    assert any("North east south west:" in line for line in table["voice"].spoken)   # said aloud too
    expect(captain.locator("#region-said")).to_contain_text("North east south west:")  # and shown
    # the other seat's phone still shows its own hearing, not the captain's
    expect(other.locator("#region-talk .reply")).to_have_text(f"Referee: That is {names[0]}'s guess to send.")


def test_hostile_talk_requests_over_https_reach_neither_the_loop_nor_the_log(table):
    server, loop, log = table["server"], table["loop"], table["log"]
    assert server.certificate is not None
    trusted = ssl.create_default_context(cafile=str(server.certificate.cert_path))
    named = ssl.create_default_context(cafile=str(server.certificate.cert_path))
    trusted.check_hostname = False              # the devices here open 127.0.0.1; ``named`` checks the name
    base = f"https://127.0.0.1:{server.port}"
    before, heard = len(events(log)), loop.heard_segments
    octets = {"content-type": "application/octet-stream"}
    own = {"origin": base}
    with httpx.Client(base_url=base, verify=trusted, timeout=20) as stranger, \
            httpx.Client(base_url=base, verify=trusted, timeout=20, headers=own) as holder:
        holder.get(f"/join/{server.seats.seats[3].token}")

        def refused(answer: httpx.Response, status: int, error: str) -> None:
            assert answer.status_code == status, answer.text
            assert answer.json()["error"] == error and answer.json()["message"]

        def press() -> str:
            answer = holder.post("/seat/3/talk")
            assert answer.status_code == 200, answer.text
            return str(answer.json()["utterance"])

        refused(stranger.post("/seat/3/talk", headers=own), 403, "seat")               # no cookie
        refused(holder.post("/seat/3/talk", headers={"origin": "https://evil.example"}), 403, "foreign-origin")
        refused(holder.post("/seat/3/talk", headers={"origin": f"http://127.0.0.1:{server.port}"}),
                403, "foreign-origin")                                                  # not our scheme
        utterance = press()                                                             # oversized
        cookie = f"{cookie_name(3)}={holder.cookies[cookie_name(3)]}"
        with socket.create_connection(("127.0.0.1", server.port), timeout=20) as raw, \
                named.wrap_socket(raw, server_hostname=PHONES_HOST) as tls:
            status, body = declared_too_large(tls, f"{PHONES_HOST}:{server.port}", f"/seat/3/talk/{utterance}/0",
                                              cookie, scheme="https")
        assert status.startswith("HTTP/1.1 413") and body["error"] == "too-large" and body["message"]
        assert server.screens.talk.open_seconds(3) == 0.0                             # none of it kept
        utterance = press()
        refused(holder.post(f"/seat/3/talk/{utterance}/0", content=b"\0" * 3, headers=octets), 400, "odd-bytes")
        utterance = press()
        refused(holder.post(f"/seat/3/talk/{utterance}/4", content=b"\0" * 64, headers=octets), 409, "out-of-order")
        utterance = press()
        refused(holder.post(f"/seat/3/talk/{utterance}/0", content=b"\0" * 64, headers={"content-type": "text/plain"}),
                415, "content-type")
        refused(holder.post(f"/seat/3/talk/{utterance}/end"), 409, "finished")
        utterance = press()                                                             # overlong: 10.5 s
        for n in range(20):
            assert holder.post(f"/seat/3/talk/{utterance}/{n}", content=b"\0\1" * 8000, headers=octets).status_code == 200
        refused(holder.post(f"/seat/3/talk/{utterance}/20", content=b"\0\1" * 8000, headers=octets), 413, "too-long")
        refused(holder.post(f"/seat/3/talk/{utterance}/end"), 409, "finished")
    time.sleep(1.0)                                     # a few of the loop's ticks
    assert loop.heard_segments == heard                 # the loop heard nothing of it
    assert len(events(log)) == before                   # and nothing was logged
    assert server.hub.heard_for(3) is None


def _said_the_command(page: Any) -> Any:
    """Hold the phone's talk button across the command; the referee's question comes back."""
    from playwright.sync_api import expect

    hold(page, 4.0)
    expect(page.locator("#region-talk .heard")).to_have_text(f"Heard: {COMMAND}")
    expect(page.locator("#region-talk .reply")).to_contain_text("Is that right?")
    return page.locator("#region-talk form.talk-answer")


def test_the_question_shows_yes_and_no_on_the_phone_that_spoke_and_a_keyed_yes_answers_it(table):
    from playwright.sync_api import expect

    log = table["log"]
    other = table["phone"](2)
    captain = table["phone"](1)
    question = _said_the_command(captain)
    # the question, with Yes and No to tap: a labelled group, neither one chosen for the player
    group = question.get_by_role("group")              # a fieldset: a form may not be a group
    expect(group).to_have_accessible_name(
        "Answer the referee's question: Referee: Send north east south west. Is that right?")
    yes, no = question.get_by_role("button", name="Yes"), question.get_by_role("button", name="No")
    expect(yes).to_be_visible()
    expect(no).to_be_visible()
    expect(yes).not_to_be_focused()
    expect(no).not_to_be_focused()
    assert accessibility_problems(captain) == []
    # only the seat that spoke is asked
    expect(other.locator("#region-talk form.talk-answer")).to_have_count(0)
    assert not any(e["type"] == "guess-scored" for e in events(log))
    # by keyboard: Tab reaches the buttons from the talk control, Enter taps
    captain.locator("#talk-button").focus()
    for _ in range(6):
        captain.keyboard.press("Tab")
        if yes.evaluate("b => b === document.activeElement"):
            break
    expect(yes).to_be_focused()
    captain.keyboard.press("Enter")
    expect(captain.locator("#region-talk .reply")).to_contain_text("North east south west:")
    expect(question).to_have_count(0)                      # the question closed: the buttons went
    scored = [e for e in events(log) if e["type"] == "guess-scored"]
    assert len(scored) == 1 and scored[0]["route"] == "NESW"
    assert any("North east south west:" in line for line in table["voice"].spoken)


def test_a_tapped_no_cancels_the_question_and_a_closed_question_takes_no_tap(table):
    from playwright.sync_api import expect

    server, log = table["server"], table["log"]
    captain = table["phone"](1)
    question = _said_the_command(captain)
    question.get_by_role("button", name="No").click()
    expect(captain.locator("#region-talk .reply")).to_contain_text("Cancelled")
    expect(question).to_have_count(0)
    assert not any(e["type"] == "guess-scored" for e in events(log))
    # a tap that comes after the question closed changes nothing, and says why
    answer = captain.evaluate("""async () => {
        const r = await fetch('/seat/1/answer', {method: 'POST', credentials: 'same-origin',
          headers: {'Accept': 'application/json', 'Content-Type': 'application/x-www-form-urlencoded'},
          body: 'answer=yes'});
        return {status: r.status, body: await r.json()}; }""")
    assert answer["status"] == 409 and answer["body"]["error"] == "no-question"
    assert not any(e["type"] == "guess-scored" for e in events(log))
    assert server.hub.asking_seat() is None
