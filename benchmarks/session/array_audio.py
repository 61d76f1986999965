"""The session's table heard at a microphone array (``--mode array``).

Everything the table mode's single microphone hears (``TableAudio``: steady noise,
the background talk, the players, the referee's own voice) is heard here at each
microphone of the array from where it is said, through the simulated room of
``array_room.py`` (pyroomacoustics' image-source responses, 0.55-0.65 s of
reverberation):

* each player's line from that player's seat (``Table.positions``);
* each background talker from their own place 2-3 m off (``Table.talkers``), the
  four together ``snr_db`` below the players at the voice microphone;
* the referee's voice from a loudspeaker beside the array;
* steady pink noise, independent at each microphone (a diffuse hum), at the level
  the single microphone has it.

Levels are set at the voice microphone exactly as ``room.py`` sets them at the single
one: a response is scaled so its direct sound there is 1, as ``room.impulse_response``
is.  Frames carry the voice microphone as ``Frame.pcm`` (what the recognizer hears,
as ``--array`` does with a recorded table) and every raw microphone in ``Frame.raw``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from facilitator.speech.base import SAMPLE_RATE, SAMPLE_WIDTH, Frame
from facilitator.speech.voices.direction import Geometry

from . import room
from .array_room import Table as Room
from .array_room import interleave
from .table import FRAME_SAMPLES, RECENT_FRAMES, TableAudio

#: the referee's loudspeaker: this far beside the array, this much above it (metres)
SPEAKER_OFFSET = (0.10, 0.0, 0.05)


class ArrayAudio(TableAudio):
    """The table at a microphone array: ``TableAudio``'s sounds, one row per microphone."""

    def __init__(self, room_: Room, noise: np.ndarray, talk: np.ndarray | None, raw: bool = True) -> None:
        """``noise``: (M, n) steady noise at its level; ``talk``: (M, n) background talk
        at its level, or None in a quiet room; ``raw``: frames carry the raw microphones
        (False: the first microphone alone, as a single microphone at the array's place)."""
        bed = noise if talk is None else noise + talk
        super().__init__(np.zeros(0, dtype=np.int16), np.ones(1))
        self.room = room_
        self.beds = bed.astype(np.float32)
        self.microphones = bed.shape[0]
        self.raw = raw
        self.array_sounds: list[tuple[int, np.ndarray]] = []
        cx, cy, cz = room_.centre
        self.speaker = (cx + SPEAKER_OFFSET[0], cy + SPEAKER_OFFSET[1], cz + SPEAKER_OFFSET[2])

    def from_place(self, samples: np.ndarray, source: tuple[float, float, float]) -> np.ndarray:
        """``samples`` said at ``source``: (M, n) at the microphones, the voice microphone's
        direct sound at the level ``samples`` have (as ``room.reverb`` keeps it)."""
        ir = self.room.responses(source)
        return self.room.render(samples, source) / float(np.max(np.abs(ir[0])))

    def said_by(self, samples: np.ndarray, seat: int) -> np.ndarray:
        return self.from_place(samples, self.room.positions[seat])

    def add(self, samples: np.ndarray, at: float) -> None:
        """(M, n) samples starting at stream time ``at``."""
        first = round(at * SAMPLE_RATE)
        if first < self.position:
            samples = samples[:, self.position - first:]
            first = self.position
        if samples.shape[1]:
            self.array_sounds.append((first, samples.astype(np.float32)))

    def leak(self, pcm: bytes, rate: int, at: float) -> float:
        from facilitator.speech.audio.devices import convert

        if rate != SAMPLE_RATE:
            pcm = convert(pcm, rate, 1, SAMPLE_WIDTH)
        x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
        if len(x):
            said = room.level(x, room.SPEECH_DBFS - room.LEAK_BELOW_DB)
            self.add(self.from_place(said, self.speaker), at + room.LEAK_DELAY_SECONDS)
        return len(x) / SAMPLE_RATE

    def until(self, t: float) -> Iterator[Frame]:
        end = math.ceil(round(t * SAMPLE_RATE, 6))
        while self.position < end and not self.closed:
            a, b = self.position, self.position + FRAME_SAMPLES
            chunk = np.zeros((self.microphones, FRAME_SAMPLES), dtype=np.float32)
            if a < self.beds.shape[1]:
                piece = self.beds[:, a: min(b, self.beds.shape[1])]
                chunk[:, : piece.shape[1]] += piece
            keep = []
            for first, samples in self.array_sounds:
                lo, hi = max(a, first), min(b, first + samples.shape[1])
                if hi > lo:
                    chunk[:, lo - a: hi - a] += samples[:, lo - first: hi - first]
                if first + samples.shape[1] > b:
                    keep.append((first, samples))
            self.array_sounds = keep
            voice = chunk[0]
            pcm = np.clip(np.round(voice), -32768, 32767).astype("<i2").tobytes()
            self.recent.append(voice)
            del self.recent[:-RECENT_FRAMES]
            self.position = b
            if self.recording is not None:
                self.recording.append(pcm)
            yield Frame(pcm, a / SAMPLE_RATE, interleave(chunk) if self.raw else b"")


def array_audio(geometry: Geometry, seats: int, seed: int, seconds: float, snr_db: float | None,
                say: object, raw: bool = True) -> ArrayAudio:
    """The session's table at ``geometry`` with ``seats`` players: its room (seeded),
    steady noise at every microphone and, with ``snr_db``, the background talkers each
    said from their own place."""
    room_ = Room(geometry, seats=seats, seed=seed)
    n = int(seconds * SAMPLE_RATE)
    m = len(geometry.channels)
    noise_level = 32768.0 * 10 ** ((room.SPEECH_DBFS - room.NOISE_BELOW_DB) / 20)
    noise = np.stack([room.pink_noise(seconds, seed + 7 * k)[:n] for k in range(m)]) * noise_level
    audio = ArrayAudio(room_, noise, None, raw)
    if snr_db is not None:
        rng = np.random.default_rng(seed)
        talk = np.zeros((m, n))
        for track, place in zip(room.background_talkers(say, n, rng), room_.talkers, strict=False):
            talk += audio.from_place(track, place)[:, :n]
        talk *= 32768.0 * 10 ** ((room.SPEECH_DBFS - snr_db) / 20) / math.sqrt(room.active_power(talk[0]) or 1.0)
        audio.beds = (audio.beds + talk).astype(np.float32)
    return audio
