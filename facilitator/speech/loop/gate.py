"""Whether the table is addressing the referee: the wake phrase and push-to-talk.

``press``/``release`` come from a key, a GPIO button or an input device (another
thread: single writes of floats and bools).  A held button arms every utterance;
a released one (a tap) arms one command that starts within the armed window,
unless the line said while it was held was already heard.  The wake phrase said
on its own arms the next command the same way.  A phone's press needs none of
this: its utterance is addressed by itself (``Segment.phone``).
"""

from __future__ import annotations

from .settings import LoopSettings


class Gate:
    def __init__(self, settings: LoopSettings) -> None:
        self.settings = settings
        self.held = False
        #: (from, until) loop time: an utterance starting in it is addressed
        self.armed: tuple[float, float] | None = None
        self._press_heard = False   # the line said while push-to-talk is held was heard

    @property
    def gated(self) -> bool:
        return self.settings.wake_phrase or self.settings.push_to_talk

    @property
    def waiting_for_press(self) -> bool:
        """Gated by push-to-talk alone, and nothing pressed or armed: nothing will be decoded."""
        return self.gated and not self.held and self.armed is None and not self.settings.wake_phrase

    def press(self, t: float) -> None:
        self.held = True
        self._press_heard = False
        self.armed = (t - self.settings.press_slack_seconds, float("inf"))

    def release(self, t: float) -> None:
        self.held = False
        if self._press_heard:
            self.armed = None
            return
        start = self.armed[0] if self.armed else t - self.settings.press_slack_seconds
        self.armed = (start, t + self.settings.armed_window_seconds)

    def is_armed(self, start: float) -> bool:
        """Whether an utterance starting at ``start`` is addressed (held, or within the window)."""
        if self.held:
            return True
        return self.armed is not None and self.armed[0] <= start <= self.armed[1]

    def disarm(self) -> None:
        """An armed utterance was heard: the press or the wake phrase is used."""
        self._press_heard = True
        if not self.held:
            self.armed = None

    def arm(self, now: float) -> None:
        """The wake phrase on its own (or "Say again?" with the wake phrase): the next
        command within the window is addressed."""
        self.armed = (now, now + self.settings.armed_window_seconds)
