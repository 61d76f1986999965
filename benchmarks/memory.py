"""Peak memory of ``facilitator play`` in voice mode: a real subprocess fed a recording.

The recording is a few Compass Code commands from the corpus (with their
confirmations) separated by pauses, over a faint noise floor.  The play process
runs with ``--audio-in`` (the same endpointer, recognizer and loop as with a
microphone) and ``--speech-out`` (speech synthesized to files by the real
pyttsx3/espeak-ng worker).  While it runs, the resident set of the process and
of its children is sampled from /proc every 20 ms; the kernel's own peak
(``VmHWM``) of the play process is read at its end.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from facilitator.speech.audio.devices import read_wav, write_wav

from .corpus import Clip


def _kib(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
            return [int(x) for x in f.read().split()]
    except (FileNotFoundError, ProcessLookupError):
        return []


def recording(directory: Path, clips: list[Clip], out: Path) -> float:
    """Write a recording of Compass Code commands, each confirmed; return its seconds."""
    wanted = [c for c in clips if c.game == "compass-code" and c.intent in ("status", "candidates", "send")
              and not c.held_out][:4]
    yes = next(c for c in clips if c.want == "yes" and not c.held_out)
    parts: list[np.ndarray] = [np.zeros(16_000)]
    for clip in wanted:
        parts.append(np.frombuffer(read_wav(directory / "clean" / clip.file), dtype="<i2").astype(float))
        parts.append(np.zeros(16_000 * 6))   # room for the answer and its deaf window
        if clip.intent == "send":
            parts.append(np.frombuffer(read_wav(directory / "clean" / yes.file), dtype="<i2").astype(float))
            parts.append(np.zeros(16_000 * 6))
    pcm = np.concatenate(parts)
    pcm += np.random.default_rng(2).normal(0, 30, len(pcm))
    write_wav(out, np.clip(pcm, -32768, 32767).astype("<i2").tobytes())
    return len(pcm) / 16_000


def peak_rss(directory: Path, clips: list[Clip], root: Path) -> dict[str, float]:
    """Run voice play on a recording; peak resident memory in MB (process, and with its children)."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        audio = tmp / "table.wav"
        seconds = recording(directory, clips, audio)
        env = dict(os.environ, FACILITATOR_DATA_DIR=str(tmp / "data"))
        command = [sys.executable, "-m", "facilitator", "play", "compass-code", "--audio-in", str(audio),
                   "--speech-out", str(tmp / "speech"), "--seed", "1", "--log", str(tmp / "log.jsonl")]
        proc = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        peak_total = peak_main = hwm = 0
        while proc.poll() is None:
            main = _kib(proc.pid, "VmRSS")
            hwm = max(hwm, _kib(proc.pid, "VmHWM"))
            total = main + sum(_kib(child, "VmRSS") for child in _children(proc.pid))
            peak_main, peak_total = max(peak_main, main), max(peak_total, total)
            time.sleep(0.02)
        out, err = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"voice play failed ({proc.returncode}): {err.strip()}")
        said = sum(1 for line in out.splitlines() if line.startswith("> "))
    return {"process_mb": max(hwm, peak_main) / 1024, "with_children_mb": peak_total / 1024,
            "recording_s": seconds, "heard": said}
