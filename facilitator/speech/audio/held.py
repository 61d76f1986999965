"""A second microphone read only while the push-to-talk button is held (``devices.ptt_input``:
a headset, or a handheld microphone passed round the table).

The button's press and release (a key, a GPIO button, an input device: ``push_to_talk.py``)
give the utterance its edges, as a phone's talk button does: while it is held, what the
second microphone hears is the utterance (with the half second before the press, as
people press while they start talking), and the table microphone's own utterances in that
time are left to it (``ListenLoop.held_press``/``held_utterance``).  Nothing is kept while
the button is up.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Protocol

from ..base import FRAME_MS
from .devices import MicSource

#: the longest utterance kept from one press (a button held down for good is not a command)
MAX_SECONDS = 10.0


class Held(Protocol):
    def held_press(self, at: float | None = None) -> None: ...

    def held_utterance(self, pcm: bytes, end: float | None = None) -> None: ...

    def submit_text(self, line: str) -> None: ...


class HeldMicrophone:
    """The second microphone, fed to ``loop`` only while the button is held; takes the
    button's ``press``/``release`` (and typed lines) in the loop's place."""

    def __init__(self, loop: Held, device: str | int | None, slack_seconds: float = 0.5,
                 source: Any = None) -> None:
        self.loop = loop
        self.source = source if source is not None else MicSource(device)
        self._lock = threading.Lock()
        self._held = False
        self._kept: list[bytes] = []
        self._before: deque[bytes] = deque(maxlen=max(1, round(slack_seconds * 1000 / FRAME_MS)))
        self._limit = round(MAX_SECONDS * 1000 / FRAME_MS)
        self._thread = threading.Thread(target=self._read, name="facilitator-held-mic", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for frame in self.source.frames():
            with self._lock:
                if self._held:
                    if len(self._kept) < self._limit:
                        self._kept.append(frame.pcm)
                else:
                    self._before.append(frame.pcm)

    def press(self, t: float | None = None) -> None:
        with self._lock:
            self._held = True
            self._kept = list(self._before)
        self.loop.held_press(t)

    def release(self, t: float | None = None) -> None:
        with self._lock:
            self._held = False
            pcm = b"".join(self._kept)
            self._kept = []
        self.loop.held_utterance(pcm, t)

    def submit_text(self, line: str) -> None:
        self.loop.submit_text(line)

    def close(self) -> None:
        self.source.close()
