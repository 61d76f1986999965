"""Endpointing: cut a stream of frames into utterances with webrtcvad.

An utterance starts when most of the last ``start_seconds`` of frames are voiced
(the audio just before is kept as padding, so the first phone is not clipped),
and ends after ``silence_seconds`` without voice, or after ``max_seconds``.  With
a ``complete`` callback (for instance a recognizer asking "is this already a
whole command?"), a shorter pause of ``early_silence_seconds`` is enough when
the callback says yes, so short commands are answered sooner.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .base import SAMPLE_RATE, SAMPLE_WIDTH, Frame, Segment

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
    ``early_silence_seconds``.
    """

    def __init__(self, aggressiveness: int = 2, silence_seconds: float = 0.5, max_seconds: float = 8.0,
                 padding_seconds: float = 0.3, start_seconds: float = 0.15, min_voiced_seconds: float = 0.2,
                 complete: Callable[[bytes], bool] | None = None, early_silence_seconds: float = 0.2) -> None:
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
            voiced = self.is_speech(frame.pcm)
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
                    yield segment
        if current is not None:
            segment = self._close(current)
            if segment is not None:
                yield segment

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
        pcm = b"".join(f.pcm for f in utterance.frames if f.t < keep_until)
        return Segment(pcm, utterance.first_voiced, utterance.last_voiced_end,
                       pcm_start=utterance.frames[0].t)
