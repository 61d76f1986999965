"""Voice turns at a microphone array, with the loop's fakes for the words and the voices
(``test_voice_turns.py``) but real raw microphones: each utterance carries four channels
of noise arriving as a plane wave from where its speaker sits (at a ReSpeaker 4-Mic HAT),
and its bearing is measured from them.  The direction decides first where it is sure;
where it is not, the voice decides as without an array."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    ScriptedRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    compass_session,
)
from speakers.plane_waves import plane_wave
from speakers.turn_fakes import VOICE, Turns, Unused
from support import read_jsonl

from facilitator.speech.base import Segment, VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings
from facilitator.speech.voices.direction import GEOMETRIES
from facilitator.speech.voices.voiceprints import Voiceprints

HAT = GEOMETRIES["respeaker-4mic-hat"]
SEND = "send north east south west"


def raw_from(degrees: float, seconds: float, seed: int) -> bytes:
    """Four microphones of the HAT hearing noise from ``degrees`` (a plane wave), interleaved."""
    mics = plane_wave(HAT, degrees, seconds, seed)
    return np.clip(np.round(mics.T), -32768, 32767).astype("<i2").tobytes()


def make(tmp_path: Path) -> tuple[ListenLoop, Turns, RecordingSpeaker]:
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    session = compass_session(tmp_path)
    loop = ListenLoop(session, ScriptedRecognizer(), speaker, voice, CaptionLog(), LoopSettings(earcon_seconds=0.0))
    OPENED.append(loop)
    turns = Turns(loop, Unused(), Voiceprints(Voiceprints.beside(tmp_path / "log.jsonl"), session.game_id,
                                              dimension=3), array=HAT)
    turns.voices_at = {}
    return loop, turns, speaker


def say(loop: ListenLoop, turns: Turns, text: str, voice: int, degrees: float, at: float,
        seconds: float = 1.0) -> None:
    turns.voices_at[at] = voice
    loop.hear(Segment(text.encode("utf-8"), at, at + seconds, raw=raw_from(degrees, seconds, int(at)),
                      microphones=4))


def events(tmp_path: Path) -> list[dict[str, object]]:
    return read_jsonl(tmp_path / "log.jsonl")[3:]


def enrol(loop: ListenLoop, turns: Turns, where: dict[int, float]) -> None:
    turns.begin()
    for k, (seat, degrees) in enumerate(sorted(where.items())):
        say(loop, turns, "raw:i'm ready to play", seat if seat in VOICE else 1, degrees, 10.0 * (k + 1), 1.2)


def test_the_direction_refuses_a_voice_the_voiceprint_cannot_place(tmp_path: Path) -> None:
    loop, turns, speaker = make(tmp_path)
    enrol(loop, turns, {1: 30.0, 2: 150.0})
    turns.asking, turns.queue = None, []
    assert abs(turns.prints.bearings[1] - 30.0) <= 2
    assert abs(turns.prints.bearings[2] - 150.0) <= 2
    # a voice halfway between the two voiceprints (unsure), said from Player 2's seat
    say(loop, turns, SEND, 12, 155.0, 40.0)
    assert speaker.spoken[-1] == "That is Player 1's guess to send."
    assert [(e["reason"], e["heard"]) for e in events(tmp_path)] == [("another seat's voice", 2)]
    # the seat's bearing followed the player, who leaned 5 degrees
    assert 150.5 < turns.prints.bearings[2] < 153.0


def test_a_sure_direction_decides_before_the_voice(tmp_path: Path) -> None:
    loop, turns, _ = make(tmp_path)
    enrol(loop, turns, {1: 30.0, 2: 150.0})
    turns.asking, turns.queue = None, []
    say(loop, turns, SEND, 2, 32.0, 40.0)          # Player 2's voice, from the captain's seat
    loop.tick(50.0)
    scored = [e for e in events(tmp_path) if e["type"] == "guess-scored"]
    assert len(scored) == 1 and scored[0]["heard"] == 1


def test_from_between_the_seats_the_one_owner_is_asked_by_name(tmp_path: Path) -> None:
    loop, turns, speaker = make(tmp_path)
    enrol(loop, turns, {1: 30.0, 2: 150.0})
    turns.asking, turns.queue = None, []
    say(loop, turns, SEND, 2, 90.0, 40.0)          # halfway round: the direction is unsure
    # never a guess, by voice or otherwise: the captain is asked by name, and nothing is logged
    assert speaker.spoken[-1] == "Player 1, was that you: send north east south west?"
    assert events(tmp_path) == [] and loop.asking_seat() == 1


def test_a_stranger_from_a_seats_direction_is_still_chatter(tmp_path: Path) -> None:
    loop, turns, speaker = make(tmp_path)
    enrol(loop, turns, {1: 30.0, 2: 150.0})
    turns.asking, turns.queue = None, []
    before = list(speaker.spoken)
    say(loop, turns, SEND, 9, 30.0, 40.0)          # the television behind the captain
    loop.tick(60.0)
    assert speaker.spoken == before and events(tmp_path) == []


def test_seats_close_together_are_asked_again_then_named(tmp_path: Path) -> None:
    loop, turns, speaker = make(tmp_path)
    turns.begin()
    say(loop, turns, "raw:i'm ready to play", 1, 30.0, 10.0, 1.2)
    say(loop, turns, "raw:i'm ready to play", 2, 60.0, 20.0, 1.2)
    # 30 degrees from Player 1: closer than the array separates, so asked again first
    assert speaker.spoken[-1] == ("That came from beside Player 1's seat. Player 2, say it again from your "
                                  "own seat: I'm ready to play.")
    assert 2 not in turns.prints.bearings
    say(loop, turns, "raw:i'm ready to play", 2, 62.0, 30.0, 1.2)
    assert ("Player 1 and Player 2 sit close together, so when I can't tell which of you spoke, I will ask."
            ) in speaker.spoken
    kept = Voiceprints(Voiceprints.beside(tmp_path / "log.jsonl"), turns.prints.game_id, dimension=3)
    assert sorted(kept.bearings) == [1, 2] and abs(kept.bearings[2] - 60.0) <= 2
