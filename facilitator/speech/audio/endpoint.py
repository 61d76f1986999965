"""Endpointing: cut a stream of frames into utterances with webrtcvad and a noise floor.

A frame counts as the player's voice when webrtcvad hears speech in it *and* it
is at least ``floor_margin_db`` louder than the noise floor, tracked as a low
percentile of the frame energies of the last ``floor_window_seconds``.  Other
people talking in the background are speech too, so webrtcvad alone never
hears the end of a command in a room where people talk: the utterance runs to
``max_seconds``, overlaps the assistant's answer and is lost.  The background's
level is what the floor follows, so a command spoken at the table (louder than
the talk behind it) still ends where the player stops.

An utterance starts when most of the last ``start_seconds`` of frames are voiced
(the audio just before is kept as padding, so the first phone is not clipped),
and ends after ``silence_seconds`` without voice, or after ``max_seconds``.  With
a ``complete`` callback (for instance a recognizer asking "is this already a
whole command?"), a shorter pause of ``early_silence_seconds`` is enough when
the callback says yes, so short commands are answered sooner.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, insort
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ..base import SAMPLE_RATE, SAMPLE_WIDTH, Frame, Segment

_VAD_MS = (10, 20, 30)


@dataclass
class _Utterance:
    frames: list[Frame]
    first_voiced: float
    last_voiced_end: float
    voiced_seconds: float
    silence_run: float = 0.0
    asked_at_run: bool = False


class Endpointer:
    """webrtcvad endpointer; ``segments(frames)`` yields one Segment per utterance.

    ``aggressiveness`` 0-3 (webrtcvad's mode; higher drops more noise),
    ``silence_seconds`` of quiet end an utterance, ``max_seconds`` cut a long one,
    ``padding_seconds`` of audio are kept before the voice starts and after it
    ends, an utterance with under ``min_voiced_seconds`` of voice is dropped
    (a knock on the table), and ``complete(pcm) -> bool`` may end it after only
    ``early_silence_seconds``.  ``floor_margin_db`` (0 turns the floor off) is how
    much louder than the tracked noise floor a voiced frame must be; the floor is
    the ``floor_percentile`` of the last ``floor_window_seconds`` of frame energies.
    Below ``silent_floor_db`` (dB of 16-bit sample units; 20 dB is about -70 dBFS)
    the input is silent, there is nothing to rise above, and webrtcvad decides alone.
    """

    def __init__(self, aggressiveness: int = 2, silence_seconds: float = 0.5, max_seconds: float = 8.0,
                 padding_seconds: float = 0.3, start_seconds: float = 0.15, min_voiced_seconds: float = 0.2,
                 complete: Callable[[bytes], bool] | None = None, early_silence_seconds: float = 0.2,
                 floor_margin_db: float = 9.0, floor_window_seconds: float = 4.0,
                 floor_percentile: float = 0.2, silent_floor_db: float = 20.0) -> None:
        import webrtcvad  # type: ignore[import-untyped]

        if not 0 <= aggressiveness <= 3:
            raise ValueError(f"aggressiveness must be 0 to 3, not {aggressiveness!r}")
        self._vad = webrtcvad.Vad(aggressiveness)
        self.silence_seconds = silence_seconds
        self.max_seconds = max_seconds
        self.padding_seconds = padding_seconds
        self.start_seconds = start_seconds
        self.min_voiced_seconds = min_voiced_seconds
        self.complete = complete
        self.early_silence_seconds = early_silence_seconds
        self.floor_margin_db = floor_margin_db
        self.floor_window_seconds = floor_window_seconds
        self.floor_percentile = floor_percentile
        self.silent_floor_db = silent_floor_db
        #: when the utterance held open now began (its first voiced frame), until the one
        #: handed on has been heard; None: none is open
        self.speech_since: float | None = None
        self._energies: deque[float] = deque()
        self._sorted: list[float] = []
        self._frame_seconds = 0.03

    @staticmethod
    def energy_db(pcm: bytes) -> float:
        """A frame's mean power in dB of 16-bit sample units (digital silence is 0 dB)."""
        samples = array("h", pcm[: len(pcm) // SAMPLE_WIDTH * SAMPLE_WIDTH])
        if not samples:
            return 0.0
        return 10.0 * math.log10(sum(x * x for x in samples) / len(samples) + 1.0)

    def noise_floor(self) -> float:
        """The tracked noise floor (dB); 0 until a second of frames was seen (nothing to go by)."""
        if not self._sorted or len(self._sorted) * self._frame_seconds < 1.0:
            return 0.0
        return self._sorted[min(len(self._sorted) - 1, int(self.floor_percentile * len(self._sorted)))]

    def above_floor(self, pcm: bytes, seconds: float) -> bool:
        """Track the floor with this frame; whether the frame is ``floor_margin_db`` above it."""
        if self.floor_margin_db <= 0:
            return True
        level = self.energy_db(pcm)
        self._frame_seconds = seconds
        self._energies.append(level)
        insort(self._sorted, level)
        while len(self._energies) * seconds > self.floor_window_seconds:
            old = self._energies.popleft()
            del self._sorted[bisect_left(self._sorted, old)]
        floor = self.noise_floor()
        if floor < self.silent_floor_db:
            return True   # a silent input (digital silence, about -70 dBFS or less): webrtcvad alone
        return level >= floor + self.floor_margin_db

    def is_speech(self, pcm: bytes) -> bool:
        """webrtcvad's verdict on one frame (frames of other lengths are cut to 10 ms pieces)."""
        ms = len(pcm) * 1000 // (SAMPLE_RATE * SAMPLE_WIDTH)
        if ms in _VAD_MS and len(pcm) % SAMPLE_WIDTH == 0:
            return bool(self._vad.is_speech(pcm, SAMPLE_RATE))
        step = SAMPLE_RATE // 100 * SAMPLE_WIDTH
        pieces = [pcm[i: i + step] for i in range(0, len(pcm) - step + 1, step)]
        if not pieces:
            return False
        return sum(bool(self._vad.is_speech(p, SAMPLE_RATE)) for p in pieces) * 2 > len(pieces)

    def segments(self, frames: Iterable[Frame]) -> Iterator[Segment]:
        """Utterances in ``frames``, in order; an utterance open at the end is closed."""
        before: deque[tuple[Frame, bool]] = deque()
        current: _Utterance | None = None
        for frame in frames:
            seconds = len(frame.pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)
            loud = self.above_floor(frame.pcm, seconds)
            voiced = loud and self.is_speech(frame.pcm)
            if current is None:
                before.append((frame, voiced))
                keep = max(self.padding_seconds, self.start_seconds)
                while before and before[-1][0].t - before[0][0].t > keep:
                    before.popleft()
                recent = [v for f, v in before if frame.t - f.t < self.start_seconds]
                if voiced and sum(recent) * 2 > len(recent):
                    onset = next(f.t for f, v in before if v and frame.t - f.t < self.start_seconds)
                    current = _Utterance([f for f, _ in before], onset, frame.t + seconds,
                                         sum(seconds for f, v in before if v and f.t >= onset))
                    self.speech_since = onset
                    before.clear()
                continue
            current.frames.append(frame)
            if voiced:
                current.last_voiced_end = frame.t + seconds
                current.voiced_seconds += seconds
                current.silence_run = 0.0
                current.asked_at_run = False
            else:
                current.silence_run += seconds
            if self._should_end(current, frame.t + seconds):
                segment = self._close(current)
                current = None
                if segment is not None:
                    yield segment   # still "open" while it is heard: a question's window waits for it
                self.speech_since = None
        if current is not None:
            segment = self._close(current)
            if segment is not None:
                yield segment
            self.speech_since = None

    def _should_end(self, utterance: _Utterance, now: float) -> bool:
        if utterance.silence_run >= self.silence_seconds:
            return True
        if now - utterance.first_voiced >= self.max_seconds:
            return True
        if (self.complete is not None and not utterance.asked_at_run
                and utterance.silence_run >= self.early_silence_seconds):
            utterance.asked_at_run = True
            return bool(self.complete(b"".join(f.pcm for f in utterance.frames)))
        return False

    def _close(self, utterance: _Utterance) -> Segment | None:
        if utterance.voiced_seconds < self.min_voiced_seconds:
            return None
        keep_until = utterance.last_voiced_end + self.padding_seconds
        kept = [f for f in utterance.frames if f.t < keep_until]
        pcm = b"".join(f.pcm for f in kept)
        # an array's raw microphones ride along, sample for sample, when every frame has them
        raw = b"".join(f.raw for f in kept) if all(f.raw for f in kept) else b""
        microphones = len(raw) // len(pcm) if raw and pcm else 0
        return Segment(pcm, utterance.first_voiced, utterance.last_voiced_end,
                       pcm_start=utterance.frames[0].t, raw=raw if microphones else b"",
                       microphones=microphones)
