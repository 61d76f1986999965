"""Compass Code's game state: a snapshot the referee folds events into and the announcer reads."""

from __future__ import annotations

from dataclasses import dataclass

from .rules import Clue

LEGS = 3
MODES = {"standard": (4, True), "gentle": (5, True), "tight": (4, False)}
KEEPERS = ("machine", "human")


@dataclass(frozen=True)
class Scored:
    route: str
    anchors: int
    clockwise: int
    corrected: bool


@dataclass(frozen=True)
class State:
    players: int
    names: tuple[str, ...]
    mode: str = "standard"
    keeper_kind: str = "machine"
    fixed_routes: tuple[str, ...] = ()
    leg: int = 0
    route: str | None = None
    card: int = 0
    keeper: int | None = None
    captain: int = 0
    guess: int = 1
    scored: tuple[Scored, ...] = ()
    check: Clue | None = None
    pending: str | None = None
    flagged: bool = False
    results: tuple[bool, ...] = ()
    over: bool = False

    @property
    def max_guesses(self) -> int:
        return MODES[self.mode][0]

    @property
    def has_check(self) -> bool:
        return MODES[self.mode][1]

    @property
    def human(self) -> bool:
        return self.keeper_kind == "human"

    def clues(self) -> list[Clue]:
        out = [Clue(route=s.route, anchors=s.anchors, clockwise=s.clockwise) for s in self.scored]
        return out + ([self.check] if self.check else [])

    def name(self, seat: int | None) -> str:
        return self.names[seat - 1] if seat else ""


def next_seat(seat: int, players: int, skip: int | None = None) -> int:
    """The first seat clockwise from ``seat``, skipping ``skip`` (the keeper)."""
    nxt = seat % players + 1
    if nxt == skip:
        nxt = nxt % players + 1
    return nxt
