"""The session's table heard at a microphone array (``--mode array``).

Everything the table mode's single microphone hears (``TableAudio``: steady noise,
the background talk, the players, the referee's own voice) is heard here at each
microphone of the array from where it is said, through the simulated room of
``array_room.py`` (pyroomacoustics' image-source responses; the room one of
``array_room.ROOMS``):

* each player's line from that player's seat, or a point it leans to (``Table.leaned``);
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

import numpy as np

from facilitator.speech.base import SAMPLE_RATE
from facilitator.speech.voices.direction import Geometry

from . import room
from .array_room import Table as Room
from .table import TableAudio

#: the referee's loudspeaker: this far beside the array, this much above it (metres)
SPEAKER_OFFSET = (0.10, 0.0, 0.05)


class ArrayAudio(TableAudio):
    """The table at a microphone array: ``TableAudio`` with one row per microphone, every
    sound said from its place through the room's responses (so no impulse response of
    its own: ``said_by`` and ``from_speaker`` are the room's)."""

    def __init__(self, room_: Room, bed: np.ndarray, raw: bool = True, seed: int = 0) -> None:
        """``bed``: (M, n) steady noise and background talk at their levels; ``raw``: frames
        carry the raw microphones (False: the first microphone alone, as a single
        microphone at the array's place)."""
        super().__init__(bed, np.ones(1), raw=raw)
        self.room = room_
        self.lean_rng = np.random.default_rng(seed + 5)   # where each line leans to (``Table.leaned``)
        cx, cy, cz = room_.centre
        self.speaker = (cx + SPEAKER_OFFSET[0], cy + SPEAKER_OFFSET[1], cz + SPEAKER_OFFSET[2])

    def from_place(self, samples: np.ndarray, source: tuple[float, float, float]) -> np.ndarray:
        """``samples`` said at ``source``: (M, n) at the microphones, the voice microphone's
        direct sound at the level ``samples`` have (as ``room.reverb`` keeps it)."""
        ir = self.room.responses(source)
        return self.room.render(samples, source) / float(np.max(np.abs(ir[0])))

    def said_by(self, samples: np.ndarray, seat: int) -> np.ndarray:
        return self.from_place(samples, self.room.leaned(seat, self.lean_rng))

    def from_speaker(self, samples: np.ndarray) -> np.ndarray:
        return self.from_place(samples, self.speaker)


def array_audio(geometry: Geometry, seats: int, seed: int, seconds: float, snr_db: float | None,
                say: object, raw: bool = True, room_name: str = "lounge") -> ArrayAudio:
    """The session's table at ``geometry`` with ``seats`` players in the room ``room_name``
    (``array_room.ROOMS``; its seats seeded): steady noise at every microphone and, with
    ``snr_db``, the background talkers each said from their own place."""
    room_ = Room(geometry, seats=seats, seed=seed, room=room_name)
    n = int(seconds * SAMPLE_RATE)
    m = len(geometry.channels)
    noise_level = 32768.0 * 10 ** ((room.SPEECH_DBFS - room.NOISE_BELOW_DB) / 20)
    bed = np.stack([room.pink_noise(seconds, seed + 7 * k)[:n] for k in range(m)]) * noise_level
    audio = ArrayAudio(room_, bed, raw, seed)
    if snr_db is not None:
        rng = np.random.default_rng(seed)
        talk = np.zeros((m, n))
        for track, place in zip(room.background_talkers(say, n, rng), room_.talkers, strict=False):
            talk += audio.from_place(track, place)[:, :n]
        talk *= 32768.0 * 10 ** ((room.SPEECH_DBFS - snr_db) / 20) / math.sqrt(room.active_power(talk[0]) or 1.0)
        audio.bed += talk.astype(np.float32)
    return audio
