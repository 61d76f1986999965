"""The documented fields of every logged event, and their value types.

``check(game, event)`` returns what is wrong with one event's fields (None: nothing),
so a log whose numbers became strings or whose booleans became numbers is refused
on resume with one line, instead of replaying into a state that never existed.
These are the fields DESIGN.md's event table lists (the same table the shape
checker for logs uses); events and fields it does not list are left to replay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .events import Event


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _str(v: Any) -> bool:
    return isinstance(v, str)


def _words(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 4 and all(_str(w) for w in v)


REQUIRED: dict[str, dict[str, list[str]]] = {
    "all": {"command-rejected": ["utterance", "reason"],
            "game-started": ["game", "seed", "players", "names", "options"]},
    "compass-code": {
        "leg-started": ["leg", "route"],
        "guess-scored": ["leg", "guess", "route", "anchors", "clockwise"],
        "bearing-checked": ["leg", "direction", "position", "answer"],
        "leg-ended": ["leg", "solved", "route"],
        "voyage-ended": ["solved_legs", "outcome"],
    },
    "lantern-links": {
        "route-started": ["route", "hands", "first"],
        "tile-placed": ["seat", "tile", "left", "right", "position"],
        "tile-returned": ["seat", "tile"],
        "passed": ["seat"],
        "rewound": ["seat", "tile"],
        "route-ended": ["route", "placed", "end_bonus", "checkpoint_bonus", "points", "reason"],
        "game-ended": ["points"],
    },
    "two-windows": {
        "round-started": ["round", "packet", "decoder", "a", "b"],
        "transmission-revealed": ["round", "stage", "a", "b"],
        "answer-given": ["round", "stage", "name", "correct", "points"],
        "game-ended": ["points"],
    },
    "clover": {
        "board-dealt": ["seat", "board"],
        "resolution-started": ["spectator", "cards"],
        "clue-refused": ["seat", "clue", "reason"],
        "clue-noted": ["seat", "clue", "note"],
        "attempt-made": ["spectator", "attempt", "correct_cards"],
        "board-scored": ["spectator", "points"],
        "game-ended": ["points", "record"],
    },
}
_SIDES = ("SUN", "MOON", "LEAF", "KEY")
_TEAMS = ("Oak", "Pine", "Reed")
BY_GAME: dict[str, dict[str, Callable[[Any], bool]]] = {
    "compass-code": {
        "route": lambda v: isinstance(v, str) and sorted(v) == sorted("NESW"),
        "position": lambda v: v in (1, 2, 3, 4) and _int(v),
        "guess": lambda v: _int(v) and v >= 1,
        "anchors": lambda v: _int(v) and 0 <= v <= 4,
        "clockwise": lambda v: _int(v) and 0 <= v <= 4,
    },
    "lantern-links": {
        "route": lambda v: _int(v) and 1 <= v <= 12,
        "position": lambda v: _int(v) and 1 <= v <= 6,
        "placed": _int, "end_bonus": _int, "checkpoint_bonus": _int,
        "first": _int,
    },
    "two-windows": {
        "decoder": lambda v: v in _TEAMS,
        "a": lambda v: isinstance(v, str) and (len(v.split()) == 2 or v in _TEAMS),
        "b": lambda v: isinstance(v, str) and (len(v.split()) == 2 or v in _TEAMS),
        "packet": _int, "name": _str,
    },
    "clover": {
        "attempt": _int, "clue": _str,
        "board": lambda v: isinstance(v, list) and all(
            isinstance(b, dict) and {"slot", "words"} <= set(b) and _words(b["words"]) for b in v),
        "cards": lambda v: isinstance(v, list) and all(
            isinstance(c, dict) and {"card", "words"} <= set(c) and _int(c["card"]) and _words(c["words"])
            for c in v),
    },
}
FORMATS: dict[str, Callable[[Any], bool]] = {
    "game": _str, "utterance": _str, "seed": _int,
    "players": lambda v: _int(v) and v >= 1,
    "names": lambda v: isinstance(v, list) and all(_str(n) for n in v),
    "options": lambda v: isinstance(v, dict),
    "direction": lambda v: v in ("N", "E", "S", "W"),
    "outcome": lambda v: v in ("perfect", "win", "incomplete"),
    "reason": lambda v: isinstance(v, str) and v != "",
    "tile": lambda v: isinstance(v, str) and len(v) == 1 and "A" <= v <= "J",
    "left": lambda v: v in _SIDES,
    "right": lambda v: v in _SIDES,
    "answer": lambda v: isinstance(v, bool),
    "solved": lambda v: isinstance(v, bool),
    "correct": lambda v: isinstance(v, bool),
    "hands": lambda v: isinstance(v, dict) and all(isinstance(t, list) for t in v.values()),
}
INTS = ("solved_legs", "correct_cards", "points", "record", "leg", "round", "stage", "seat", "spectator")


def check(game: str, event: Event) -> str | None:
    """What is wrong with ``event``'s documented fields, or None."""
    need = {**REQUIRED["all"], **REQUIRED.get(game, {})}
    formats = {**FORMATS, **BY_GAME.get(game, {})}
    for name in need.get(event.type, []):
        if name not in event.data:
            return f"{event.type} lacks {name!r}"
        value = event.data[name]
        if name in formats and not formats[name](value):
            return f"{event.type}.{name} = {value!r} is not in the documented form"
        if name in INTS and not _int(value):
            return f"{event.type}.{name} = {value!r} is not an integer"
    return None
