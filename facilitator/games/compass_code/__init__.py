"""Compass Code: decode three hidden four-direction routes."""

from __future__ import annotations

from ...content import register_check
from . import deck
from .referee import CompassCode
from .rules import ALL_ROUTES, POSSIBLE, Clue, Direction, Feedback, candidates, feedback, marks
from .state import State

REFEREE = CompassCode()


def register_content_check() -> None:
    register_check("compass-code", deck.check)


__all__ = ["ALL_ROUTES", "POSSIBLE", "REFEREE", "Clue", "CompassCode", "Direction", "Feedback",
           "State", "candidates", "feedback", "marks"]
