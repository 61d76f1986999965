"""Regenerate the golden recognition clips listed in golden.toml with espeak-ng.

Run from the repository root: ``python tests/audio/make_golden.py``.  Each clip
is the transcript (its file name, underscores as spaces) said by espeak-ng, one
voice per clip in turn from the section's list, converted to 16 kHz mono int16,
with silence trimmed to 0.15 s at each end so the files stay small.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from facilitator.speech.audio.devices import read_wav, write_wav

MARGIN_SECONDS = 0.15


def trim(pcm: bytes, rate: int = 16_000) -> bytes:
    samples = np.frombuffer(pcm, dtype="<i2")
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    if not len(loud):
        return pcm
    margin = int(MARGIN_SECONDS * rate)
    start, end = max(0, loud[0] - margin), min(len(samples), loud[-1] + margin)
    return samples[start:end].tobytes()


def say(text: str, voice: str, out: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", "160", "-w", str(raw), text], check=True)
        write_wav(out, trim(read_wav(raw)))


def main() -> None:
    spec = tomllib.loads((HERE / "golden.toml").read_text(encoding="utf-8"))
    for section, body in spec.items():
        folder = HERE / section
        folder.mkdir(exist_ok=True)
        voices = body["voices"]
        for index, name in enumerate(body["clips"]):
            say(name.replace("_", " "), voices[index % len(voices)], folder / f"{name}.wav")
            print(f"{section}/{name}.wav")


if __name__ == "__main__":
    main()
