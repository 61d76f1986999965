"""The table screen and the private seat screens (``facilitator play GAME --screens``).

``ScreenServer`` serves them from the referee's process; ``Hub`` is the one door to
the session (one lock) that stdin, the voice loop and the buttons share.
"""

from __future__ import annotations

from .hub import Hub, SharedSession
from .seats import Seats
from .server import ScreenServer, ScreenSettings

__all__ = ["Hub", "ScreenServer", "ScreenSettings", "Seats", "SharedSession"]
