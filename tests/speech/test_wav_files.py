"""WAV recordings as sox, Audacity and phones write them (issue 43): what can be converted
is heard, what cannot is refused in one line saying what the file is and what is needed.

The files are made by sox itself, so the headers are the ones a table meets (sox writes
24- and 32-bit integer PCM as WAVE_FORMAT_EXTENSIBLE, format 0xFFFE)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from facilitator.errors import SpeechError
from facilitator.speech.audio.devices import read_wav

pytestmark = pytest.mark.skipif(shutil.which("sox") is None, reason="sox makes the test files")

NEEDED = "16-bit PCM at 8,000 to 384,000 Hz"


def sox(path: Path, *options: str, tones: tuple[int, ...] = (440,), seconds: float = 0.5) -> Path:
    synth = [word for tone in tones for word in ("sine", str(tone))]
    subprocess.run(["sox", "-n", *options, str(path), "synth", str(seconds), *synth], check=True)
    return path


def peak_hz(pcm: bytes) -> float:
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.argmax(spectrum) * 16000 / len(samples))


KINDS = {
    "float32-stereo": ("-r", "22050", "-c", "2", "-b", "32", "-e", "floating-point"),
    "float32": ("-r", "22050", "-b", "32", "-e", "floating-point"),
    "float64": ("-r", "16000", "-b", "64", "-e", "floating-point"),
    "int24": ("-r", "48000", "-b", "24", "-e", "signed-integer"),
    "int32": ("-r", "16000", "-b", "32", "-e", "signed-integer"),
    "uint8": ("-r", "8000", "-b", "8", "-e", "unsigned-integer"),
    "mu-law": ("-r", "8000", "-e", "u-law"),
    "a-law": ("-r", "8000", "-e", "a-law"),
}


@pytest.mark.parametrize("kind", KINDS)
def test_a_wav_of_another_sample_format_is_converted(tmp_path: Path, kind: str) -> None:
    path = sox(tmp_path / f"{kind}.wav", *KINDS[kind])
    pcm = read_wav(path)
    assert abs(len(pcm) // 2 - 8000) <= 2                 # half a second at 16 kHz
    level = np.abs(np.frombuffer(pcm, dtype="<i2")).max()
    assert 0.4 * 32768 < level <= 32767                   # sox's sine is at 0.7 of full scale
    assert abs(peak_hz(pcm) - 440) < 5


def test_the_files_are_the_kinds_the_issue_met(tmp_path: Path) -> None:
    """sox's 32-bit float is format 3, its 32-bit integer is extensible (65534): both
    were refused by Python's ``wave`` ("unknown format: 65534")."""
    assert sox(tmp_path / "f.wav", *KINDS["float32"]).read_bytes()[20:22] == b"\x03\x00"
    assert sox(tmp_path / "i.wav", *KINDS["int32"]).read_bytes()[20:22] == b"\xfe\xff"


def test_a_stereo_file_keeps_the_channel_asked_for_or_mixes_both(tmp_path: Path) -> None:
    """The microphone's rule (``--input-channel N`` keeps channel N, none mixes down)."""
    path = sox(tmp_path / "st.wav", "-r", "44100", "-c", "2", "-b", "16", tones=(440, 1000))
    assert abs(peak_hz(read_wav(path, 0)) - 440) < 5
    assert abs(peak_hz(read_wav(path, 1)) - 1000) < 5
    both = np.abs(np.fft.rfft(np.frombuffer(read_wav(path), dtype="<i2")))
    assert both[220] > 0.2 * both.max() and both[500] > 0.2 * both.max()   # 440 Hz and 1 kHz bins
    with pytest.raises(SpeechError, match=r"has 2 channel\(s\), 0 to 1; there is no channel 2"):
        read_wav(path, 2)


@pytest.mark.parametrize(("kind", "is_what"), [
    ("text", "is text, not a WAV file"), ("empty", "is empty"), ("flac", "is a FLAC file, not a WAV file"),
    ("ogg", "is an Ogg file"), ("riff", "is a RIFF file but not a WAV file"),
    ("adpcm", "is a compressed (ADPCM) WAV file"), ("binary", "is not a WAV file"),
    ("headless", "without its format chunk"),
])
def test_what_cannot_be_heard_is_named_with_what_is_needed(tmp_path: Path, kind: str, is_what: str) -> None:
    path = tmp_path / f"{kind}.wav"
    if kind == "text":
        path.write_text("not audio\n")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "flac":
        sox(tmp_path / "x.flac").rename(path)
    elif kind == "ogg":
        sox(tmp_path / "x.ogg").rename(path)
    elif kind == "riff":
        path.write_bytes(b"RIFF\x04\x00\x00\x00AVI ")
    elif kind == "adpcm":
        sox(path, "-r", "8000", "-e", "ms-adpcm")
    elif kind == "binary":
        path.write_bytes(bytes(range(200, 256)) * 4)
    else:
        path.write_bytes(b"RIFF\x04\x00\x00\x00WAVE")
    with pytest.raises(SpeechError) as refused:
        read_wav(path)
    said = str(refused.value)
    assert said.startswith(repr(str(path))) and is_what in said and NEEDED in said, said
    assert "()" not in said and "unknown format" not in said


def test_a_mono_file_is_heard_whatever_channel_the_table_keeps(tmp_path: Path) -> None:
    """``devices.input_channel = 5`` is for a microphone array: a mono recording is still heard."""
    path = sox(tmp_path / "mono.wav", "-r", "16000", "-b", "16")
    assert read_wav(path, 5) == read_wav(path)
