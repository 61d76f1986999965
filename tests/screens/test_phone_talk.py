"""A seat's phone as a microphone (issue 34): the talk routes against a real server.

The listen loop's side is a small recording listener here (the boundary is
``screens.talk.PhoneListener``); the browser tests drive the page itself.  Every
refusal answers JSON with its reason and its words, and hands the listener nothing."""

from __future__ import annotations

import json
import re
import socket
import stat
import threading
import wave
from urllib.parse import quote

import httpx
import pytest

from facilitator.screens import talk as talk_mod
from facilitator.screens.guard import MAX_BODY_BYTES
from facilitator.screens.seats import cookie_name
from facilitator.screens.talk import MAX_CHUNK_BYTES, MAX_UTTERANCE_BYTES, Talk, TalkRefused

OCTETS = {"content-type": "application/octet-stream"}


class Recording:
    """A listener that keeps what it was handed (thread-safe, returns at once)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.presses: list[int] = []
        self.utterances: list[tuple[int, bytes]] = []

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


def tone(chunk: int, samples: int = 3200) -> bytes:
    """A recognisable 200 ms chunk: every sample holds the chunk's number."""
    return int(chunk + 1).to_bytes(2, "little", signed=True) * samples


@pytest.fixture
def lantern(start_server):
    return start_server("lantern-links", players=3, seed=2)


@pytest.fixture
def listening(lantern):
    heard = Recording()
    lantern.hub.listener = heard
    return lantern, heard


@pytest.fixture
def phones():
    made: list[httpx.Client] = []

    def phone(server, seat: int | None = None) -> httpx.Client:
        """A device holding ``seat`` (None: holding nothing), posting as its page would."""
        c = httpx.Client(base_url=server.base_url, timeout=20, headers={"origin": server.base_url})
        made.append(c)
        if seat is not None:
            c.get(f"/join/{server.seats.seats[seat].token}")
            assert server.seats.seats[seat].held
        return c
    yield phone
    for c in made:
        c.close()


def press(phone: httpx.Client, seat: int = 1) -> str:
    answer = phone.post(f"/seat/{seat}/talk")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["sample_rate"] == 16_000 and body["content_type"] == "application/octet-stream"
    return str(body["utterance"])


def refused(answer: httpx.Response, status: int, error: str) -> str:
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert body["error"] == error and body["message"]
    return str(body["message"])


def test_a_held_talk_reaches_the_listener_whole_and_in_order(listening, phones):
    server, heard = listening
    phone = phones(server, 1)
    utterance = press(phone)
    assert heard.presses == [1]                         # the press itself: the referee stops talking
    for n in range(5):
        answer = phone.post(f"/seat/1/talk/{utterance}/{n}", content=tone(n), headers=OCTETS)
        assert answer.status_code == 200 and answer.json()["seconds"] == pytest.approx(0.2 * (n + 1))
    assert heard.utterances == []                       # nothing until the release
    done = phone.post(f"/seat/1/talk/{utterance}/end", params={"chunks": 5})
    assert done.status_code == 200 and done.json()["sent"] is True and done.json()["seconds"] == 1.0
    assert heard.utterances == [(1, b"".join(tone(n) for n in range(5)))]
    # a finished utterance takes nothing more
    refused(phone.post(f"/seat/1/talk/{utterance}/5", content=tone(5), headers=OCTETS), 409, "finished")
    refused(phone.post(f"/seat/1/talk/{utterance}/end"), 409, "finished")
    assert len(heard.utterances) == 1


def test_in_text_play_nobody_listens_and_the_phone_says_so(lantern, phones):
    assert lantern.hub.listener is None
    phone = phones(lantern, 2)
    message = refused(phone.post("/seat/2/talk"), 409, "not-listening")
    assert "not listening for voices" in message
    page = phone.get("/seat/2").text
    assert "not listening for voices at this table" in page
    assert re.search(r'<button [^>]*id="talk-button"[^>]*\shidden[\s>]', page)      # no button to hold


def test_without_the_seats_cookie_or_from_another_origin_nothing_is_taken(listening, phones):
    server, heard = listening
    holder = phones(server, 1)
    utterance = press(holder)
    stranger = phones(server)                          # no cookie
    other_seat = phones(server, 2)                     # another seat's cookie
    for device in (stranger, other_seat):
        refused(device.post("/seat/1/talk"), 403, "seat")
        refused(device.post(f"/seat/1/talk/{utterance}/0", content=tone(0), headers=OCTETS), 403, "seat")
        refused(device.post(f"/seat/1/talk/{utterance}/end"), 403, "seat")
    foreign = {"origin": "http://evil.example", **OCTETS}
    answer = holder.post(f"/seat/1/talk/{utterance}/0", content=tone(0), headers=foreign)
    refused(answer, 403, "foreign-origin")
    refused(holder.post("/seat/1/talk", headers={"origin": "http://evil.example"}), 403, "foreign-origin")
    # the holder's own utterance was untouched by all of that: it still starts at chunk 0
    assert holder.post(f"/seat/1/talk/{utterance}/0", content=tone(0), headers=OCTETS).status_code == 200
    assert holder.post(f"/seat/1/talk/{utterance}/end").status_code == 200
    assert heard.presses == [1] and heard.utterances == [(1, tone(0))]


@pytest.mark.parametrize("how, status, error", [
    ("content-type", 415, "content-type"),
    ("odd-bytes", 400, "odd-bytes"),
    ("out-of-order", 409, "out-of-order"),
    ("bad-index", 400, "bad-index"),
    ("negative-index", 400, "bad-index"),
    ("too-large", 413, "too-large"),
])
def test_a_malformed_chunk_is_refused_and_drops_its_utterance(listening, phones, how, status, error):
    server, heard = listening
    phone = phones(server, 1)
    utterance = press(phone)
    assert phone.post(f"/seat/1/talk/{utterance}/0", content=tone(0), headers=OCTETS).status_code == 200
    index, body, headers = "1", tone(1), OCTETS
    if how == "content-type":
        headers = {"content-type": "audio/wav"}
    elif how == "odd-bytes":
        body = tone(1) + b"\x01"
    elif how == "out-of-order":
        index = "2"
    elif how == "bad-index":
        index = "one"
    elif how == "negative-index":
        index = "-1"
    elif how == "too-large":
        body = b"\0" * (MAX_CHUNK_BYTES + 2)
    refused(phone.post(f"/seat/1/talk/{utterance}/{index}", content=body, headers=headers), status, error)
    # the utterance is gone: neither its next chunk nor its end is taken, and nothing was handed on
    refused(phone.post(f"/seat/1/talk/{utterance}/1", content=tone(1), headers=OCTETS), 409, "finished")
    refused(phone.post(f"/seat/1/talk/{utterance}/end"), 409, "finished")
    assert heard.utterances == []


@pytest.mark.parametrize("index", ["\u00b2", "\u0661", "\uff11", "-1", "+1", "1 ", "99999999999999999999",
                                   "1" * 7, "0x1"])
def test_an_index_that_is_no_plain_number_is_a_400_with_its_reason_and_no_traceback(listening, phones,
                                                                                    capfd, index):
    """A chunk index of "²" was a bare 500 and a traceback on stderr ("²".isdigit() is true,
    int("²") raises); "١" (an Arabic-Indic one) was taken as chunk 1."""
    server, heard = listening
    phone = phones(server, 1)
    utterance = press(phone)
    answer = phone.post(f"/seat/1/talk/{utterance}/{quote(index)}", content=tone(0), headers=OCTETS)
    assert "no proper number" in refused(answer, 400, "bad-index")
    other = press(phone)
    assert phone.post(f"/seat/1/talk/{other}/0", content=tone(0), headers=OCTETS).status_code == 200
    refused(phone.post(f"/seat/1/talk/{other}/end", params={"chunks": index}), 409, "missing")
    assert heard.utterances == []
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception in ASGI" not in err


def declared_too_large(sock: socket.socket, host: str, path: str, cookie: str,
                       scheme: str = "http") -> tuple[str, dict[str, str]]:
    """POST a chunk that declares more than the body limit, sending only its start (the
    server answers at once, without reading it): the status line and the JSON body."""
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {scheme}://{host}\r\nCookie: {cookie}\r\n"
            f"Content-Type: application/octet-stream\r\nContent-Length: {MAX_BODY_BYTES + 2}\r\n\r\n")
    sock.sendall(head.encode() + b"\0" * 1024)
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    status, _, body = answer.decode("latin-1").partition("\r\n\r\n")
    return status.split("\r\n")[0], json.loads(body)


def test_a_chunk_past_the_body_limit_is_refused_before_it_is_read(listening, phones):
    server, heard = listening
    phone = phones(server, 1)
    utterance = press(phone)
    cookie = f"{cookie_name(1)}={phone.cookies[cookie_name(1)]}"
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
        status, body = declared_too_large(sock, f"127.0.0.1:{server.port}", f"/seat/1/talk/{utterance}/0", cookie)
    assert status.startswith("HTTP/1.1 413") and body["error"] == "too-large" and body["message"]
    assert server.screens.talk.open_seconds(1) == 0.0 and heard.utterances == []


def test_an_overlong_talk_is_cut_at_ten_seconds_and_nothing_is_sent(listening, phones):
    server, heard = listening
    phone = phones(server, 1)
    utterance = press(phone)
    half = b"\0\1" * (MAX_CHUNK_BYTES // 2)             # half a second a chunk
    for n in range(MAX_UTTERANCE_BYTES // len(half)):   # ten seconds exactly is allowed
        assert phone.post(f"/seat/1/talk/{utterance}/{n}", content=half, headers=OCTETS).status_code == 200
    over = phone.post(f"/seat/1/talk/{utterance}/20", content=b"\0\0" * 160, headers=OCTETS)
    assert "10 seconds" in refused(over, 413, "too-long")
    refused(phone.post(f"/seat/1/talk/{utterance}/end"), 409, "finished")
    assert heard.utterances == []


def test_unknown_missing_and_empty_utterances_are_refused(listening, phones):
    server, heard = listening
    phone = phones(server, 1)
    refused(phone.post("/seat/1/talk/no-such-id/0", content=tone(0), headers=OCTETS), 404, "unknown")
    refused(phone.post("/seat/1/talk/no-such-id/end"), 404, "unknown")
    utterance = press(phone)
    refused(phone.post(f"/seat/1/talk/{utterance}/end"), 400, "empty")   # a tap with nothing said
    utterance = press(phone)
    for n in range(3):
        phone.post(f"/seat/1/talk/{utterance}/{n}", content=tone(n), headers=OCTETS)
    refused(phone.post(f"/seat/1/talk/{utterance}/end", params={"chunks": 4}), 409, "missing")
    assert heard.utterances == []
    # a new press while an utterance is open drops the open one, unsent
    first = press(phone)
    phone.post(f"/seat/1/talk/{first}/0", content=tone(0), headers=OCTETS)
    second = press(phone)
    refused(phone.post(f"/seat/1/talk/{first}/end"), 409, "finished")
    phone.post(f"/seat/1/talk/{second}/0", content=tone(7), headers=OCTETS)
    assert phone.post(f"/seat/1/talk/{second}/end").status_code == 200
    assert heard.utterances == [(1, tone(7))]


def test_presses_are_limited_per_seat(listening, phones):
    server, heard = listening
    one, two = phones(server, 1), phones(server, 2)
    for _ in range(talk_mod.UTTERANCES_PER_WINDOW):
        press(one)
    assert "wait a minute" in refused(one.post("/seat/1/talk"), 429, "too-many")
    press(two, 2)                                       # another seat is not affected
    assert heard.presses.count(1) == talk_mod.UTTERANCES_PER_WINDOW


def test_the_seat_page_shows_what_the_referee_heard_and_said(listening, phones):
    server, _ = listening
    phone = phones(server, 1)
    page = phone.get("/seat/1").text
    assert 'id="talk-button"' in page and "Hold to talk" in page and 'aria-pressed="false"' in page
    assert "not listening for voices" not in page
    assert not re.search(r'<button [^>]*id="talk-button"[^>]*\shidden[\s>]', page)
    server.hub.phone_heard(1, "play alpha", ["Player 1 plays SUN and MOON."])
    page = phone.get("/seat/1").text
    assert "Heard: <span class=\"heard-words\">play alpha</span>" in page
    assert "Referee: Player 1 plays SUN and MOON." in page
    server.hub.phone_heard(1, None, [])
    assert "Heard nothing" in phone.get("/seat/1").text
    assert "Heard nothing" not in phones(server, 2).get("/seat/2").text   # each seat its own
    server.hub.release(1)
    assert server.hub.heard_for(1) is None              # the next holder does not see it


def test_phone_audio_is_kept_only_when_the_setting_asks(tmp_path):
    clock = [0.0]
    plain = Talk(clock=lambda: clock[0])
    utterance = plain.start(1)
    plain.chunk(1, utterance, "0", "application/octet-stream", tone(0))
    assert plain.end(1, utterance, "1").pcm == tone(0)
    assert not any(tmp_path.iterdir())
    kept = Talk(clock=lambda: clock[0], keep=tmp_path)
    utterance = kept.start(3)
    kept.chunk(3, utterance, "0", "application/octet-stream", tone(0) + tone(1))
    kept.end(3, utterance, None)
    (wav,) = (tmp_path / talk_mod.AUDIO_FOLDER).iterdir()
    assert wav.name.startswith("seat-3-") and stat.S_IMODE(wav.stat().st_mode) == 0o600
    with wave.open(str(wav)) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16_000, 1, 2)
        assert w.readframes(w.getnframes()) == tone(0) + tone(1)


def test_an_abandoned_utterance_goes_stale_and_the_rate_window_slides():
    clock = [0.0]
    talk = Talk(clock=lambda: clock[0], per_window=2, window_seconds=60)
    utterance = talk.start(1)
    talk.chunk(1, utterance, "0", "application/octet-stream", tone(0))
    clock[0] += talk_mod.STALE_SECONDS + 1               # the phone went away mid-talk
    with pytest.raises(TalkRefused) as stale:
        talk.chunk(1, utterance, "1", "application/octet-stream", tone(1))
    assert stale.value.key == "finished"
    talk.start(1)
    with pytest.raises(TalkRefused) as many:
        talk.start(1)
    assert many.value.key == "too-many" and many.value.status == 429
    clock[0] += 61
    talk.start(1)


def test_the_keep_phone_audio_setting_reaches_the_server_and_keeps_wavs_in_the_data_directory(tmp_path, phones):
    import argparse

    from facilitator import settings
    from facilitator.screens import ScreenServer, ScreenSettings
    from facilitator.session import Session
    from facilitator.table_data import TableData

    chosen = settings.parse("[screens]\nkeep_phone_audio = true\n", tmp_path / "config.toml")
    assert chosen.screens.keep_phone_audio is True and settings.Settings().screens.keep_phone_audio is False
    with pytest.raises(settings.SettingsError, match="keep_phone_audio: must be true or false"):
        settings.parse('[screens]\nkeep_phone_audio = "yes"\n', tmp_path / "config.toml")
    args = argparse.Namespace(keep_phone_audio=None)
    settings.apply_to_args(chosen, args)                # play reads it through its flags' defaults
    assert args.keep_phone_audio is True
    assert settings.parse(settings.render(chosen), tmp_path / "again.toml").screens == chosen.screens
    for keep in (False, True):
        data = tmp_path / f"data-{keep}"
        session, opening = Session.start("lantern-links", players=3, seed=2, table=TableData(data),
                                         log_path=tmp_path / f"g-{keep}.jsonl")
        server = ScreenServer(session, opening, ScreenSettings(port=0, keep_phone_audio=keep), data=data).start()
        try:
            server.hub.listener = Recording()
            phone = phones(server, 1)
            utterance = press(phone)
            phone.post(f"/seat/1/talk/{utterance}/0", content=tone(0), headers=OCTETS)
            assert phone.post(f"/seat/1/talk/{utterance}/end").status_code == 200
        finally:
            server.stop()
            session.log.close()
        kept = sorted((data / talk_mod.AUDIO_FOLDER).glob("*.wav")) if keep else []
        assert (data / talk_mod.AUDIO_FOLDER).exists() is keep
        if keep:
            (wav,) = kept
            with wave.open(str(wav)) as w:
                assert w.readframes(w.getnframes()) == tone(0)


def test_the_table_service_relays_phones_to_whichever_loop_runs_now():
    from facilitator.lobby_run import _Relay

    relay = _Relay()
    relay.phone_press(1)                                 # between loops: nobody to tell, no error
    relay.phone_utterance(1, tone(0))
    first, second = Recording(), Recording()
    relay.loop = first
    relay.phone_press(2)
    relay.phone_utterance(2, tone(1))
    relay.loop = second                                  # the lobby handed over to a game
    relay.phone_utterance(3, tone(2))
    assert first.presses == [2] and first.utterances == [(2, tone(1))]
    assert second.presses == [] and second.utterances == [(3, tone(2))]
