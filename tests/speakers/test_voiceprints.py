"""The kept voices file (``GAME.jsonl.voices``) read back: never a hang, an unbounded read
or a traceback; a damaged part is set aside and said in one line, the sound rest kept,
and the seats left without a voice are asked again.  Real files, a FIFO and a symlink
to a device; the listen loop with its fakes for what a voice command then does."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    ScriptedRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    compass_session,
    said,
)
from support import ROOT, deadline, read_jsonl

from facilitator.session import Session
from facilitator.speech.base import Segment, VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings
from facilitator.speech.voices.voice_turns import VoiceTurns
from facilitator.speech.voices.voiceprints import Voiceprints

SEND = "send north east south west"
#: 3-number voices (the loop's fake embedder gives them); seat 1 is the captain
VOICE = {1: [1.0, 0.0, 0.0], 2: [0.0, 1.0, 0.0]}
ASK_1 = "Player 1, say: I'm ready to play."

_open = OPENED


class Voices:
    """The voice of each utterance, by its start time (the fake audio carries only words)."""

    def __init__(self) -> None:
        self.at: dict[float, list[float]] = {}

    def embed(self, pcm: bytes) -> np.ndarray:
        raise AssertionError("embedded through Turns")


class Turns(VoiceTurns):
    voices: Voices

    def _embed(self, segment: Segment) -> np.ndarray | None:
        self.embedded += 1
        return np.asarray(self.voices.at[segment.start], dtype=np.float32)


def _game(tmp_path: Path) -> Session:
    session = compass_session(tmp_path)
    _open.append(session)
    return session


def _kept(tmp_path: Path, body: Any) -> Path:
    path = tmp_path / "log.jsonl.voices"
    path.write_text(json.dumps(body))
    return path


def _loop(tmp_path: Path, session: Session) -> tuple[ListenLoop, Turns, RecordingSpeaker, list[str]]:
    """The listen loop with voice turns attached the way play attaches them (the warnings kept)."""
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    loop = ListenLoop(session, ScriptedRecognizer(), speaker, voice, CaptionLog(), LoopSettings(earcon_seconds=0.0))
    warned: list[str] = []
    prints = Voiceprints(Voiceprints.beside(session.log.path), session.game_id, dimension=3)
    if prints.problem:
        warned.append(prints.problem)
    turns = Turns(loop, Voices(), prints)
    turns.voices = Voices()
    return loop, turns, speaker, warned


def _said_by(loop: ListenLoop, turns: Turns, text: str, voice: list[float], at: float) -> None:
    turns.voices.at[at] = voice
    loop.hear(said(text, at, 1.0))


@pytest.mark.parametrize("seats, what", [
    ({"1": [5], "2": [VOICE[2]]}, "seat 1's line 1 (not a list of numbers)"),
    ({"1": [[1.0, 0.0]], "2": [VOICE[2]]}, "seat 1's line 1 (2 numbers, not 3)"),
    ({"1": [[float("nan"), 0.0, 0.0]], "2": [VOICE[2]]}, "seat 1's line 1 (nan is not a finite number)"),
    ({"1": [[0.0, 0.0, 0.0]], "2": [VOICE[2]]}, "seat 1's line 1 (all zeros)"),
    ({"1": [[1e308, 0.0, 0.0]], "2": [VOICE[2]]}, "seat 1's line 1 (a number as large as 1e+308"),
    ({"1": [[-1e39, 0.0, 0.0]], "2": [VOICE[2]]}, "seat 1's line 1 (a number as large as 1e+39"),
    ({"1": [[1e20, 1.0, 0.0]], "2": [VOICE[2]]}, "seat 1's line 1 (a number as large as 1e+20"),
], ids=["a-number-for-a-line", "wrong-length", "nan", "zeros", "past-float64-s-half", "past-float32",
        "squares-overflow"])
def test_a_bad_line_is_set_aside_said_once_and_its_seat_asked_again(
        tmp_path: Path, seats: dict[str, Any], what: str) -> None:
    session = _game(tmp_path)
    _kept(tmp_path, {"game_id": session.game_id, "declined": False, "seats": seats})
    loop, turns, speaker, warned = _loop(tmp_path, session)
    assert len(warned) == 1 and what in warned[0] and "\n" not in warned[0], warned
    assert not turns.prints.enrolled(1) and turns.prints.enrolled(2)      # the sound seat is kept
    turns.begin()
    assert speaker.spoken[-1].endswith(ASK_1)                             # the lost seat is asked again
    _said_by(loop, turns, "raw:i'm ready to play", VOICE[1], 10.0)
    turns.asking, turns.queue = None, []
    # voice turns work: another seat's voice is refused the captain's command, the captain's taken
    _said_by(loop, turns, SEND, VOICE[2], 20.0)
    assert speaker.spoken[-1] == "That is Player 1's guess to send."
    _said_by(loop, turns, SEND, VOICE[1], 30.0)
    loop.tick(40.0)
    scored = [e for e in read_jsonl(tmp_path / "log.jsonl") if e["type"] == "guess-scored"]
    assert len(scored) == 1 and scored[0]["heard"] == 1


def test_a_declined_that_is_not_a_boolean_is_not_a_no(tmp_path: Path) -> None:
    session = _game(tmp_path)
    _kept(tmp_path, {"game_id": session.game_id, "declined": "false", "seats": {"2": [VOICE[2]]}})
    _, turns, speaker, warned = _loop(tmp_path, session)
    assert len(warned) == 1 and "'false' is not true or false" in warned[0]
    assert not turns.prints.declined and turns.prints.enrolled(2)
    turns.begin()
    assert speaker.spoken[-1].endswith(ASK_1)


def test_other_damage_is_named_and_the_sound_rest_kept(tmp_path: Path) -> None:
    session = _game(tmp_path)
    _kept(tmp_path, {"game_id": session.game_id, "colour": "blue",
                     "seats": {"x": [VOICE[1]], "3": "none", "2": [VOICE[2], [True, 0.0, 0.0]]}})
    _, turns, _, warned = _loop(tmp_path, session)
    assert len(warned) == 1
    for what in ("the field 'colour'", "seat 'x' (not a seat number)", "seat 3 ('none' is not a list of lines)",
                 "seat 2's line 2 (True is not a finite number)"):
        assert what in warned[0], warned
    assert sorted(turns.prints.seats) == [2] and len(turns.prints.seats[2]) == 1


@pytest.mark.parametrize("body", ["not json {", "[1, 2]", '{"seats": {}}', '{"game_id": 7}'])
def test_a_file_that_is_no_voices_file_is_set_aside_whole(tmp_path: Path, body: str) -> None:
    session = _game(tmp_path)
    (tmp_path / "log.jsonl.voices").write_text(body)
    _, turns, _, warned = _loop(tmp_path, session)
    assert len(warned) == 1 and "set aside" in warned[0] and "every seat is asked again" in warned[0]
    assert turns.prints.seats == {} and not turns.prints.declined


def test_another_games_file_is_ignored_quietly(tmp_path: Path) -> None:
    session = _game(tmp_path)
    _kept(tmp_path, {"game_id": "another", "seats": {"1": [5]}})
    _, turns, _, warned = _loop(tmp_path, session)
    assert warned == [] and turns.prints.seats == {}


def test_a_kept_file_readable_by_others_is_made_private(tmp_path: Path) -> None:
    session = _game(tmp_path)
    path = _kept(tmp_path, {"game_id": session.game_id, "seats": {"1": [VOICE[1]]}})
    path.chmod(0o644)
    _, turns, _, warned = _loop(tmp_path, session)
    assert warned == [] and turns.prints.enrolled(1)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_saved_file_is_private(tmp_path: Path) -> None:
    prints = Voiceprints(tmp_path / "g.jsonl.voices", "g", dimension=3)
    prints.add(1, np.asarray(VOICE[1]))
    assert stat.S_IMODE((tmp_path / "g.jsonl.voices").stat().st_mode) == 0o600
    again = Voiceprints(tmp_path / "g.jsonl.voices", "g", dimension=3)
    assert again.problem is None and np.allclose(again.seats[1][0], VOICE[1])


_READ = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
from facilitator.speech.voices.voiceprints import Voiceprints
prints = Voiceprints(Path(sys.argv[1]), "g")
print(prints.problem)
print(sorted(prints.seats))
"""


def _read_in_a_child(path: Path) -> subprocess.CompletedProcess[str]:
    """Read the voices at ``path`` in a child process: a hang is a timeout, an unbounded read
    a MemoryError (its address space is capped), neither takes the test run down."""
    return subprocess.run([sys.executable, "-c", _READ, str(path)], capture_output=True, text=True,
                          timeout=deadline(30), cwd=ROOT, check=False)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory", "too-large"])
def test_a_path_that_is_not_a_small_regular_file_is_never_read(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "g.jsonl.voices"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_text(json.dumps({"game_id": "g", "seats": {"1": [[0.5] * 256]}}) + " " * (2 << 20))
    try:
        done = _read_in_a_child(path)
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading the voices file ({kind}) hung")
    assert done.returncode == 0, done.stderr
    problem, seats = done.stdout.splitlines()
    reason = "larger than 1 MB" if kind == "too-large" else "not a regular file"
    assert problem.startswith("the enrolled voices in 'g.jsonl.voices' are set aside") and reason in problem
    assert seats == "[]"
