"""A crew that talks: an ``AudioSource`` whose utterances are synthesized on demand.

The voice demo (and the end-to-end tests) need players who answer what the
assistant just said, so their audio cannot be recorded in advance.  This source
asks a ``line`` callback what to say next only when the loop has heard the last
utterance, synthesizes it (espeak-ng, a voice per seat), and plays it into the
stream after the assistant has finished talking, like a polite table: silence,
the words, trailing silence for the endpointer.  Stream time runs on, so the
loop's half duplex and timeouts work exactly as on a file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..base import SAMPLE_RATE, SAMPLE_WIDTH, Frame
from .devices import convert, frames_of

#: the gap a speaker leaves after the assistant stops, and the silence after their words
GAP_SECONDS = 0.5
TRAILING_SECONDS = 0.9
#: how long to wait for the loop to take an utterance before saying something else
PATIENCE_SECONDS = 6.0
_CHUNK = 0.3


@dataclass(frozen=True)
class Line:
    """Who says what, how: ``voice`` is an espeak-ng voice name, ``rate_wpm`` words a minute."""

    text: str
    voice: str
    rate_wpm: int = 160


class SpokenCrew:
    """An AudioSource of crew lines.

    ``line()`` returns the next ``Line`` or None when the crew has nothing more to
    say; ``heard()`` counts the utterances the loop has taken; ``quiet_from()`` is
    the stream time the assistant's speech (and deaf window) ends.
    ``synthesize(line) -> (pcm, rate)`` makes the audio.
    """

    def __init__(self, line: Callable[[], Line | None], heard: Callable[[], int],
                 quiet_from: Callable[[], float],
                 synthesize: Callable[[Line], tuple[bytes, int]]) -> None:
        self._line = line
        self._heard = heard
        self._quiet_from = quiet_from
        self._synthesize = synthesize
        self._closed = False
        self.said: list[Line] = []

    def frames(self) -> Iterator[Frame]:
        t = 0.0
        while not self._closed:
            line = self._line()
            if line is None:
                return
            start = max(t + GAP_SECONDS, self._quiet_from() + GAP_SECONDS)
            yield from self._silence(t, start)
            pcm, rate = self._synthesize(line)
            if rate != SAMPLE_RATE:
                pcm = convert(pcm, rate, 1, SAMPLE_WIDTH)
            self.said.append(line)
            before = self._heard()
            yield from frames_of(pcm, start)
            t = start + _seconds(pcm)
            end = t + TRAILING_SECONDS
            yield from self._silence(t, end)
            t = end
            waited = 0.0
            while self._heard() == before and waited < PATIENCE_SECONDS and not self._closed:
                yield from self._silence(t, t + _CHUNK)
                t += _CHUNK
                waited += _CHUNK

    def _silence(self, start: float, end: float) -> Iterator[Frame]:
        if end > start:
            yield from frames_of(bytes(int((end - start) * SAMPLE_RATE) * SAMPLE_WIDTH), start)

    def close(self) -> None:
        self._closed = True


def _seconds(pcm: bytes) -> float:
    return len(pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)
