"""Helpers for tests: run the real CLI as a subprocess and read JSON Lines.

Importable from any test as ``from support import run_cli, read_jsonl`` (pytest
puts tests/ on the path; test files may share base names across folders).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: deadlines only bound a hung subprocess, they assert no speed: under emulation
#: (benchmarks/fresh-root/run.sh sets FACILITATOR_EMULATED in a foreign root, where qemu-user
#: runs the engines ten to twenty times slower) each is four times as long
DEADLINE_SCALE = 4.0 if os.environ.get("FACILITATOR_EMULATED") else 1.0


def deadline(seconds: float) -> float:
    """``seconds`` on this machine: longer under emulation (``DEADLINE_SCALE``)."""
    return seconds * DEADLINE_SCALE


def run_cli(args: Sequence[str], stdin: bytes | str = b"", timeout: float = 60,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m facilitator ARGS`` with ``stdin``; text stdout/stderr."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "facilitator", *args], input=data,
                          capture_output=True, timeout=deadline(timeout), env=full_env, cwd=ROOT, check=False)
    return subprocess.CompletedProcess(proc.args, proc.returncode,
                                       proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))


#: what a log line adds around its event: which command's batch it is in, and its chained digest
BATCH_FIELDS = ("batch", "batch_size", "chain")


def read_jsonl(path: Path) -> list[dict]:
    """The lines of ``path`` as objects; log lines as events (without their batch fields)."""
    return [{k: v for k, v in json.loads(line).items() if k not in BATCH_FIELDS}
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]



def speak(text: str, voice: str, tmp: Path, rate_wpm: int = 160) -> bytes:
    """``text`` said by espeak-ng's ``voice``, as 16 kHz mono int16 PCM."""
    import wave

    from facilitator.speech.audio.devices import convert

    path = tmp / "line.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate_wpm), "-w", str(path), text], check=True)
    with wave.open(str(path)) as w:
        return convert(w.readframes(w.getnframes()), w.getframerate(), w.getnchannels(), w.getsampwidth())


def silence(seconds: float) -> bytes:
    """``seconds`` of digital silence as 16 kHz mono int16 PCM."""
    from facilitator.speech.base import SAMPLE_RATE, SAMPLE_WIDTH

    return bytes(int(seconds * SAMPLE_RATE) * SAMPLE_WIDTH)


def kill_while_playing(args: Sequence[str], lines: Sequence[str], ready: Callable[[], bool],
                       timeout: float = 120) -> int:
    """Run ``python -m facilitator ARGS``, type ``lines``, wait until ``ready()``, then
    SIGKILL it, as a crash or a power cut would; return its exit status."""
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "facilitator", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            env=os.environ.copy())
    try:
        assert proc.stdin is not None
        proc.stdin.write(("\n".join(lines) + "\n").encode())
        proc.stdin.flush()
        give_up = time.monotonic() + deadline(timeout)
        while not ready():
            if time.monotonic() > give_up:
                raise AssertionError("the game never reached the point to kill it at")
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            with contextlib.suppress(BrokenPipeError):
                if stream is not None:
                    stream.close()
    return proc.returncode


def log_has(path: Path, predicate: Callable[[list[dict]], bool]) -> Callable[[], bool]:
    """A ``ready`` check: ``predicate`` holds for the events logged so far at ``path``."""

    def ready() -> bool:
        if not path.exists():
            return False
        try:
            return predicate(read_jsonl(path))
        except ValueError:          # a line being written
            return False

    return ready


def record_table(lines: Sequence[tuple[str, str, float]], opening_seconds: float, tmp: Path) -> Path:
    """A WAV of a table: silence while the assistant opens, then each (text, voice,
    seconds of silence after it) said by espeak-ng; returns the file's path."""
    from facilitator.speech.audio.devices import write_wav

    audio = silence(opening_seconds)
    for text, voice, after in lines:
        audio += speak(text, voice, tmp) + silence(after)
    path = tmp / "table.wav"
    write_wav(path, audio)
    return path


def script_lines(path: Path) -> list[str]:
    """A scripted game's lines (``tests/transcripts/GAME.in``): blank lines and ``#`` comments
    dropped, as ``facilitator play --text`` drops them."""
    text = path.read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def words(text: str) -> int:
    """How many words a listener hears in ``text``."""
    return len(text.split())
