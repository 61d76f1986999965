"""Phones when the table talks over itself (issue 41, items 1-3), over HTTP on loopback.

The screens serve a Compass Code table whose seats' phones post their talk as a page
would; the real ``ListenLoop`` hears them (attached as voice play attaches it) with the
scripted recognizers of the loop's tests (a phone's "audio" is the UTF-8 text said), and
each seat's page shows what the referee said to it.  The loop runs on stream time: the
test ticks it between requests.  Seat 1 captains the first guess."""

from __future__ import annotations

import html
from pathlib import Path

import httpx
import pytest
from loop.loop_fakes import ROUTES, RecordingSpeaker, ScriptedRecognizer, TwoStageRecognizer
from support import read_jsonl

from facilitator.games import find_game
from facilitator.speech.base import Recognizer, VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings

SEND = "send north east south west"
OTHER = "send west south east north"


@pytest.fixture
def table(start_server, tmp_path: Path):
    made: list[httpx.Client] = []
    loops: list[ListenLoop] = []

    def open_table(recognizer: Recognizer, scale: float = 1.0):
        options = find_game("compass-code").parse_options({"routes": ROUTES})
        server = start_server("compass-code", seed=5, options=options)
        voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
        speaker = RecordingSpeaker(voice)
        loop = ListenLoop(server.hub.shared, recognizer, speaker, voice,
                          settings=LoopSettings(earcon_seconds=0.0, implicit_window_seconds=3.0,
                                                verify_cpu_scale=scale))
        server.hub.shared.attach_loop(loop)
        loops.append(loop)

        def phone(seat: int) -> httpx.Client:
            c = httpx.Client(base_url=server.base_url, timeout=20, headers={"origin": server.base_url})
            made.append(c)
            c.get(f"/join/{server.seats.seats[seat].token}")
            return c
        return server, loop, speaker, phone
    yield open_table
    for c in made:
        c.close()


def talk(phone: httpx.Client, seat: int, text: str) -> None:
    """Seat ``seat`` holds its talk control, says ``text`` (one chunk of whole samples: an even
    number of bytes) and lets go."""
    answer = phone.post(f"/seat/{seat}/talk")
    assert answer.status_code == 200, answer.text
    utterance = answer.json()["utterance"]
    pcm = text.encode("utf-8")
    assert phone.post(f"/seat/{seat}/talk/{utterance}/0", content=pcm,
                      headers={"content-type": "application/octet-stream"}).status_code == 200
    ended = phone.post(f"/seat/{seat}/talk/{utterance}/end?chunks=1")
    assert ended.status_code == 200, ended.text


def shown(phone: httpx.Client, seat: int) -> str:
    return html.unescape(phone.get(f"/seat/{seat}").text)


def logged(server) -> list[tuple[str, object]]:
    path = Path(server.hub.session.log.path)
    return [(str(e["type"]), e.get("heard")) for e in read_jsonl(path)[3:]]


def test_a_refused_seat_does_not_drop_the_captains_echoed_guess(table) -> None:
    server, loop, speaker, phone = table(ScriptedRecognizer())
    ann, seat3 = phone(1), phone(3)
    loop.tick(1.0)
    talk(ann, 1, SEND)
    loop.tick(1.1)                                   # echoed 1.1-3.1, the window to 6.1
    assert "Referee: Send north east south west." in shown(ann, 1)
    loop.tick(4.0)
    talk(seat3, 3, OTHER)
    loop.tick(4.1)
    assert "Referee: That is Player 1's guess to send." in shown(seat3, 3)
    loop.tick(12.0)                                  # Ann's window closes: her guess applies
    assert [("command-rejected", 3), ("guess-scored", 1)] == logged(server)[:2]
    assert speaker.spoken[:2] == ["Send north east south west.", "That is Player 1's guess to send."]


def test_the_second_engines_question_is_shown_on_the_captains_phone(table) -> None:
    server, loop, speaker, phone = table(TwoStageRecognizer(cpu_seconds=0.01), scale=500.0)
    ann, seat3 = phone(1), phone(3)
    loop.tick(1.0)
    talk(ann, 1, f"{OTHER}=>{SEND}")                 # echoed as west south east north
    loop.tick(1.1)
    loop.tick(4.0)
    talk(seat3, 3, "candidates")                     # the verdict comes in while seat 3 asks
    loop.tick(4.1)
    question = "Sorry, did you say send north east south west?"
    assert question in speaker.spoken
    assert question in shown(ann, 1) and question not in shown(seat3, 3)
    loop.tick(12.0)                                  # after the referee's answers
    talk(ann, 1, "yeah")
    loop.tick(12.1)
    assert ("guess-scored", 1) in logged(server)


def test_a_refusal_does_not_wait_for_the_second_engine(table) -> None:
    recognizer = TwoStageRecognizer(cpu_seconds=0.01)
    server, loop, speaker, phone = table(recognizer, scale=500.0)
    seat2 = phone(2)
    loop.tick(1.0)
    talk(seat2, 2, SEND)
    loop.tick(1.1)
    assert "Referee: That is Player 1's guess to send." in shown(seat2, 2)
    assert recognizer.verdicts == [] and speaker.spoken == ["That is Player 1's guess to send."]
    assert logged(server) == [("command-rejected", 2)]
