"""Lantern Links: build a six-tile chain from START to END, meeting the checkpoint."""

from __future__ import annotations

from ...content import register_check
from . import deck
from .referee import LanternLinks
from .rules import Link, complete_chains, orient, score, solutions
from .state import State

REFEREE = LanternLinks()


def register_content_check() -> None:
    register_check("lantern-links", deck.check)


__all__ = ["REFEREE", "LanternLinks", "Link", "State", "complete_chains", "orient", "score",
           "solutions"]
