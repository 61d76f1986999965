"""A table simulated for a microphone array: the room, the seats, the talk around it.

pyroomacoustics (the ``array-sim`` extra) computes the room's response from every
talker to every microphone by the image-source method: a 5 x 4 x 2.6 m room whose
walls give ``rt60`` seconds of reverberation (0.55-0.65 s), the array on the
table at the room's centre (0.8 m up), ``seats`` players around it 0.7-0.9 m away
at their mouths' height (1.15 m), each leaning up to ``lean_degrees`` off their
seat's bearing, and four background talkers 2-3 m off.  Everything a talker says
is convolved with that talker's own responses, so each microphone hears its own
delays and reflections: the direction is never made up.

The seats' true bearings (``seat_bearing``) are the azimuths of the mouths seen from
the array's centre, in the array's frame (degrees counter-clockwise from x).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from facilitator.speech.base import SAMPLE_RATE
from facilitator.speech.voices.direction import Geometry

ROOM = (5.0, 4.0, 2.6)
ARRAY_HEIGHT = 0.8
MOUTH_HEIGHT = 1.15


@dataclass
class Table:
    geometry: Geometry
    seats: int = 4
    seed: int = 1
    rt60: float | None = None
    lean_degrees: float = 10.0
    background: int = 4
    positions: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    talkers: list[tuple[float, float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        rng = np.random.default_rng(self.seed)
        if self.rt60 is None:
            self.rt60 = float(rng.uniform(0.55, 0.65))
        self.centre = (ROOM[0] / 2, ROOM[1] / 2, ARRAY_HEIGHT)
        turn = float(rng.uniform(0, 360))     # the table's seats relative to the array's x axis
        for seat in range(1, self.seats + 1):
            angle = turn + 360.0 * (seat - 1) / self.seats + float(rng.uniform(-self.lean_degrees, self.lean_degrees))
            self.positions[seat] = self._at(angle, float(rng.uniform(0.7, 0.9)), MOUTH_HEIGHT)
        while len(self.talkers) < self.background:
            angle, distance = float(rng.uniform(0, 360)), float(rng.uniform(2.0, 3.0))
            x, y, z = self._at(angle, distance, float(rng.uniform(1.1, 1.6)))
            if 0.3 <= x <= ROOM[0] - 0.3 and 0.3 <= y <= ROOM[1] - 0.3:
                self.talkers.append((x, y, z))
        self._responses: dict[tuple[float, float, float], np.ndarray] = {}

    def _at(self, degrees: float, distance: float, height: float) -> tuple[float, float, float]:
        r = math.radians(degrees)
        return (self.centre[0] + distance * math.cos(r), self.centre[1] + distance * math.sin(r), height)

    def seat_bearing(self, seat: int) -> float:
        x, y, _ = self.positions[seat]
        return math.degrees(math.atan2(y - self.centre[1], x - self.centre[0])) % 360.0

    def microphones(self) -> np.ndarray:
        """The microphones' positions (3, M) in the room, metres."""
        p = np.asarray(self.geometry.positions_mm, dtype=np.float64) / 1000.0
        p = p - p.mean(axis=0)
        return np.stack([p[:, 0] + self.centre[0], p[:, 1] + self.centre[1],
                         np.full(len(p), self.centre[2])])

    def responses(self, source: tuple[float, float, float]) -> np.ndarray:
        """The room's impulse responses (M, samples) from ``source`` to each microphone."""
        if source not in self._responses:
            import pyroomacoustics as pra  # type: ignore[import-untyped]

            absorption, order = pra.inverse_sabine(self.rt60, ROOM)
            room = pra.ShoeBox(ROOM, fs=SAMPLE_RATE, materials=pra.Material(absorption),
                               max_order=order, air_absorption=False)
            room.add_source(list(source))
            room.add_microphone_array(pra.MicrophoneArray(self.microphones(), SAMPLE_RATE))
            room.compute_rir()
            length = max(len(room.rir[m][0]) for m in range(len(room.rir)))
            out = np.zeros((len(room.rir), length))
            for m in range(len(room.rir)):
                out[m, : len(room.rir[m][0])] = room.rir[m][0]
            self._responses[source] = out
        return self._responses[source]

    def render(self, pcm: bytes | np.ndarray, source: tuple[float, float, float]) -> np.ndarray:
        """``pcm`` (mono int16) said at ``source``: what each microphone hears (M, samples), float."""
        from scipy.signal import fftconvolve

        x = np.frombuffer(pcm, dtype="<i2").astype(np.float64) if isinstance(pcm, bytes) else pcm
        ir = self.responses(source)
        return np.stack([fftconvolve(x, h)[: len(x) + SAMPLE_RATE // 4] for h in ir])

    def seat_says(self, seat: int, pcm: bytes | np.ndarray) -> np.ndarray:
        return self.render(pcm, self.positions[seat])

