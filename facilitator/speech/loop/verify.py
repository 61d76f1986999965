"""The second engine's verdict on an echoed command, computed while the echo is said.

Answer at once, verify while speaking: when the fast engine heard an undoable
command, the loop echoes it without waiting and starts a ``Verification``; the
command waits in its undo window, and nothing is applied before the verdict is in
(``policy.after_verify`` says what the verdict does).

* At a live table (the wall clock) the verdict is computed in a worker thread
  while the echo plays, and is *ready* when the thread is done.
* On a recording (stream time) it is computed in the loop's own thread the first
  time it is looked at, and is ready ``cpu_scale`` times its measured CPU seconds
  after it started: the time it would have taken beside the echo.  A benchmark
  sets ``cpu_scale`` to play a slower board (a Raspberry Pi) on this machine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ..base import Hypothesis

Work = Callable[[], Hypothesis | None]


class Verification:
    """One verdict in the making."""

    def __init__(self, work: Work, started: float, *, threaded: bool, cpu_scale: float = 1.0) -> None:
        self.started = started
        self.cpu_scale = cpu_scale
        self.cpu_seconds: float | None = None
        self._work = work
        self._result: Hypothesis | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        if threaded:
            self._thread = threading.Thread(target=self._run, name="facilitator-verify", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        began = time.thread_time()
        try:
            self._result = self._work()
        except Exception:  # noqa: BLE001 -- a second engine failing on one utterance: no verdict, no crash
            self._result = None
        finally:
            self.cpu_seconds = time.thread_time() - began
            self._done.set()

    @property
    def ready_at(self) -> float | None:
        """Loop time the verdict is in (stream time only; None until computed)."""
        if self._thread is not None or self.cpu_seconds is None:
            return None
        return self.started + self.cpu_seconds * self.cpu_scale

    def ready(self, now: float) -> bool:
        """Whether the verdict is in at loop time ``now``."""
        if self._thread is not None:
            return self._done.is_set()
        if not self._done.is_set():
            self._run()
        at = self.ready_at
        return at is not None and now >= at

    def result(self) -> Hypothesis | None:
        """The verdict, waiting for it if it is still being computed."""
        if self._thread is not None:
            self._done.wait()
        elif not self._done.is_set():
            self._run()
        return self._result
