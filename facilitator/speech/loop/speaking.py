"""The referee's voice in the loop: sentences and earcons, their captions, the deaf window
after each (half duplex, through ``LoopClock``), and barge-in (a phone's press stops it).

A speaker that fails mid-game (unplugged) is said once through ``warn``; from then
on the captions are the announcements, and each sentence still takes the time it
would take to say at the current rate, so the loop's timing stays what a table gets.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ...errors import FacilitatorError
from ..base import Speaker, VoiceSettings
from .captions import Captions
from .clock import LoopClock


class Speaking:
    """Says sentences and earcons for one loop; remembers what "repeat" replays."""

    def __init__(self, speaker: Speaker, captions: Captions, clock: LoopClock, voice: VoiceSettings,
                 earcon_seconds: float, warn: Callable[[str], None]) -> None:
        self.speaker = speaker
        self.captions = captions
        self.clock = clock
        self.voice = voice
        self.earcon_seconds = earcon_seconds
        self.warn = warn
        self.failed = False
        #: the last announcement (what "repeat" says again)
        self.last_said: list[str] = []
        #: sentences said since ``collect`` began (a phone's utterance is answered on its screen too)
        self.collected: list[str] | None = None
        self._stopped = threading.Event()

    def say(self, sentences: list[str], remember: bool = True, at: float | None = None) -> float:
        """Say ``sentences`` with captions; return the loop time the deaf window ends.
        A barge-in stops what is left (the captions of every sentence are still shown)."""
        self._stopped.clear()
        start = self.clock.now() if at is None else at
        total = 0.0
        for sentence in sentences:
            self.captions.said(sentence)
            if self.collected is not None:
                self.collected.append(sentence)
            if not self._stopped.is_set():
                total += self._say_one(sentence)
        end = self.clock.now() if self.clock.wall else start + total
        if remember:
            self.last_said = list(sentences)
        return self.clock.sounded(start, end, self.voice.deaf_after_speech_seconds)

    def _say_one(self, sentence: str) -> float:
        if not self.failed:
            try:
                return self.speaker.speak(sentence)
            except FacilitatorError as exc:
                self.failed = True
                self.warn(f"{exc}; announcements are printed only from now on")
        return len(sentence.split()) * 60.0 / max(self.voice.rate_wpm, 1)

    def earcon(self, name: str) -> None:
        start = self.clock.now()
        if not self.failed:
            try:
                self.speaker.earcon(name)
            except FacilitatorError as exc:
                self.failed = True
                self.warn(f"{exc}; announcements are printed only from now on")
        end = self.clock.now() if self.clock.wall else start + self.earcon_seconds
        self.clock.sounded(start, end, self.voice.deaf_after_speech_seconds)

    def stop(self) -> None:
        """Barge-in (thread-safe): stop the sentence playing and skip the rest."""
        self._stopped.set()
        stop = getattr(self.speaker, "stop", None)
        if stop is not None:
            try:
                stop()
            except FacilitatorError:
                pass
        if self.clock.wall:
            self.clock.cut_short(self.clock.now())

    def collect(self) -> None:
        """Start keeping the sentences said (for a phone's screen)."""
        self.collected = []

    def collected_since(self) -> list[str]:
        """The sentences said since ``collect``; collecting stops."""
        said, self.collected = self.collected or [], None
        return said

    @contextmanager
    def aside(self) -> Iterator[list[str]]:
        """Keep the sentences said inside the block apart (they belong to another seat's
        phone than the one being answered); collecting goes on as before after it."""
        outer, self.collected = self.collected, []
        kept = self.collected
        try:
            yield kept
        finally:
            self.collected = outer
