"""``facilitator demo``: a whole voyage by synthesized voices through the real loop,
with no microphone or speaker, as a subprocess; and its text variant."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import read_jsonl, run_cli

pytestmark = pytest.mark.slow


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_the_voice_demo_plays_a_voyage_to_its_end(tmp_path: Path) -> None:
    log, said = tmp_path / "log.jsonl", tmp_path / "said"
    done = run_cli(["demo", "--seed", "7", "--speech-out", str(said), "--log", str(log)], timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    events = read_jsonl(log)
    assert events[-1]["type"] == "voyage-ended"
    assert sum(1 for e in events if e["type"] == "leg-ended") == 3
    lines = done.stdout.splitlines()
    assert any(line.startswith("The voyage is over") for line in lines)
    # every guess went through the spoken confirmation
    asked = [line for line in lines if line.endswith("Is that right?")]
    scored = [e for e in events if e["type"] in ("guess-scored", "bearing-checked")]
    assert len(asked) >= len(scored) > 0
    spoken = [line for line in lines if not line.startswith(("> ", "  ", "The assistant's speech"))]
    assert len(list(said.glob("*-speech.wav"))) == len(spoken)


def test_the_text_demo_plays_the_same_crew(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    done = run_cli(["demo", "--text", "--seed", "7", "--log", str(log)], timeout=120)
    assert done.returncode == 0, done.stderr
    assert read_jsonl(log)[-1]["type"] == "voyage-ended"
    assert "The voyage is over" in done.stdout
