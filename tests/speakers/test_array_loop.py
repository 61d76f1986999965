"""Seats named by where they speak, through the real listen loop on simulated multichannel
audio: ``facilitator play compass-code --voices on --array respeaker-4mic-hat --audio-in``.

The table is simulated with pyroomacoustics (``benchmarks/session/array_room.py``): a
5 x 4 x 2.6 m room with 0.55-0.65 s of reverberation, a ReSpeaker 4-Mic HAT at the
table's centre, Ann and Ben at their seats 0.7-0.9 m away.  Each line is said by
espeak-ng and rendered through the room's response from the speaker's mouth to each
of the four microphones: the bearing is measured from that, never given.  Ann and Ben
speak with the *same* voice, so no voiceprint could tell them apart; in the light mode
(``--second-engine off``) there is no voiceprint at all, and the array alone names the
seat.

By the rules the captain sends the guess: seat 1 (Ann) captains guess 1, Ben guess 2.
Both enrol when asked by name; Ben answers for the captain (refused, in words) and Ann
sends it herself (asked, confirmed, applied).  The game is then resumed from its log:
nobody is asked to enrol again, and the seats' bearings kept beside the log hold the
next guess to Ben.
"""

from __future__ import annotations

import json
import shutil
import wave
from pathlib import Path

import numpy as np
import pytest
from support import read_jsonl, run_cli, speak

from facilitator.speech.voices.direction import GEOMETRIES, apart

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]
pytest.importorskip("pyroomacoustics")

VOICE = "en-us+f3"          # Ann's and Ben's: one voice for both
HAT = GEOMETRIES["respeaker-4mic-hat"]
FIRST = [
    ("I'm ready to play", 1, 4.0),                       # "Thanks, Ann. Ben, say: ..."
    ("I'm ready to play", 2, 5.5),                       # "Thanks, Ben. Thanks, everyone..."
    ("send north east south west", 2, 4.5),              # "That is Ann's guess to send."
    ("send north east south west", 1, 5.5),              # "... Is that right?"
    ("yes", 1, 8.0),                                     # scored
]
RESUMED = [                                              # Ben captains guess 2
    ("send south west north east", 1, 4.5),              # "That is Ben's guess to send.": the kept bearings
    ("send south west north east", 2, 5.5),
    ("yes", 2, 8.0),
]


def record(table: object, lines: list[tuple[str, int, float]], opening: float, tmp: Path, name: str) -> Path:
    """A four-channel WAV of the table at the array: each line rendered from its seat."""
    from benchmarks.session.array_room import Table

    assert isinstance(table, Table)
    pieces = [np.zeros((4, int(opening * 16_000)))]
    for text, seat, after in lines:
        pieces.append(table.seat_says(seat, speak(text, VOICE, tmp)))
        pieces.append(np.zeros((4, int(after * 16_000))))
    audio = np.concatenate(pieces, axis=1)
    audio *= 0.3 * 32767 / np.max(np.abs(audio))
    path = tmp / name
    with wave.open(str(path), "wb") as w:
        w.setnchannels(4)
        w.setsampwidth(2)
        w.setframerate(16_000)
        w.writeframes(np.round(audio.T).astype("<i2").tobytes())
    return path


def play(recording: Path, tmp: Path, *more: str, voices: tuple[str, ...] = ("--voices", "on")) -> tuple[list[str], str]:
    done = run_cli(["play", "compass-code", "--second-engine", "off", *voices,
                    "--array", "respeaker-4mic-hat", "--audio-in", str(recording),
                    "--speech-out", str(tmp / "said"), *more], timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return [line for line in done.stdout.splitlines() if not line.startswith("> ")], done.stderr


def test_the_array_holds_the_captains_guess_to_her_seat_and_a_resumed_game_keeps_the_bearings(
        tmp_path: Path) -> None:
    from benchmarks.session.array_room import Table

    table = Table(HAT, seats=2, seed=12, background=0)
    log = tmp_path / "log.jsonl"
    captions, _ = play(record(table, FIRST, 17.0, tmp_path, "first.wav"), tmp_path, "--names", "Ann,Ben",
                       "--seed", "1", "--routes", "ESNW,NESW,WSEN", "--log", str(log))
    assert "Ann, say: I'm ready to play." in captions[1]
    assert "Thanks, everyone: I know your voices." in captions
    assert "That is Ann's guess to send." in captions
    assert "Send north east south west. Is that right?" in captions, captions
    assert "North east south west: 1 anchor, 2 clockwise steps." in captions

    events = read_jsonl(log)
    refused = [e for e in events if e["type"] == "command-rejected"]
    assert [(e["reason"], e["heard"]) for e in refused] == [("another seat's voice", 2)], (captions, events)
    scored = [e for e in events if e["type"] == "guess-scored"]
    assert len(scored) == 1 and scored[0]["heard"] == 1

    kept = json.loads(log.with_name(log.name + ".voices").read_text())
    assert kept["seats"] == {}                         # the light mode learns no voiceprint
    bearings = {int(s): b for s, b in kept["bearings"].items()}
    assert sorted(bearings) == [1, 2]
    for seat, bearing in bearings.items():
        assert apart(bearing, table.seat_bearing(seat)) <= 15.0, (seat, bearing, table.seat_bearing(seat))

    resumed_log = len(events)
    captions, err = play(record(table, RESUMED, 16.0, tmp_path, "resumed.wav"), tmp_path, "--resume", str(log))
    assert not any("say: I'm ready to play" in line for line in captions), (captions, err)
    events = read_jsonl(log)[resumed_log:]
    assert "That is Ben's guess to send." in captions
    refused = [e for e in events if e["type"] == "command-rejected"]
    assert [(e["reason"], e["heard"]) for e in refused] == [("another seat's voice", 1)], (captions, events)
    scored = [e for e in events if e["type"] == "guess-scored"]
    assert len(scored) == 1 and scored[0]["route"] == "SWNE" and scored[0]["heard"] == 2


def test_the_array_alone_engages_on_a_recording_without_voices_on(tmp_path: Path) -> None:
    """``--array`` is what names the seats: on a recording it needs no ``--voices on``."""
    from benchmarks.session.array_room import Table

    table = Table(HAT, seats=2, seed=12, background=0)
    log = tmp_path / "log.jsonl"
    captions, _ = play(record(table, FIRST, 17.0, tmp_path, "first.wav"), tmp_path, "--names", "Ann,Ben",
                       "--seed", "1", "--routes", "ESNW,NESW,WSEN", "--log", str(log), voices=())
    assert "Ann, say: I'm ready to play." in captions[1]
    assert "That is Ann's guess to send." in captions
    refused = [e for e in read_jsonl(log) if e["type"] == "command-rejected"]
    assert [(e["reason"], e["heard"]) for e in refused] == [("another seat's voice", 2)], captions


def test_the_array_with_voices_off_is_refused_in_one_line(tmp_path: Path) -> None:
    recording = tmp_path / "silence.wav"
    with wave.open(str(recording), "wb") as w:
        w.setnchannels(4)
        w.setsampwidth(2)
        w.setframerate(16_000)
        w.writeframes(b"\0" * 8 * 16_000)
    done = run_cli(["play", "compass-code", "--voices", "off", "--array", "respeaker-4mic-hat",
                    "--audio-in", str(recording), "--log", str(tmp_path / "log.jsonl")], timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs voice turns" in lines[0] and "--voices off" in lines[0], done.stderr
    assert not (tmp_path / "log.jsonl").exists()
