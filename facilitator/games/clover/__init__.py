"""Clover: write one-word clues for your own board; the table rebuilds each board in turn."""

from __future__ import annotations

from ...content import register_check
from . import deck
from .board import SLOTS, ZONES, Side, Slot, turn, turns_between, zone_words
from .clues import NoteKind, Refusal, Verdict, check_clue
from .referee import Clover, State
from .resolution import Layout, score

REFEREE = Clover()


def register_content_check() -> None:
    register_check("clover", deck.check)


__all__ = [
    "REFEREE",
    "SLOTS",
    "ZONES",
    "Clover",
    "Layout",
    "NoteKind",
    "Refusal",
    "Side",
    "Slot",
    "State",
    "Verdict",
    "check_clue",
    "score",
    "turn",
    "turns_between",
    "zone_words",
]
