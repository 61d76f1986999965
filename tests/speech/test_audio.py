"""WAV input at any rate a recording has (8 to 384 kHz) and any channel count becomes 16 kHz mono; bad files say so."""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facilitator.errors import SpeechError
from facilitator.speech.audio.devices import Resampler, WavSource, frames_of, read_wav, write_wav
from facilitator.speech.base import FRAME_BYTES, FRAME_MS


def _write(path: Path, samples: np.ndarray, rate: int, width: int = 2) -> None:
    """Interleaved ``samples`` (frames x channels, floats in int16 units) as a WAV."""
    channels = samples.shape[1]
    if width == 1:
        data = (np.clip(samples / 256 + 128, 0, 255)).astype(np.uint8).tobytes()
    elif width == 2:
        data = samples.astype("<i2").tobytes()
    else:
        ints = (samples * 256).astype("<i4")
        data = b"".join(int(v).to_bytes(4, "little", signed=True)[:3] for v in ints.reshape(-1))
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(data)


def _peak_hz(pcm: bytes) -> float:
    x = np.frombuffer(pcm, dtype="<i2").astype(float)
    spectrum = np.abs(np.fft.rfft(x * np.hanning(len(x))))
    return float(np.argmax(spectrum) * 16000 / len(x))


def test_44k1_stereo_becomes_16k_mono_with_pitch_and_length_kept(tmp_path: Path) -> None:
    rate, seconds = 44100, 1.0
    t = np.arange(int(rate * seconds)) / rate
    left = 8000 * np.sin(2 * np.pi * 440 * t)
    right = 8000 * np.sin(2 * np.pi * 440 * t)
    _write(tmp_path / "a.wav", np.stack([left, right], axis=1), rate)
    pcm = read_wav(tmp_path / "a.wav")
    assert len(pcm) // 2 == 16000
    assert abs(_peak_hz(pcm) - 440) < 3
    level = np.abs(np.frombuffer(pcm, dtype="<i2")[200:-200]).max()
    assert 7000 < level < 9000


def test_stereo_channels_are_mixed_not_dropped(tmp_path: Path) -> None:
    t = np.arange(16000) / 16000
    tone = 8000 * np.sin(2 * np.pi * 300 * t)
    _write(tmp_path / "b.wav", np.stack([tone, -tone], axis=1), 16000)
    assert np.abs(np.frombuffer(read_wav(tmp_path / "b.wav"), dtype="<i2")).max() <= 1


def test_content_above_8khz_is_filtered_out_not_aliased(tmp_path: Path) -> None:
    t = np.arange(48000) / 48000
    _write(tmp_path / "c.wav", (8000 * np.sin(2 * np.pi * 12000 * t))[:, None], 48000)
    out = np.frombuffer(read_wav(tmp_path / "c.wav"), dtype="<i2")
    assert np.abs(out[100:-100]).max() < 400  # the 4 kHz alias would be at full level


@pytest.mark.parametrize("width", [1, 3])
def test_8_and_24_bit_files_are_read(tmp_path: Path, width: int) -> None:
    t = np.arange(22050) / 22050
    _write(tmp_path / "d.wav", (8000 * np.sin(2 * np.pi * 500 * t))[:, None], 22050, width=width)
    pcm = read_wav(tmp_path / "d.wav")
    assert len(pcm) // 2 == 16000 and abs(_peak_hz(pcm) - 500) < 3


def test_not_a_wav_missing_file_and_directory_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "x.wav").write_bytes(b"ID3 this is an mp3")
    cases = [(tmp_path / "x.wav", "is an MP3 file, not a WAV file"), (tmp_path / "none.wav", "no such audio file"),
             (tmp_path, "is a directory")]
    for path, words in cases:
        with pytest.raises(SpeechError, match=words):
            read_wav(path)


def test_write_then_read_round_trips(tmp_path: Path) -> None:
    pcm = (np.arange(1600) % 200 * 100 - 10000).astype("<i2").tobytes()
    write_wav(tmp_path / "e.wav", pcm)
    assert read_wav(tmp_path / "e.wav") == pcm


def test_wav_source_gives_timed_frames_then_trailing_silence(tmp_path: Path) -> None:
    pcm = np.full(16000, 1000, dtype="<i2").tobytes()
    write_wav(tmp_path / "f.wav", pcm)
    frames = list(WavSource(tmp_path / "f.wav", trailing_seconds=0.6).frames())
    assert all(len(f.pcm) == FRAME_BYTES for f in frames)
    assert [round(f.t, 3) for f in frames[:3]] == [0.0, FRAME_MS / 1000, 2 * FRAME_MS / 1000]
    assert abs(frames[-1].t - 1.6 + FRAME_MS / 1000) < 0.031
    assert set(frames[-1].pcm) == {0}


def test_frames_of_pads_the_last_frame() -> None:
    frames = list(frames_of(b"\x01\x00" * 500, start=2.0))
    assert len(frames) == 2 and frames[0].t == 2.0 and len(frames[1].pcm) == FRAME_BYTES


@settings(max_examples=25, deadline=None)
@given(rate=st.sampled_from([8000, 22050, 44100, 48000]),
       cuts=st.lists(st.integers(min_value=1, max_value=3000), min_size=1, max_size=8))
def test_streaming_resampler_output_does_not_depend_on_chunking(rate: int, cuts: list[int]) -> None:
    """A microphone delivers blocks of any size: the result must be the same as one block."""
    rng = np.random.default_rng(1)
    signal = rng.normal(0, 3000, sum(cuts))
    whole = Resampler(rate).process(signal)
    stream = Resampler(rate)
    pieces, at = [], 0
    for cut in cuts:
        pieces.append(stream.process(signal[at: at + cut]))
        at += cut
    chunked = np.concatenate(pieces)
    assert len(chunked) == len(whole)
    assert np.allclose(chunked, whole, atol=1e-6)


def test_a_realtime_wav_source_paces_like_a_microphone(tmp_path: Path) -> None:
    import time

    write_wav(tmp_path / "g.wav", bytes(int(0.3 * 16000) * 2))
    began = time.monotonic()
    frames = list(WavSource(tmp_path / "g.wav", realtime=True, trailing_seconds=0.0).frames())
    elapsed = time.monotonic() - began
    assert frames and 0.2 < elapsed < 1.0
