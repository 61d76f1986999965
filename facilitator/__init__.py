"""facilitator: an offline voice referee for in-person party games."""

from __future__ import annotations

from .command import Command, NotRecognized
from .errors import (
    CommandError,
    ContentError,
    FacilitatorError,
    GrammarError,
    IllegalCommandError,
    InvalidCommandError,
    LogError,
    OptionsError,
)
from .events import Event
from .games import find_game
from .grammar import load_grammar
from .session import Reply, Session

__version__ = "0.1.0"

__all__ = [
    "Command", "CommandError", "ContentError", "Event", "FacilitatorError", "GrammarError",
    "IllegalCommandError", "InvalidCommandError", "LogError", "NotRecognized", "OptionsError",
    "Reply", "Session", "find_game", "load_grammar",
]
