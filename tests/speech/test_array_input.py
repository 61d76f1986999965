"""A microphone array as the table's microphone: ``devices.array`` / ``--array``.

Every raw channel is opened; the recognizer hears one channel and each frame (and so
each utterance) carries the raw microphones, from which the "who spoke" stage takes
the bearing.  A recorded table (``--audio-in`` a multichannel WAV) plays back with its
directions.  The live device is a real ALSA capture device whose samples come from a
file (as in ``test_microphones.py``): sound arriving as a plane wave from a known
bearing at a ReSpeaker 4-Mic HAT's four microphones.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest
from support import deadline

from facilitator import settings as settings_mod
from facilitator.errors import SpeechError
from facilitator.speech.audio.devices import WavSource
from facilitator.speech.audio.endpoint import Endpointer
from facilitator.speech.voices.direction import GEOMETRIES, SOUND_SPEED, Geometry, apart, finder

ROOT = Path(__file__).resolve().parents[2]
HAT = GEOMETRIES["respeaker-4mic-hat"]
USB = GEOMETRIES["respeaker-usb-v2"]


def arriving(x: np.ndarray, geometry: Geometry, degrees: float, rate: int = 16_000) -> np.ndarray:
    """``x`` arriving as a plane wave from ``degrees`` at each microphone (exact delays)."""
    n = len(x)
    spectrum = np.fft.rfft(x)
    freqs = np.fft.rfftfreq(n, 1 / rate)
    p = np.asarray(geometry.positions_mm) / 1000
    p = p - p.mean(axis=0)
    lead = p @ np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees))]) / SOUND_SPEED
    return np.stack([np.fft.irfft(spectrum * np.exp(2j * np.pi * freqs * t), n) for t in lead])


def write_channels(path: Path, channels: np.ndarray, rate: int) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels.shape[0])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.clip(np.round(channels.T), -32768, 32767).astype("<i2").tobytes())


def speech(text: str, tmp: Path) -> np.ndarray:
    wav = tmp / "line.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(wav), text], check=True, capture_output=True, timeout=60)
    from facilitator.speech.audio.devices import read_wav

    return np.frombuffer(read_wav(wav), dtype="<i2").astype(np.float64)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_a_recorded_table_plays_back_with_its_directions(tmp_path: Path) -> None:
    """A ReSpeaker USB v2 recording at 48 kHz (channel 0 its processed voice, 1-4 the raw
    microphones, 5 the playback): each utterance carries its microphones, sample for sample,
    and its bearing is where it was said from."""
    line = speech("send north east south west", tmp_path)
    gap = np.zeros(16_000)
    said = []
    for degrees in (40.0, 220.0):
        raw = arriving(line, USB, degrees)
        said.append(np.concatenate([raw, np.zeros((4, len(gap)))], axis=1))
    raw = np.concatenate([np.zeros((4, len(gap))), *said], axis=1)
    upsampled = np.stack([np.interp(np.arange(raw.shape[1] * 3) / 3, np.arange(raw.shape[1]), c) for c in raw])
    six = np.zeros((6, upsampled.shape[1]))
    six[0] = upsampled.mean(axis=0) * 0.5      # the array's own processed voice
    six[1:5] = upsampled
    recording = tmp_path / "table.wav"
    write_channels(recording, six, 48_000)

    source = WavSource(recording, array=USB)
    assert len(source.raw) == 4 * len(source.pcm)
    segments = list(Endpointer().segments(source.frames()))
    assert len(segments) == 2
    for segment, degrees in zip(segments, (40.0, 220.0), strict=True):
        assert segment.microphones == 4 and len(segment.raw) == 4 * len(segment.pcm)
        mics = np.frombuffer(segment.raw, dtype="<i2").reshape(-1, 4).T
        found = finder(USB).bearing(mics)
        assert found is not None and apart(found.degrees, degrees) <= 5.0
        later = segment.after(segment.start + 0.2)
        assert len(later.raw) == 4 * len(later.pcm) and later.microphones == 4
        # the recognizer hears channel 0, the processed voice (half the raw microphones' mean)
        voice = np.frombuffer(segment.pcm, dtype="<i2").astype(np.float64)
        assert 0.3 < np.sqrt(np.mean(voice ** 2)) / np.sqrt(np.mean(mics.astype(np.float64) ** 2)) < 0.7


def test_a_recording_with_too_few_channels_is_one_clear_error(tmp_path: Path) -> None:
    recording = tmp_path / "stereo.wav"
    write_channels(recording, np.zeros((2, 16_000)), 16_000)
    with pytest.raises(SpeechError, match=r"has 2 channel\(s\); the respeaker-usb-v2 array needs 5 "
                                          r"\(its microphones on channels 1, 2, 3, 4\)"):
        WavSource(recording, array=USB)


def test_the_array_setting_is_checked_and_filled_into_the_flags(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    loaded = settings_mod.parse('[devices]\narray = "respeaker-4mic-hat"\n', path)
    assert loaded.devices.array == "respeaker-4mic-hat"
    import argparse

    args = argparse.Namespace(array=None)
    settings_mod.apply_to_args(loaded, args)
    assert args.array == "respeaker-4mic-hat"
    with pytest.raises(settings_mod.SettingsError, match=r"line 2: devices\.array: unknown microphone array "
                                                         r"'respeaker-8': one of respeaker-4mic-hat"):
        settings_mod.parse('[devices]\narray = "respeaker-8"\n', path)
    rendered = settings_mod.render(settings_mod.Settings())
    assert "array" in rendered
    assert settings_mod.parse(rendered, path) == settings_mod.Settings(source=path)


def test_a_bad_array_flag_is_refused_before_play_starts(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "facilitator", "play", "compass-code", "--array", "0,0;0,0",
                           "--audio-in", str(tmp_path / "none.wav")], capture_output=True, text=True,
                          timeout=deadline(120), cwd=ROOT,
                          env={**os.environ, "FACILITATOR_CONFIG": str(tmp_path / "none.toml"),
                               "FACILITATOR_DATA_DIR": str(tmp_path / "data")}, check=False)
    assert done.returncode == 2, done.stderr
    assert "--array: two microphones at one position in '0,0;0,0'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def array_home(tmp_path: Path) -> Path:
    """A home directory whose .asoundrc declares ``hatmic``: four channels at 16 kHz carrying
    noise that arrives from 125 degrees at a ReSpeaker 4-Mic HAT."""
    rng = np.random.default_rng(5)
    sound = arriving(rng.normal(0, 2500, 16_000 * 20), HAT, 125.0)
    raw = tmp_path / "hat.raw"
    np.clip(np.round(sound.T), -32768, 32767).astype("<i2").tofile(raw)
    (tmp_path / ".asoundrc").write_text(f"""
pcm.hatfile {{
    type file
    slave {{ pcm "null" }}
    file "/dev/null"
    infile "{raw}"
    format "raw"
}}
pcm.hatmic {{
    type plug
    slave {{ pcm "hatfile" channels 4 rate 16000 format S16_LE }}
    hint {{ show on description "Four-microphone test array" }}
}}
""", encoding="utf-8")
    return tmp_path


needs_alsa = pytest.mark.skipif(not Path("/usr/share/alsa/alsa.conf").exists(),
                                reason="ALSA's configuration is not installed (libasound2)")


@needs_alsa
def test_a_live_array_opens_every_channel_and_carries_its_microphones(array_home: Path) -> None:
    code = """
import itertools, json, numpy as np
from facilitator.speech.audio.devices import MicSource
from facilitator.speech.voices.direction import GEOMETRIES, finder
mic = MicSource("hatmic", array=GEOMETRIES["respeaker-4mic-hat"])
frames = list(itertools.islice(mic.frames(), 60))
mic.close()
raw = np.frombuffer(b"".join(f.raw for f in frames[10:]), "<i2").reshape(-1, 4).T
voice = np.frombuffer(b"".join(f.pcm for f in frames[10:]), "<i2")
found = finder(GEOMETRIES["respeaker-4mic-hat"]).bearing(raw)
print(json.dumps({"channels": mic.channels, "sizes": sorted({len(f.raw) // len(f.pcm) for f in frames}),
                  "bearing": found.degrees, "same": bool(np.array_equal(voice, raw[0]))}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=deadline(120),
                          cwd=ROOT, env={**os.environ, "HOME": str(array_home)}, check=False)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["channels"] == 4 and got["sizes"] == [4]
    assert got["same"]                    # the recognizer hears the first microphone
    assert apart(got["bearing"], 125.0) <= 3.0


@needs_alsa
def test_doctor_lists_the_array_and_a_live_bearing(array_home: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[devices]\ninput = "hatmic"\noutput = "hatmic"\narray = "respeaker-4mic-hat"\n',
                      encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "facilitator", "doctor", "--config", str(config),
                           "--seconds", "1"], capture_output=True, text=True, timeout=deadline(180), cwd=ROOT,
                          env={**os.environ, "HOME": str(array_home), "FACILITATOR_CONFIG": str(config)},
                          check=False)
    assert "Traceback" not in done.stderr, done.stderr
    text = done.stdout
    assert ("microphone array: respeaker-4mic-hat, its microphones on channels 0, 1, 2, 3; "
            "the recognizer hears channel 0") in text
    line = next(line for line in text.splitlines() if "bearing of what it hears now" in line)
    degrees = float(line.split("now: ")[1].split(" degrees")[0])
    assert apart(degrees, 125.0) <= 3.0
    assert "level of each channel" in text
