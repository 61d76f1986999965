"""The benchmark's noise mixer gives the signal-to-noise ratio it is asked for."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.corpus import PAD_SECONDS, SAMPLE_RATE, active_power, mix


def _tone(seconds: float, level: float) -> bytes:
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    return np.round(level * np.sin(2 * np.pi * 440 * t)).astype("<i2").tobytes()


@settings(max_examples=25, deadline=None)
@given(snr=st.sampled_from([5.0, 10.0, 20.0]), level=st.floats(500, 8000), seed=st.integers(0, 10_000),
       kind=st.sampled_from(["white", "babble"]))
def test_measured_snr_is_the_asked_snr(snr: float, level: float, seed: int, kind: str) -> None:
    talker = np.random.default_rng(1).normal(0, 2000, SAMPLE_RATE * 3)
    pcm, measured = mix(_tone(1.0, level), kind, snr, seed, [talker, talker[::-1]])
    assert abs(measured - snr) < 0.3
    voice = np.frombuffer(pcm, dtype="<i2")
    assert len(voice) == SAMPLE_RATE + 2 * int(PAD_SECONDS * SAMPLE_RATE)


def test_clean_only_pads_with_silence() -> None:
    tone = _tone(0.5, 3000)
    pcm, measured = mix(tone, "clean", 0.0, 0, [])
    pad = int(PAD_SECONDS * SAMPLE_RATE) * 2
    assert measured == float("inf")
    assert pcm[:pad] == bytes(pad) and pcm[pad:pad + len(tone)] == tone


def test_active_power_ignores_the_silence_around_speech() -> None:
    tone = np.frombuffer(_tone(0.5, 3000), dtype="<i2").astype(float)
    padded = np.concatenate([np.zeros(16_000), tone, np.zeros(16_000)])
    assert abs(active_power(padded) - active_power(tone)) / active_power(tone) < 0.01
