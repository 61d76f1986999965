"""Compass Code's rules as pure functions: routes, feedback, marks and candidates."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from itertools import permutations


class Direction(str, Enum):
    NORTH = "N"
    EAST = "E"
    SOUTH = "S"
    WEST = "W"

    def clockwise(self) -> Direction:
        """The next direction clockwise: N → E → S → W → N."""
        order = "NESW"
        return Direction(order[(order.index(self.value) + 1) % 4])


def route_problem(text: str) -> str | None:
    """Why ``text`` is not a legal route (None if it is).

    A route holds each of N, E, S and W exactly once.
    """
    letters = text.upper()
    if any(ch not in "NESW" for ch in letters):
        return "bad-letters"
    if len(letters) != 4:
        return "length"
    if len(set(letters)) != 4:
        return "repeat"
    return None


@dataclass(frozen=True)
class Feedback:
    anchors: int
    clockwise: int


def feedback(guess: str, hidden: str) -> Feedback:
    """Anchors and clockwise steps of ``guess`` against ``hidden``.

    An anchor is a position where the guessed direction equals the hidden one.
    A clockwise step is a position where the hidden direction is exactly one step
    clockwise from the guessed one.  A position is never both.
    """
    anchors = sum(g == h for g, h in zip(guess, hidden))
    clockwise = sum(Direction(g).clockwise().value == h for g, h in zip(guess, hidden))
    return Feedback(anchors, clockwise)


def marks(guess: str, hidden: str) -> str:
    """The keeper's checking routine: A (anchor), C (clockwise) or - per position."""
    out = []
    for g, h in zip(guess, hidden):
        if g == h:
            out.append("A")
        elif Direction(g).clockwise().value == h:
            out.append("C")
        else:
            out.append("-")
    return " ".join(out)


ALL_ROUTES = tuple("".join(p) for p in permutations("NESW"))

#: every (anchors, clockwise) pair some guess and route can produce
POSSIBLE = frozenset(
    (f.anchors, f.clockwise) for f in (feedback(g, h) for g in ALL_ROUTES for h in ALL_ROUTES)
)


@dataclass(frozen=True)
class Clue:
    """One logged guess with its totals, or a bearing check (direction, position, answer)."""

    route: str = ""
    anchors: int = 0
    clockwise: int = 0
    direction: str = ""
    position: int = 0
    answer: bool = False

    def allows(self, candidate: str) -> bool:
        if self.route:
            return feedback(self.route, candidate) == Feedback(self.anchors, self.clockwise)
        return (candidate[self.position - 1] == self.direction) == self.answer


def candidates(routes: Iterable[str], clues: Iterable[Clue]) -> list[str]:
    """The routes that would give every recorded total and bearing answer."""
    clues = list(clues)
    return [r for r in routes if all(c.allows(r) for c in clues)]
