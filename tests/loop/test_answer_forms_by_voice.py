"""An answer-only form heard through the real parts: espeak-ng says a guess and then "yep"
into a WAV file, and ``facilitator play compass-code --audio-in`` hears both through the real
endpointer and pocketsphinx (the light mode, which asks every guess): "yep" and "that's
right" answer the question, so the guesses are scored (grammars/common.toml ``answer = [...]``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import read_jsonl, record_table, run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]

# (what the table says, the espeak-ng voice, seconds of silence after it)
TABLE = [
    ("send north east south west", "en-gb", 5.5),          # asked: "... Is that right?"
    ("yep", "en-us", 9.0),                                 # applied: scored, next captain
    ("send west north east south", "en-us", 5.5),          # asked again ...
    ("that's right", "en-us", 9.0),                        # ... and applied
]


def test_yep_answers_the_question_by_voice(tmp_path: Path) -> None:
    recording = record_table(TABLE, 8.0, tmp_path)     # the opening announcement is said first
    log = tmp_path / "log.jsonl"
    done = run_cli(["play", "compass-code", "--second-engine", "off", "--audio-in", str(recording),
                    "--speech-out", str(tmp_path / "said"), "--seed", "1", "--routes", "ESNW,NESW,WSEN",
                    "--log", str(log)], timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    scored = [(e["route"], e["anchors"], e["clockwise"]) for e in read_jsonl(log) if e["type"] == "guess-scored"]
    assert scored == [("NESW", 1, 2), ("WNES", 0, 1)]
    heard = [line[2:] for line in done.stdout.splitlines() if line.startswith("> ")]
    assert heard == [text for text, _, _ in TABLE]   # before, "yep" decoded as the grammar's "yes"
    captions = [line for line in done.stdout.splitlines() if not line.startswith("> ")]
    assert "Please say yes or no." not in captions
    assert captions[1:4] == ["Send north east south west. Is that right?",
                             "North east south west: 1 anchor, 2 clockwise steps.",
                             "Guess 2 of 4: Player 2 is captain."]
