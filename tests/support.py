"""Helpers for tests: run the real CLI as a subprocess and read JSON Lines.

Importable from any test as ``from support import run_cli, read_jsonl`` (pytest
puts tests/ on the path; test files may share base names across folders).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_cli(args: Sequence[str], stdin: bytes | str = b"", timeout: float = 60,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m facilitator ARGS`` with ``stdin``; text stdout/stderr."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "facilitator", *args], input=data,
                          capture_output=True, timeout=timeout, env=full_env, cwd=ROOT)
    return subprocess.CompletedProcess(proc.args, proc.returncode,
                                       proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def wait_for_lines(path: Path, count: int, timeout: float = 20) -> None:
    """Wait until the file at ``path`` holds ``count`` lines (a running game's log)."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().splitlines()) >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"log never reached {count} lines")


def speak(text: str, voice: str, tmp: Path, rate_wpm: int = 160) -> bytes:
    """``text`` said by espeak-ng's ``voice``, as 16 kHz mono int16 PCM."""
    import wave

    from facilitator.speech.audio import convert

    path = tmp / "line.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate_wpm), "-w", str(path), text], check=True)
    with wave.open(str(path)) as w:
        return convert(w.readframes(w.getnframes()), w.getframerate(), w.getnchannels(), w.getsampwidth())


def silence(seconds: float) -> bytes:
    """``seconds`` of digital silence as 16 kHz mono int16 PCM."""
    from facilitator.speech.base import SAMPLE_RATE, SAMPLE_WIDTH

    return bytes(int(seconds * SAMPLE_RATE) * SAMPLE_WIDTH)
