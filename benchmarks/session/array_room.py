"""A table simulated for a microphone array: the room, the seats, the talk around it.

pyroomacoustics (the ``array-sim`` extra) computes the room's response from every
talker to every microphone by the image-source method.  A room (``ROOMS``) says its
size and reverberation, where the array stands on the table (off the room's centre,
turned against the walls), how far and how irregularly round it the seats are, and
how far a player leans off the seat while talking:

* ``lounge``: the room the direction's thresholds were chosen in (5 x 4 x 2.6 m,
  0.55-0.65 s, the array at the centre, seats 0.7-0.9 m away, evenly spaced but for
  up to ``lean_degrees``);
* ``kitchen``: 6.0 x 4.5 x 2.7 m, 0.5 s, the array 0.6 m and 0.4 m off the centre and
  turned 17 degrees, seats 0.62-0.95 m away up to 20 degrees off an even spacing,
  every line said from a point up to 8 degrees round and 5 cm off its seat;
* ``den``: 3.6 x 3.2 x 2.4 m, 0.3 s, the array near a wall, turned 40 degrees;
* ``hall``: 8 x 6 x 3.2 m, 0.8 s, the array 1.2 m and 0.8 m off the centre, turned 73
  degrees, seats 0.7-1.1 m away.

No threshold of the product was chosen in kitchen, den or hall.  Seats are never
closer than ``MIN_GAP_M`` along the table (chairs need the room).  Four background
talkers stand 2-3 m off.  Everything a talker says is convolved with that talker's
own responses, so each microphone hears its own delays and reflections: the
direction is never made up.

The seats' true bearings (``seat_bearing``) are the azimuths of the mouths seen from
the array's centre, in the array's frame (degrees counter-clockwise from its x axis).
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
#: seats are at least this far apart along the table (metres): a chair's width
MIN_GAP_M = 0.45
#: lean points drawn per seat: each line is said from one of them (their responses are kept)
LEANS = 4


@dataclass(frozen=True)
class Shape:
    """One room: ``size`` (m), reverberation drawn from ``rt60``, the array ``offset`` from the
    room's centre (m) and ``turn`` (degrees; None: not turned), the seats' ``distances`` (m) and
    ``irregular`` degrees off an even spacing, and how far a line leans off its seat
    (``lean_degrees`` round the array, ``lean_m`` any way; 0: every line from the seat)."""

    name: str
    size: tuple[float, float, float]
    rt60: tuple[float, float]
    offset: tuple[float, float] = (0.0, 0.0)
    turn: float | None = None
    distances: tuple[float, float] = (0.7, 0.9)
    irregular: float = 10.0
    lean_degrees: float = 0.0
    lean_m: float = 0.0


ROOMS: dict[str, Shape] = {
    "lounge": Shape("lounge", ROOM, (0.55, 0.65)),
    "kitchen": Shape("kitchen", (6.0, 4.5, 2.7), (0.5, 0.5), (0.6, -0.4), 17.0, (0.62, 0.95), 20.0, 8.0, 0.05),
    "den": Shape("den", (3.6, 3.2, 2.4), (0.3, 0.3), (-0.35, 0.3), 40.0, (0.55, 0.8), 20.0, 8.0, 0.05),
    "hall": Shape("hall", (8.0, 6.0, 3.2), (0.8, 0.8), (1.2, 0.8), 73.0, (0.7, 1.1), 20.0, 8.0, 0.05),
}


@dataclass
class Table:
    geometry: Geometry
    seats: int = 4
    seed: int = 1
    rt60: float | None = None
    lean_degrees: float = 10.0
    background: int = 4
    room: str = "lounge"
    positions: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    talkers: list[tuple[float, float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        rng = np.random.default_rng(self.seed)
        shape = ROOMS[self.room]
        self.size = shape.size
        self.shape = shape
        if self.rt60 is None:
            self.rt60 = float(rng.uniform(*shape.rt60))
        self.centre = (shape.size[0] / 2 + shape.offset[0], shape.size[1] / 2 + shape.offset[1], ARRAY_HEIGHT)
        #: the array turned against the room (degrees): its frame is the room's turned this much
        self.turn = 0.0 if shape.turn is None else shape.turn
        spread = self.lean_degrees if self.room == "lounge" else shape.irregular
        while True:   # the seats round the table, never closer than a chair
            start = float(rng.uniform(0, 360))
            places = []
            for seat in range(1, self.seats + 1):
                angle = start + 360.0 * (seat - 1) / self.seats + float(rng.uniform(-spread, spread))
                places.append(self._at(angle, float(rng.uniform(*shape.distances)), MOUTH_HEIGHT))
            if all(math.dist(a[:2], b[:2]) >= MIN_GAP_M for i, a in enumerate(places) for b in places[i + 1:]):
                break
        self.positions = dict(enumerate(places, 1))
        #: where each seat's lines are said from (its seat, or a point it leans to)
        self.leans = {seat: self._leans(place, rng) for seat, place in self.positions.items()}
        while len(self.talkers) < self.background:
            angle, distance = float(rng.uniform(0, 360)), float(rng.uniform(2.0, 3.0))
            x, y, z = self._at(angle, distance, float(rng.uniform(1.1, 1.6)))
            if 0.3 <= x <= self.size[0] - 0.3 and 0.3 <= y <= self.size[1] - 0.3:
                self.talkers.append((x, y, z))
        self._responses: dict[tuple[float, float, float], np.ndarray] = {}

    def _leans(self, place: tuple[float, float, float], rng: np.random.Generator) -> list[tuple[float, float, float]]:
        shape = self.shape
        if shape.lean_degrees <= 0 and shape.lean_m <= 0:
            return [place]
        x, y, z = place
        r = math.hypot(x - self.centre[0], y - self.centre[1])
        angle = math.degrees(math.atan2(y - self.centre[1], x - self.centre[0]))
        out = []
        for _ in range(LEANS):
            a = angle + float(rng.uniform(-shape.lean_degrees, shape.lean_degrees))
            px, py, _ = self._at(a, r, z)
            d = float(rng.uniform(0, shape.lean_m))
            turn = float(rng.uniform(0, 2 * math.pi))
            out.append((px + d * math.cos(turn), py + d * math.sin(turn), z + float(rng.uniform(-0.03, 0.03))))
        return out

    def leaned(self, seat: int, rng: np.random.Generator) -> tuple[float, float, float]:
        """Where one line of ``seat`` is said from: one of its lean points (its seat in the lounge)."""
        points = self.leans[seat]
        return points[int(rng.integers(0, len(points)))]

    def _at(self, degrees: float, distance: float, height: float) -> tuple[float, float, float]:
        r = math.radians(degrees)
        return (self.centre[0] + distance * math.cos(r), self.centre[1] + distance * math.sin(r), height)

    def seat_bearing(self, seat: int) -> float:
        return self.bearing_of(self.positions[seat])

    def bearing_of(self, where: tuple[float, float, float]) -> float:
        """The azimuth of ``where`` seen from the array, in the array's (turned) frame."""
        x, y, _ = where
        return (math.degrees(math.atan2(y - self.centre[1], x - self.centre[0])) - self.turn) % 360.0

    def microphones(self) -> np.ndarray:
        """The microphones' positions (3, M) in the room, metres (the array turned by ``turn``)."""
        p = np.asarray(self.geometry.positions_mm, dtype=np.float64) / 1000.0
        p = p - p.mean(axis=0)
        c, s = math.cos(math.radians(self.turn)), math.sin(math.radians(self.turn))
        x, y = p[:, 0] * c - p[:, 1] * s, p[:, 0] * s + p[:, 1] * c
        return np.stack([x + self.centre[0], y + self.centre[1], np.full(len(p), self.centre[2])])

    def responses(self, source: tuple[float, float, float]) -> np.ndarray:
        """The room's impulse responses (M, samples) from ``source`` to each microphone."""
        if source not in self._responses:
            import pyroomacoustics as pra  # type: ignore[import-untyped]

            absorption, order = pra.inverse_sabine(self.rt60, self.size)
            room = pra.ShoeBox(self.size, fs=SAMPLE_RATE, materials=pra.Material(absorption),
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

