"""The talk control in Debian's chromium (issue 34): a phone held to talk while its
microphone says a command.

chromium's fake capture device plays a WAV as the microphone
(``--use-fake-device-for-media-stream --use-file-for-fake-audio-capture``): espeak-ng
says "send north east south west" after a second of silence.  The page records it
through its AudioWorklet (resampled to 16 kHz), streams it to the referee, and the
listener here decodes what arrived with pocketsphinx under the game's grammar and
reports back through ``Hub.phone_heard``, so the phone shows what was heard.  (The
listen loop's own side is tested end to end in ``test_browser_talk_loop.py``.)"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
import wave
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from screens.lan_support import PHONES_HOST, lan_settings
from screens.screen_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_MS,
    accessibility_problems,
    closed_clean,
    screen_servers,
    wait_until_live,
)

from facilitator.screens import ScreenServer, ScreenSettings
from facilitator.screens import certificate as certs

pytestmark = pytest.mark.slow

COMMAND = "send north east south west"
#: a host name that is not loopback: a page opened at it over http is not a secure context
PLAIN_NAME = "phone.test"


def spoken_wav(path: Path, text: str, lead_seconds: float = 1.0, tail_seconds: float = 3.0) -> Path:
    """``text`` said by espeak-ng, with silence before and after (the fake device loops it)."""
    said = path.with_suffix(".said.wav")
    subprocess.run(["espeak-ng", "-w", str(said), text], check=True, capture_output=True)
    with wave.open(str(said)) as w:
        rate, pcm = w.getframerate(), w.readframes(w.getnframes())
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"\0\0" * int(rate * lead_seconds) + pcm + b"\0\0" * int(rate * tail_seconds))
    return path


class DecodingListener:
    """Stands in for the listen loop: decodes each utterance with pocketsphinx under the
    whole game's grammar, off the caller's thread, and reports what it heard."""

    def __init__(self, server: ScreenServer, game: str) -> None:
        from facilitator.grammar import load_grammar
        from facilitator.speech.engines.grammar_build import recognition_grammar
        from facilitator.speech.engines.recognize import make_recognizer

        self.server = server
        self.recognizer = make_recognizer(second_engine="off")
        self.grammar = recognition_grammar(load_grammar(game))
        self.presses: list[int] = []
        self.utterances: list[tuple[int, bytes]] = []
        self.lock = threading.Lock()

    def phone_press(self, seat: int) -> None:
        with self.lock:
            self.presses.append(seat)

    def asking_seat(self) -> int | None:
        return None                     # this listener never asks: no Yes/No to tap

    def seat_answer(self, seat: int, yes: bool) -> None:
        raise AssertionError("no question was open to answer")

    def phone_utterance(self, seat: int, pcm: bytes) -> None:
        with self.lock:
            self.utterances.append((seat, pcm))

        def decode() -> None:
            hyp = self.recognizer.decode(pcm, self.grammar)
            self.server.hub.phone_heard(seat, hyp.text if hyp is not None and hyp.text else None, [])
        threading.Thread(target=decode, daemon=True).start()


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The spoken WAV, a LAN certificate made ahead (chromium is told its key's hash),
    and one chromium whose microphone says the command."""
    if not CHROMIUM.exists() or shutil.which("espeak-ng") is None:
        pytest.fail("the talk browser tests need /usr/bin/chromium and espeak-ng (.ci/setup installs both)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    root = tmp_path_factory.mktemp("talk")
    wav = spoken_wav(root / "command.wav", COMMAND)
    data = root / "data"
    cert = certs.ensure(data, PHONES_HOST)
    # both names resolve to loopback for this chromium, and nothing else is resolved for them
    args = [*CHROMIUM_ARGS, "--use-fake-device-for-media-stream", f"--use-file-for-fake-audio-capture={wav}",
            f"--host-resolver-rules=MAP {PLAIN_NAME} 127.0.0.1, MAP {PHONES_HOST} 127.0.0.1",
            f"--ignore-certificate-errors-spki-list={cert.spki_sha256}"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=args)
        try:
            yield {"browser": browser, "playwright": p, "data": data, "cert": cert, "root": root}
        finally:
            browser.close()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., ScreenServer]]:
    with screen_servers(tmp_path) as serve_game:
        def start(settings: ScreenSettings | None = None, data: Path | None = None) -> ScreenServer:
            return serve_game("compass-code", settings or ScreenSettings(port=0), data, players=4, seed=1)
        yield start


@pytest.fixture
def phone(kit: dict[str, Any], request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []

    def open_seat(server: ScreenServer, seat: int, *, microphone: bool = True, base: str | None = None) -> Any:
        """A new phone (its own cookies and microphone) holding ``seat``."""
        context = kit["browser"].new_context(viewport={"width": 390, "height": 844})
        context.set_default_timeout(WAIT_MS)
        if microphone:
            context.grant_permissions(["microphone"])
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{base or server.base_url}/join/{server.seats.seats[seat].token}")
        page.wait_for_url(f"**/seat/{seat}")
        return page
    yield open_seat
    closed_clean(contexts, request)


def hold(page: Any, seconds: float) -> None:
    """Touch-and-hold the talk button for ``seconds`` (a pointer held down on it)."""
    box = page.locator("#talk-button").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    from playwright.sync_api import expect

    expect(page.locator("#talk-button")).to_have_attribute("aria-pressed", "true")
    time.sleep(seconds)
    page.mouse.up()


def heard_on(page: Any, text: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#region-talk .heard")).to_have_text(f"Heard: {text}")


def test_a_phone_held_to_talk_is_heard_and_shows_what_was_heard(serve, phone):
    from playwright.sync_api import expect

    server = serve()
    listener = DecodingListener(server, "compass-code")
    server.hub.listener = listener
    page = phone(server, 1)
    button = page.locator("#talk-button")
    expect(button).to_be_visible()
    expect(button).to_have_text("Hold to talk")
    assert accessibility_problems(page) == []
    hold(page, 4.0)
    expect(button).to_have_attribute("aria-pressed", "false")
    heard_on(page, COMMAND)
    assert listener.presses == [1]
    (seat, pcm), = listener.utterances
    assert seat == 1 and 3.5 <= len(pcm) / 32_000 <= 4.6      # 16 kHz, 16-bit: what was held, no more
    assert page.evaluate("isSecureContext")                    # loopback is a secure context


def test_a_tap_starts_and_a_second_tap_sends_for_players_who_cannot_hold(serve, phone):
    from playwright.sync_api import expect

    server = serve()
    listener = DecodingListener(server, "compass-code")
    server.hub.listener = listener
    page = phone(server, 2)
    button = page.locator("#talk-button")
    button.click()                                             # a short tap
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(button).to_have_text("Listening… tap again to send.")
    time.sleep(4.0)
    assert listener.utterances == []                           # still listening: nothing sent yet
    button.click()
    expect(button).to_have_attribute("aria-pressed", "false")
    heard_on(page, COMMAND)
    assert [seat for seat, _ in listener.utterances] == [2]


def test_the_keyboard_talks_too(serve, phone):
    from playwright.sync_api import expect

    server = serve()
    listener = DecodingListener(server, "compass-code")
    server.hub.listener = listener
    page = phone(server, 3)
    button = page.locator("#talk-button")
    button.focus()
    page.keyboard.press("Enter")                               # Enter taps on
    expect(button).to_have_attribute("aria-pressed", "true")
    time.sleep(4.0)
    page.keyboard.press("Enter")                               # and off: sent
    expect(button).to_have_attribute("aria-pressed", "false")
    heard_on(page, COMMAND)
    other = phone(server, 4)
    talk = other.locator("#talk-button")
    talk.focus()
    other.keyboard.down(" ")                                   # Space held down: held to talk
    expect(talk).to_have_attribute("aria-pressed", "true")
    time.sleep(4.0)
    other.keyboard.up(" ")
    expect(talk).to_have_attribute("aria-pressed", "false")
    heard_on(other, COMMAND)
    assert sorted(seat for seat, _ in listener.utterances) == [3, 4]


def test_a_talk_held_past_ten_seconds_is_cut_and_nothing_is_sent(serve, phone):
    from playwright.sync_api import expect

    server = serve()
    listener = DecodingListener(server, "compass-code")
    server.hub.listener = listener
    page = phone(server, 1)
    box = page.locator("#talk-button").bounding_box()
    page.mouse.move(box["x"] + 5, box["y"] + 5)
    page.mouse.down()
    expect(page.locator("#talk-state")).to_contain_text("Cut off at 10 seconds: nothing was sent",
                                                        timeout=20_000)
    expect(page.locator("#talk-button")).to_have_attribute("aria-pressed", "false")
    page.mouse.up()
    time.sleep(0.5)
    assert listener.presses == [1] and listener.utterances == []


def test_without_a_microphone_the_phone_says_why_and_its_buttons_still_work(serve, phone, kit):
    from playwright.sync_api import expect

    server = serve()
    server.screens.allowed_hosts = {*(server.screens.allowed_hosts or set()), PLAIN_NAME}
    listener = DecodingListener(server, "compass-code")
    server.hub.listener = listener
    # permission refused
    denied = phone(server, 1, microphone=False)
    denied.locator("#talk-button").click()
    expect(denied.locator("#talk-state")).to_have_text(
        "The microphone is blocked for this page: allow it in the browser's site settings to talk. "
        "The buttons still work.")
    # plain http at a name that is not loopback: no secure context, so no microphone at all
    insecure = phone(server, 2, base=f"http://{PLAIN_NAME}:{server.port}")
    assert insecure.evaluate("isSecureContext") is False
    expect(insecure.locator("#talk-state")).to_contain_text("The microphone needs a secure page")
    expect(insecure.locator("#talk-button")).to_have_attribute("aria-disabled", "true")
    # no capture device at all (a second chromium, without the fake one)
    bare = kit["playwright"].chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    try:
        context = bare.new_context(viewport={"width": 390, "height": 844})
        context.set_default_timeout(WAIT_MS)
        context.grant_permissions(["microphone"])
        none = context.new_page()
        none.goto(f"{server.base_url}/join/{server.seats.seats[3].token}")
        none.wait_for_url("**/seat/3")
        none.locator("#talk-button").click()
        expect(none.locator("#talk-state")).to_have_text(
            "This device has no microphone the browser can use. The buttons still work.")
    finally:
        bare.close()
    assert listener.presses == [] and listener.utterances == []   # no press reached the referee
    # the buttons still work: a question from the phone without a microphone is answered
    for page in (denied, insecure):
        fold = page.locator("details", has=page.locator("#do-status"))
        if fold.count() and not fold.first.evaluate("d => d.open"):
            fold.first.locator("summary").click()
        page.locator("#do-status").click()
        expect(page.locator("form.control", has=page.locator("#do-status")).locator("[data-feedback]")
               ).not_to_be_empty()


def test_in_text_play_the_talk_control_says_nobody_listens_and_follows_when_a_loop_does(serve, phone):
    from playwright.sync_api import expect

    server = serve()
    page = phone(server, 1)
    expect(page.locator("#region-talk")).to_have_text(
        "The referee is not listening for voices at this table: use the buttons.")
    expect(page.locator("#talk-button")).to_be_hidden()
    listener = DecodingListener(server, "compass-code")
    server.hub.listener = listener                              # a listen loop takes the phones
    expect(page.locator("#talk-button")).to_be_visible()
    expect(page.locator("#region-talk")).to_have_text("")
    hold(page, 4.0)
    heard_on(page, COMMAND)


def test_over_https_on_the_lan_with_the_generated_certificate(serve, phone, kit):
    """The LAN service (on loopback, its phones told ``table.test``): a page at that name
    is a secure context through TLS alone, and the phone talks."""
    from playwright.sync_api import expect

    server = serve(lan_settings(), data=kit["data"])
    assert server.certificate is not None
    assert server.certificate.spki_sha256 == kit["cert"].spki_sha256   # the one chromium was told of
    listener = DecodingListener(server, "compass-code")
    server.hub.listener = listener
    page = phone(server, 1)
    assert page.url.startswith(f"https://{PHONES_HOST}:{server.port}/seat/1")
    assert page.evaluate("isSecureContext")
    hold(page, 4.0)
    heard_on(page, COMMAND)
    assert [seat for seat, _ in listener.utterances] == [1]
    expect(page.locator("#talk-state")).not_to_contain_text("Refused")


def test_a_tap_that_cannot_be_sent_says_connection_lost_until_the_service_answers(serve, phone):
    """When new connections failed while the page's live stream stayed open (one guest
    holding the LAN service's connections), a tap said "Not sent: the service cannot be
    reached." and the page showed no "Connection lost": now it does, for a talk and for a
    button alike, and says "Connected again." once the service answers."""
    from playwright.sync_api import expect

    server = serve()
    listener = DecodingListener(server, "compass-code")
    server.hub.listener = listener
    page = phone(server, 1)
    notice = page.locator("#connection")
    button = page.locator("#talk-button")
    expect(button).to_be_visible()
    expect(notice).to_have_text("")
    # every new request fails; the live stream already open is left alone
    page.route(lambda url: not url.endswith("/events"), lambda route: route.abort("connectionclosed"))
    button.click()                                             # a tap: the press cannot be sent
    expect(page.locator("#talk-state")).to_have_text("Not sent: the service cannot be reached.")
    expect(notice).to_have_text("Connection lost. Trying again…")
    time.sleep(3.0)                                            # still unreachable: still said
    expect(notice).to_have_text("Connection lost. Trying again…")
    page.unroute_all()
    expect(notice).to_have_text("Connected again.")
    assert listener.presses == []
    # a button's tap, the same
    page.route(lambda url: not url.endswith("/events"), lambda route: route.abort("connectionclosed"))
    fold = page.locator("details", has=page.locator("#do-status"))
    if fold.count() and not fold.first.evaluate("d => d.open"):
        fold.first.locator("summary").click()
    page.locator("#do-status").click()
    expect(notice).to_have_text("Connection lost. Trying again…")
    page.unroute_all()
    expect(notice).to_have_text("Connected again.")


def test_a_seat_opened_in_more_windows_than_it_keeps_tells_the_oldest(serve, phone):
    """Live updates per seat are capped: the newest pages of a seat follow the game, and
    the oldest says it no longer does (a reload takes them back)."""
    from playwright.sync_api import expect

    from facilitator.screens.app import STREAMS_PER_SEAT

    server = serve()
    first = phone(server, 2)
    expect(first.locator("#connection")).to_have_text("")
    later = []
    for _ in range(STREAMS_PER_SEAT):
        page = first.context.new_page()
        page.goto(f"{server.base_url}/seat/2")
        wait_until_live(page)   # its live updates came
        later.append(page)
    expect(first.locator("#connection")).to_have_text(
        "This seat is open in a newer window: this one no longer follows the game. Reload it to follow here.")
    time.sleep(3.0)                                            # it does not reconnect and replace another
    for page in later:
        expect(page.locator("#connection")).to_have_text("")
    first.reload()
    expect(first.locator("#connection")).to_have_text("")
    expect(later[0].locator("#connection")).to_contain_text("newer window")
