"""Every microphone in one loop: a seat's phone (its talk button gives the edges, its seat is
certain) and a second push-to-talk microphone, beside the table's own (docs/voice-loop.md).

Times are stream seconds; the recording speaker takes 2 s a sentence.  Seat 1 captains
the first guess of Compass Code (``compass_session``), so its guess is taken from seat 1's
phone and refused from seat 2's.
"""

from __future__ import annotations

from pathlib import Path

from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    ScriptedRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    compass_session,
    said,
)
from loop.phone_table import phone
from support import read_jsonl

from facilitator.speech.base import Segment, VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState

SEND = "send north east south west"
ECHO = "Send north east south west."

_open = OPENED


class StoppableSpeaker(RecordingSpeaker):
    stops = 0

    def stop(self) -> None:
        self.stops += 1


def make(tmp_path: Path, **settings: object) -> tuple[ListenLoop, StoppableSpeaker, list[tuple[int, str | None,
                                                                                             list[str]]]]:
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = StoppableSpeaker(voice)
    loop = ListenLoop(compass_session(tmp_path), ScriptedRecognizer(), speaker, voice, CaptionLog(),
                      LoopSettings(**{"earcon_seconds": 0.0, "implicit_window_seconds": 3.0,
                                      **settings}))  # type: ignore[arg-type]
    answered: list[tuple[int, str | None, list[str]]] = []
    loop.on_phone = lambda seat, heard, said: answered.append((seat, heard, said))
    _open.append(loop)
    return loop, speaker, answered


def events(tmp_path: Path) -> list[dict[str, object]]:
    return read_jsonl(tmp_path / "log.jsonl")[3:]


def test_a_phone_utterance_is_heard_with_its_edges_and_its_seat(tmp_path: Path) -> None:
    loop, speaker, answered = make(tmp_path)
    phone(loop, 1, SEND, 1.0, 2.5)
    seg = loop.pending_from
    assert seg is not None and (seg.source, seg.seat) == ("phone", 1)
    assert speaker.spoken == [ECHO] and answered == [(1, SEND, [ECHO])]   # the phone shows what it heard
    loop.tick(10.0)
    guessed = events(tmp_path)[0]
    assert guessed["type"] == "guess-scored" and guessed["heard"] == 1   # the log names the phone's seat


def test_a_role_command_from_a_seat_that_may_not_give_it_is_refused_in_words(tmp_path: Path) -> None:
    loop, speaker, answered = make(tmp_path)
    phone(loop, 2, SEND, 1.0, 2.5)
    assert speaker.spoken == ["That is Player 1's guess to send."]
    assert answered == [(2, SEND, ["That is Player 1's guess to send."])]
    assert [(e["type"], e["reason"], e["heard"]) for e in events(tmp_path)] == [
        ("command-rejected", "another seat's phone", 2)]
    loop.tick(10.0)
    assert [e["type"] for e in events(tmp_path)] == ["command-rejected"]   # nothing applied


def test_any_phone_answers_a_question(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))          # the table's microphone, unsure: asked
    assert loop.state is LoopState.CONFIRMING
    phone(loop, 3, "yes", 5.0, 5.8)                 # a neighbour's phone says yes
    assert [e["type"] for e in events(tmp_path)] == ["guess-scored", "captain-named"]


def test_the_table_microphone_leaves_a_phones_press_to_the_phone(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.phone_press(1, at=1.0)
    loop.hear(said(SEND, 1.2))                      # the table heard the same words, farther away
    assert [d.reason for d in loop.discarded] == ["phone"] and speaker.spoken == []
    loop.phone_utterance(1, SEND.encode("utf-8"), end=2.5)
    loop.tick(2.6)
    assert speaker.spoken == [ECHO]                 # heard once, from the phone


def test_a_press_stops_the_referee_and_the_phone_is_heard_over_its_last_words(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("repeat", 1.0))                  # the referee speaks from 2.0 to 4.0
    phone(loop, 1, SEND, 3.0, 4.5)                  # pressed while it spoke: barge-in
    assert speaker.stops == 1
    assert speaker.spoken[-1] == ECHO               # trimmed to what followed the referee, not dropped


def test_a_phone_utterance_needs_no_wake_phrase_or_key(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, wake_phrase=True)
    loop.hear(said(SEND, 1.0))                      # the table's microphone, not woken: nothing
    assert speaker.spoken == [] and loop.state is LoopState.DORMANT
    phone(loop, 1, SEND, 3.0, 4.5)
    assert speaker.spoken == [ECHO]


def test_the_second_microphone_is_heard_while_its_button_is_held(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, push_to_talk=True)
    loop.held_press(at=1.0)
    loop.hear(said(SEND, 1.2))                      # the table's microphone meanwhile: left to the headset
    loop.held_utterance(SEND.encode("utf-8"), end=2.6)
    loop.tick(2.7)
    assert [d.reason for d in loop.discarded] == ["phone"]
    assert speaker.spoken == [ECHO]
    assert loop.pending_from is not None and loop.pending_from.source == "ptt"


def test_a_phone_segment_knows_its_seat_when_cut(tmp_path: Path) -> None:
    seg = Segment(b"\0\0" * 16000, 1.0, 2.0, 1.0, "phone", 3)
    assert seg.after(1.5).seat == 3 and seg.after(1.5).source == "phone" and seg.phone
    assert not Segment(b"", 0.0, 1.0).phone
