"""The room: reverb, the background talk over the whole session, steady noise, levels.

* ``impulse_response()`` synthesizes a small room (direct sound, a few early
  reflections, an exponentially decaying diffuse tail with RT60 ``rt60`` seconds);
  ``--room IR.wav`` replaces it with a measured one.
* ``background_bed(voices, seconds)``: four other people talking at once for the
  whole session (each a different espeak-ng voice reading ordinary table talk,
  never the players' voices), or ``--background FILE.wav`` looped.
* Levels: every player's line is brought to ``SPEECH_DBFS`` (speech-active
  power); the background talk is set ``snr_db`` below that, steady pink noise
  ``NOISE_BELOW_DB`` below it, and the assistant's voice comes back into the
  microphone ``LEAK_BELOW_DB`` below the players, ``LEAK_DELAY_SECONDS`` late.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.corpus import BABBLE_LINES
from facilitator.speech.base import SAMPLE_RATE

SPEECH_DBFS = -26.0
NOISE_BELOW_DB = 35.0
LEAK_BELOW_DB = 6.0
LEAK_DELAY_SECONDS = 0.12

#: what the background talkers say (other people's conversations, never commands): the
#: clip benchmark's babble lines and two more
BACKGROUND_LINES = BABBLE_LINES + (
    "did you see the match on saturday it went to extra time",
    "the kids have got a school trip next week to the museum",
)
#: the background talkers: espeak-ng voices used by no player
BACKGROUND_VOICES = ("espeak:en-gb-x-gbclan", "espeak:en-us+m5", "espeak:en-us+f2", "espeak:en-us-nyc")


def impulse_response(rt60: float = 0.35, seed: int = 3) -> np.ndarray:
    """A synthetic small-room impulse response (float, direct sound = 1)."""
    rng = np.random.default_rng(seed)
    n = int(rt60 * 1.2 * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    tail = rng.normal(0.0, 1.0, n) * np.exp(-6.9 * t / rt60) * 0.08
    tail[: int(0.004 * SAMPLE_RATE)] = 0.0
    ir = tail
    ir[0] = 1.0
    for delay, gain in ((0.0037, 0.45), (0.0061, 0.35), (0.0094, 0.3), (0.0142, 0.22)):
        ir[int(delay * SAMPLE_RATE)] += gain * (1 if rng.random() < 0.5 else -1)
    return ir


def load_ir(path: Path) -> np.ndarray:
    from .voices import to_16k

    ir = to_16k(path).astype(np.float64)
    peak = np.argmax(np.abs(ir))
    ir = ir[peak:]
    return ir / ir[0]


def reverb(samples: np.ndarray, ir: np.ndarray) -> np.ndarray:
    """``samples`` convolved with ``ir`` (FFT), the tail kept; float out."""
    n = len(samples) + len(ir) - 1
    size = 1 << (n - 1).bit_length()
    out = np.fft.irfft(np.fft.rfft(samples.astype(np.float64), size) * np.fft.rfft(ir, size), size)[:n]
    return out


def active_power(samples: np.ndarray) -> float:
    """Mean power of the speech-active 10 ms pieces (within 30 dB of the loudest)."""
    x = samples.astype(np.float64)
    count = len(x) // 160
    if count == 0:
        return float(np.mean(x**2)) if len(x) else 0.0
    power = np.mean(x[: count * 160].reshape(count, 160) ** 2, axis=1)
    active = power[power >= power.max() / 1000.0]
    return float(np.mean(active)) if len(active) else 0.0


def level(samples: np.ndarray, dbfs: float) -> np.ndarray:
    """``samples`` scaled so their speech-active power is ``dbfs`` (float out)."""
    power = active_power(samples)
    if power <= 0:
        return samples.astype(np.float64)
    target = (32768.0 * 10 ** (dbfs / 20)) ** 2
    return samples.astype(np.float64) * np.sqrt(target / power)


def background_bed(say: object, seconds: float, seed: int, given: Path | None = None) -> np.ndarray:
    """Background talk for ``seconds``, at unit speech-active level (0 dBFS-relative float).

    ``say(spec, text)`` synthesizes (``voices.Voices.say``).  The talkers start at
    different lines and pause briefly between sentences, as people do.
    """
    from .voices import to_16k

    n = int(seconds * SAMPLE_RATE)
    rng = np.random.default_rng(seed)
    if given is not None:
        track = to_16k(given).astype(np.float64)
        reps = n // max(1, len(track)) + 1
        bed = np.tile(track, reps)[:n]
        start = int(rng.integers(0, max(1, len(track))))
        bed = np.roll(bed, -start)
        return bed / np.sqrt(active_power(bed) or 1.0)
    bed = np.sum(background_talkers(say, n, rng), axis=0)
    return bed / np.sqrt(active_power(bed) or 1.0)


def background_talkers(say: object, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Each background talker's own ``n`` samples (every line at unit speech-active
    level), one per ``BACKGROUND_VOICES``: summed for one microphone, or each said from
    its own place in the room for a microphone array."""
    talkers = []
    for k, voice in enumerate(BACKGROUND_VOICES):
        pieces: list[np.ndarray] = []
        total = int(rng.uniform(0, 2.0) * SAMPLE_RATE)
        pieces.append(np.zeros(total))
        i = k
        while total < n:
            line = say(voice, BACKGROUND_LINES[i % len(BACKGROUND_LINES)], 160)  # type: ignore[operator]
            x = line.astype(np.float64)
            x /= np.sqrt(active_power(x) or 1.0)
            gap = np.zeros(int(rng.uniform(0.15, 0.8) * SAMPLE_RATE))
            pieces += [x, gap]
            total += len(x) + len(gap)
            i += 1
        talkers.append(np.concatenate(pieces)[:n])
    return talkers


def pink_noise(seconds: float, seed: int) -> np.ndarray:
    """Steady pink noise (1/f power) at unit power."""
    rng = np.random.default_rng(seed)
    n = int(seconds * SAMPLE_RATE)
    spectrum = np.fft.rfft(rng.normal(0.0, 1.0, n))
    f = np.arange(len(spectrum), dtype=np.float64)
    f[0] = 1.0
    x = np.fft.irfft(spectrum / np.sqrt(f), n)
    return x / np.sqrt(np.mean(x**2))


def phone_band(samples: np.ndarray, low_hz: float = 100.0, high_hz: float = 7000.0) -> np.ndarray:
    """``samples`` through a phone microphone's band: ``low_hz`` to ``high_hz``, with
    raised-cosine edges an octave wide below and a quarter octave above (FFT; float out)."""
    n = len(samples)
    if n == 0:
        return samples.astype(np.float64)
    spectrum = np.fft.rfft(samples.astype(np.float64))
    f = np.fft.rfftfreq(n, 1.0 / SAMPLE_RATE)
    gain = np.ones_like(f)
    lo = (f >= low_hz / 2) & (f < low_hz)
    gain[f < low_hz / 2] = 0.0
    gain[lo] = 0.5 - 0.5 * np.cos(np.pi * np.log2(f[lo] / (low_hz / 2)))
    top = high_hz * 2 ** 0.25
    hi = (f > high_hz) & (f <= top)
    gain[f > top] = 0.0
    gain[hi] = 0.5 + 0.5 * np.cos(np.pi * np.log2(f[hi] / high_hz) / 0.25)
    return np.fft.irfft(spectrum * gain, n)
