"""A plane wave at a microphone array, for the direction and array tests."""

from __future__ import annotations

import numpy as np

from facilitator.speech.voices.direction import SOUND_SPEED, Geometry


def plane_wave(geometry: Geometry, degrees: float, seconds: float = 1.0, seed: int = 0) -> np.ndarray:
    """White noise arriving from ``degrees`` as a plane wave: exact (fractional) delays,
    one row per microphone of ``geometry``, at 16 kHz."""
    rng = np.random.default_rng(seed)
    n = int(16000 * seconds)
    spectrum = np.fft.rfft(rng.normal(0, 3000, n))
    freqs = np.fft.rfftfreq(n, 1 / 16000)
    p = np.asarray(geometry.positions_mm) / 1000
    p = p - p.mean(axis=0)
    u = np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees))])
    lead = p @ u / SOUND_SPEED           # a microphone nearer the source hears it earlier
    return np.stack([np.fft.irfft(spectrum * np.exp(2j * np.pi * freqs * t), n) for t in lead])
