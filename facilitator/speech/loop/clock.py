"""Loop time, and the assistant's own sound in it (what half duplex keeps out).

Time is *stream time* (seconds into the audio) for a recording, and the wall
clock mapped onto the stream for a microphone: the microphone is opened right
before the loop, whose creation is stream time 0, and each frame read can only
move that origin earlier (a frame is never read before it was captured).
"""

from __future__ import annotations

from collections.abc import Callable

#: the assistant's sounds remembered (half duplex looks only at the recent ones)
KEPT_SOUNDS = 16


class LoopClock:
    """``now()`` in loop time, and the assistant's recent sounds as (start, deaf until)."""

    def __init__(self, wall_clock: Callable[[], float] | None = None) -> None:
        self._clock = wall_clock
        #: wall mode: the clock reading at stream time 0 (the source starts with the loop)
        self._origin: float | None = wall_clock() if wall_clock is not None else None
        self.stream_now = 0.0
        #: the assistant's sounds, recent first: (start, deaf until) in loop time
        self.sounds: list[tuple[float, float]] = []

    @property
    def wall(self) -> bool:
        """Whether the loop runs on the wall clock (a microphone), not on stream time."""
        return self._clock is not None

    def now(self) -> float:
        """Loop time: stream seconds (a file), or wall clock mapped onto the stream (a mic)."""
        if self._clock is not None and self._origin is not None:
            return self._clock() - self._origin
        return self.stream_now

    def reached(self, t: float) -> None:
        """The stream has reached ``t`` (a frame starting there was read)."""
        if self._clock is not None:
            # a frame is never consumed before it was captured, so the smallest
            # clock-minus-stream-time seen is the best estimate of the origin
            seen = self._clock() - t
            if self._origin is None or seen < self._origin:
                self._origin = seen
        self.stream_now = max(self.stream_now, t)

    def heard_until(self, t: float) -> None:
        """An utterance ending at ``t`` was heard: stream time is past it (the wall clock's
        origin is not moved: an utterance is handed over later than its last frame)."""
        self.stream_now = max(self.stream_now, t)

    @property
    def quiet_from(self) -> float:
        """Loop time when the assistant's last sound and its deaf window end."""
        return max((until for _, until in self.sounds), default=0.0)

    def sounded(self, start: float, end: float, deaf_seconds: float) -> float:
        """The assistant made a sound from ``start`` to ``end``; return when its deaf window ends.
        With a recording the file keeps playing meanwhile, so stream time moves on to ``end``."""
        until = end + deaf_seconds
        self.sounds.insert(0, (start, until))
        del self.sounds[KEPT_SOUNDS:]
        if not self.wall:
            self.stream_now = max(self.stream_now, end)
        return until

    def cut_short(self, at: float) -> None:
        """A press stopped the assistant at ``at`` (barge-in): its sound ends there."""
        self.sounds = [(start, min(until, at)) if start <= at else (start, until)
                       for start, until in self.sounds]

    def continue_from(self, previous: LoopClock) -> None:
        """Take over a clock whose loop ended (the lobby hands the stream to a game and back)."""
        self.stream_now = max(self.stream_now, previous.stream_now)
        if previous._origin is not None:
            self._origin = previous._origin
        self.sounds = list(previous.sounds)
