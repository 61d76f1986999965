"""The lobby by voice, end to end: espeak-ng speaks a table's lines into a WAV file and
``facilitator serve --audio-in`` hears them through the real endpointer and pocketsphinx,
chooses the game, plays a guess, quits to the lobby (confirmed) and stops (confirmed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import read_jsonl, record_table, run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]

# (what the table says, espeak-ng voice, seconds of silence after it: room for the answer)
TABLE = [
    ("let's play compass code with five players", "en-us", 12.0),
    ("send north east south west", "en-gb", 3.5),     # echoed (implicitly: both engines agree)
    ("yes", "en-gb", 9.0),                            # inside the undo window: scored, next captain
    ("quit", "en-us", 4.0),                           # echoed
    ("yes", "en-us", 9.0),                            # back in the lobby, the game kept
    ("quit", "en-gb", 4.0),
    ("yes", "en-gb", 3.0),
]



def test_the_lobby_by_voice_from_a_recording(tmp_path: Path) -> None:
    recording = record_table(TABLE, 6.0, tmp_path)   # the lobby's question is said first
    data, said = tmp_path / "data", tmp_path / "said"
    done = run_cli(["serve", "--audio-in", str(recording), "--speech-out", str(said), "--seed", "1",
                    "--data-dir", str(data)], timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    captions = [line for line in done.stdout.splitlines() if not line.startswith("> ")]
    assert captions[:2] == ["Which game? Say, for example: let's play compass code with four players.",
                            "Starting compass code with 5 players."]
    # a sure hearing (pocketsphinx and Whisper agree) is echoed implicitly (invariant 7);
    # the "yes" said inside its undo window applies it at once
    assert captions[3:6] == ["Send north east south west.", "North east south west: 0 anchors, 1 clockwise step.",
                             "Guess 2 of 4: Player 2 is captain."]
    assert "> yes" in done.stdout.splitlines()[:8]
    assert captions[-4:] == ["Back to the lobby.",
                             "The compass code game is kept. Say resume to go on with it, or choose a game.",
                             "Quit. Is that right?", "Goodbye."]
    (log,) = (data / "games").glob("*-compass-code.jsonl")
    events = read_jsonl(log)
    assert events[0]["players"] == 5
    assert [e["type"] for e in events if e["type"] == "guess-scored"] == ["guess-scored"]
    assert not any(e["type"] == "command-rejected" for e in events)
    assert len(list(said.glob("*-speech.wav"))) == len(captions)


def test_the_lobby_by_voice_with_screens_plays_the_same(tmp_path: Path) -> None:
    """``serve --screens`` by voice: the same table, the same answers; the screens follow
    (the seats are kept in the data directory for the next start)."""
    recording = record_table(TABLE, 6.0, tmp_path)
    data, said = tmp_path / "data", tmp_path / "said"
    done = run_cli(["serve", "--screens", "--port", "0", "--audio-in", str(recording), "--speech-out", str(said),
                    "--seed", "1", "--data-dir", str(data)], timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "table screen: open http://127.0.0.1:" in done.stderr
    captions = [line for line in done.stdout.splitlines() if not line.startswith("> ")]
    assert captions[:2] == ["Which game? Say, for example: let's play compass code with four players.",
                            "Starting compass code with 5 players."]
    assert captions[-4:] == ["Back to the lobby.",
                             "The compass code game is kept. Say resume to go on with it, or choose a game.",
                             "Quit. Is that right?", "Goodbye."]
    assert (data / "screens.json").stat().st_mode & 0o777 == 0o600
