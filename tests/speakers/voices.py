"""espeak-ng and flite voices said into 16 kHz PCM for the speaker tests (made in the test)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from facilitator.speech.audio.devices import read_wav


def say(voice: str, text: str) -> bytes:
    """``voice`` is ``espeak:NAME`` or ``flite:NAME``; 16-bit mono PCM at 16 kHz."""
    kind, _, name = voice.partition(":")
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "line.wav"
        if kind == "flite":
            command = ["flite", "-voice", name, "-t", text, "-o", str(wav)]
        else:
            command = ["espeak-ng", "-v", name, "-w", str(wav), text]
        subprocess.run(command, check=True, capture_output=True, timeout=60)
        return read_wav(wav)


def have(voice: str) -> bool:
    return shutil.which("flite" if voice.startswith("flite:") else "espeak-ng") is not None
