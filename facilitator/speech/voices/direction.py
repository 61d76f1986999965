"""Where a voice comes from: the bearing of one utterance at a small microphone array.

A geometry names where the array's raw microphones are (millimetres, in the
array's plane) and which channels of the input carry them::

    respeaker-4mic-hat   4 microphones on a circle 81.3 mm across (opposite pairs 0-2 and
                         1-3, as Seeed's own direction code has them), channels 0-3:
                         0 at (-40.6, 0), 1 at (0, 40.6), 2 at (40.6, 0), 3 at (0, -40.6) mm
    respeaker-usb-v2     4 raw microphones on a circle of 32 mm radius, channels 1-4 (the
                         6-channel firmware; channel 0 is the array's own processed voice,
                         channel 5 its playback): 1 at (-32, 0), 2 at (0, -32), 3 at
                         (32, 0), 4 at (0, 32) mm
    ps3-eye              4 microphones in a line, 20 mm apart (channels 0-3)
    "x,y; x,y; ..."      your own: one position a microphone, in millimetres, on
                         channels 0, 1, ... in that order

``bearing(channels, geometry)`` is NormMUSIC over the utterance: the spatial
covariance of every frequency bin from 300 to 3,500 Hz, its noise subspace
(every eigenvector but the strongest), the MUSIC pseudo-spectrum over a circle of
azimuths (one degree apart), each bin's spectrum scaled to a peak of one so that
no bin dominates, summed; the peak is the bearing.  Bearings are degrees
counter-clockwise from the array's x axis, 0 to 360.  A line of microphones
cannot tell front from back: its bearings are folded to 0-180.

``clarity`` says how much the peak stands out of the summed spectrum (its peak
over its mean, 1 = flat): a voice in a corner of reverberation or two talkers at
once give a flat spectrum.

Measured against pyroomacoustics' own NormMUSIC on simulated rooms in
``tests/test_direction.py`` and ``benchmarks/speakers.py --array``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..base import SAMPLE_RATE

#: the speed of sound (m/s) at a room's temperature
SOUND_SPEED = 343.0
#: the band the bearing is measured in (Hz): voice, under the arrays' spatial aliasing
LOW_HZ = 300.0
HIGH_HZ = 3500.0
NFFT = 512
GRID_DEGREES = 1.0


@dataclass(frozen=True)
class Geometry:
    """An array's raw microphones: ``positions_mm`` (x, y) and the input channel of each;
    ``voice_channel`` is the channel the recognizer hears (the array's processed one, or
    the first raw microphone)."""

    name: str
    positions_mm: tuple[tuple[float, float], ...]
    channels: tuple[int, ...]
    voice_channel: int

    @property
    def linear(self) -> bool:
        """All microphones on one line: front and back are one."""
        p = np.asarray(self.positions_mm, dtype=np.float64)
        centred = p - p.mean(axis=0)
        return bool(np.linalg.matrix_rank(centred, tol=1e-6) < 2)

    @property
    def input_channels(self) -> int:
        """How many channels the input must be opened with."""
        return max(*self.channels, self.voice_channel) + 1

    def __str__(self) -> str:
        return self.name


#: the arrays' microphones in channel order, as the ODAS project's configurations for these
#: boards place them (x, y in mm, the board seen from above); the HAT's spacing is also Seeed's
#: own (81.27 mm between opposite microphones in its direction-of-arrival code)
GEOMETRIES: dict[str, Geometry] = {
    "respeaker-4mic-hat": Geometry("respeaker-4mic-hat", ((-40.6, 0.0), (0.0, 40.6), (40.6, 0.0), (0.0, -40.6)),
                                   (0, 1, 2, 3), 0),
    "respeaker-usb-v2": Geometry("respeaker-usb-v2", ((-32.0, 0.0), (0.0, -32.0), (32.0, 0.0), (0.0, 32.0)),
                                 (1, 2, 3, 4), 0),
    "ps3-eye": Geometry("ps3-eye", ((-30.0, 0.0), (-10.0, 0.0), (10.0, 0.0), (30.0, 0.0)), (0, 1, 2, 3), 0),
}

_NUMBER = r"\s*(-?\d+(?:\.\d+)?)\s*"
_POSITION = re.compile(rf"^{_NUMBER},{_NUMBER}$")


def find_geometry(text: str) -> Geometry:
    """The geometry a setting names: a known array, or positions in millimetres
    (``"x,y; x,y; ..."``, at least two microphones, on channels 0, 1, ...).
    ValueError with what is accepted otherwise."""
    key = text.strip().lower()
    if key in GEOMETRIES:
        return GEOMETRIES[key]
    if ";" not in key and "," not in key:
        known = ", ".join(GEOMETRIES)
        raise ValueError(f"unknown microphone array {text!r}: one of {known}, "
                         "or microphone positions in millimetres such as \"-20,0; 20,0; 0,30\"")
    positions = []
    for part in key.split(";"):
        if not part.strip():
            continue
        m = _POSITION.match(part)
        if m is None:
            raise ValueError(f"microphone position {part.strip()!r} in {text!r} is not \"x,y\" in millimetres")
        positions.append((float(m.group(1)), float(m.group(2))))
    if len(positions) < 2:
        raise ValueError(f"a microphone array needs at least two positions, not {len(positions)} in {text!r}")
    if len(set(positions)) < len(positions):
        raise ValueError(f"two microphones at one position in {text!r}")
    spread = max(float(np.hypot(a[0] - b[0], a[1] - b[1])) for a in positions for b in positions)
    if spread > 500:
        raise ValueError(f"microphones {spread:.0f} mm apart in {text!r}: an array is a few centimetres across")
    return Geometry("custom", tuple(positions), tuple(range(len(positions))), 0)


@dataclass(frozen=True)
class Bearing:
    """Where one utterance came from: ``degrees`` (0-360, counter-clockwise from the array's
    x axis) and ``clarity`` (the summed spectrum's peak over its mean; 1 is flat)."""

    degrees: float
    clarity: float


class Finder:
    """NormMUSIC for one geometry at 16 kHz (the steering vectors made once)."""

    def __init__(self, geometry: Geometry, rate: int = SAMPLE_RATE, nfft: int = NFFT,
                 low_hz: float = LOW_HZ, high_hz: float = HIGH_HZ, grid_degrees: float = GRID_DEGREES) -> None:
        self.geometry = geometry
        self.nfft = nfft
        freqs = np.fft.rfftfreq(nfft, 1 / rate)
        self.bins = np.flatnonzero((freqs >= low_hz) & (freqs <= high_hz))
        span = 180.0 if geometry.linear else 360.0
        self.grid = np.arange(0.0, span, grid_degrees)
        theta = np.deg2rad(self.grid)
        positions = np.asarray(geometry.positions_mm, dtype=np.float64) / 1000.0
        positions = positions - positions.mean(axis=0)
        # a plane wave from azimuth theta reaches microphone m earlier by (p_m . u) / c
        delays = positions @ np.stack([np.cos(theta), np.sin(theta)]) / SOUND_SPEED   # (M, G)
        f = freqs[self.bins]
        self.steering = np.exp(2j * np.pi * f[:, None, None] * delays[None, :, :])      # (F, M, G)
        self.window = np.hanning(nfft)

    def spectrum(self, channels: np.ndarray) -> np.ndarray:
        """The summed normalised MUSIC spectrum over the grid for ``channels`` (M, samples)."""
        m, n = channels.shape
        hop = self.nfft // 2
        if n < self.nfft:
            return np.zeros(len(self.grid))
        count = 1 + (n - self.nfft) // hop
        index = np.arange(self.nfft)[None, :] + hop * np.arange(count)[:, None]
        frames = channels[:, index] * self.window                                 # (M, T, N)
        x = np.fft.rfft(frames, axis=-1)[:, :, self.bins]                          # (M, T, F)
        x = np.transpose(x, (2, 0, 1))                                              # (F, M, T)
        cov = x @ np.conj(np.transpose(x, (0, 2, 1))) / count                       # (F, M, M)
        _, vectors = np.linalg.eigh(cov)                                           # ascending
        noise = vectors[:, :, : m - 1]                                              # (F, M, M-1)
        projected = np.conj(np.transpose(noise, (0, 2, 1))) @ self.steering         # (F, M-1, G)
        power = 1.0 / np.maximum(np.sum(np.abs(projected) ** 2, axis=1), 1e-12)    # (F, G)
        power /= power.max(axis=1, keepdims=True)
        return np.asarray(power.sum(axis=0))

    def bearing(self, channels: np.ndarray) -> Bearing | None:
        """The bearing of ``channels`` (M, samples, float or int16); None when it is silent
        or too short to say."""
        data = np.asarray(channels, dtype=np.float64)
        if data.ndim != 2 or data.shape[0] != len(self.geometry.positions_mm):
            raise ValueError(f"{self.geometry.name} has {len(self.geometry.positions_mm)} microphones, "
                             f"not {data.shape[0] if data.ndim == 2 else 'a'} channel(s)")
        if data.shape[1] < self.nfft or not np.any(data):
            return None
        spectrum = self.spectrum(data)
        mean = float(spectrum.mean())
        if mean <= 0:
            return None
        best = int(np.argmax(spectrum))
        return Bearing(float(self.grid[best]), float(spectrum[best]) / mean)


_FINDERS: dict[Geometry, Finder] = {}


def finder(geometry: Geometry) -> Finder:
    """The (cached) finder of ``geometry``."""
    if geometry not in _FINDERS:
        _FINDERS[geometry] = Finder(geometry)
    return _FINDERS[geometry]


def apart(a: float, b: float) -> float:
    """The angle between two bearings (degrees, 0-180)."""
    d = (a - b) % 360.0
    return min(d, 360.0 - d)


def toward(old: float, new: float, weight: float) -> float:
    """``old`` moved ``weight`` of the way to ``new`` along the shorter arc (0-360)."""
    d = (new - old + 180.0) % 360.0 - 180.0
    return (old + weight * d) % 360.0
