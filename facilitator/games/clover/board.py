"""Clover's board geometry: the four slots, quarter turns, and the four clue zones.

A card's words are listed clockwise from the top: ``(top, right, bottom, left)``.
The board is a square of four cards::

            top zone
        +-----------+-----------+
        | top-left  | top-right |
 left   +-----------+-----------+  right
 zone   |bottom-left|bottom-right|  zone
        +-----------+-----------+
           bottom zone

Only the eight outward words count: the top zone pairs the top words of the two
top cards, the right zone the right words of the two right cards, and so on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum

Words = tuple[str, str, str, str]


class Slot(str, Enum):
    TOP_LEFT = "top-left"
    TOP_RIGHT = "top-right"
    BOTTOM_RIGHT = "bottom-right"
    BOTTOM_LEFT = "bottom-left"


class Side(str, Enum):
    """A card edge, and the clue zone of the board edge it faces."""

    TOP = "top"
    RIGHT = "right"
    BOTTOM = "bottom"
    LEFT = "left"

    @property
    def offset(self) -> int:
        return list(Side).index(self)


SLOTS = tuple(Slot)
ZONES = tuple(Side)

#: the two (slot, edge) places whose words a zone's clue ties together
ZONE_PLACES: dict[Side, tuple[tuple[Slot, Side], tuple[Slot, Side]]] = {
    Side.TOP: ((Slot.TOP_LEFT, Side.TOP), (Slot.TOP_RIGHT, Side.TOP)),
    Side.RIGHT: ((Slot.TOP_RIGHT, Side.RIGHT), (Slot.BOTTOM_RIGHT, Side.RIGHT)),
    Side.BOTTOM: ((Slot.BOTTOM_LEFT, Side.BOTTOM), (Slot.BOTTOM_RIGHT, Side.BOTTOM)),
    Side.LEFT: ((Slot.TOP_LEFT, Side.LEFT), (Slot.BOTTOM_LEFT, Side.LEFT)),
}


def turn(words: Sequence[str], quarter_turns: int = 1) -> Words:
    """``words`` after ``quarter_turns`` clockwise quarter turns (negative: anticlockwise).

    One clockwise turn moves the left word to the top: ``(t, r, b, l) -> (l, t, r, b)``.
    """
    if len(words) != 4:
        raise ValueError(f"a card has four words, not {len(words)}")
    k = quarter_turns % 4
    w = tuple(words)
    out = w[4 - k :] + w[: 4 - k]
    return (out[0], out[1], out[2], out[3])


def turns_between(start: Sequence[str], end: Sequence[str]) -> int | None:
    """How many clockwise quarter turns take ``start`` to ``end`` (None: another card)."""
    for k in range(4):
        if turn(start, k) == tuple(end):
            return k
    return None


def zone_words(board: Mapping[Slot, Sequence[str]], zone: Side) -> tuple[str, str]:
    """The two outward words a clue for ``zone`` must tie together."""
    (s1, e1), (s2, e2) = ZONE_PLACES[zone]
    return board[s1][e1.offset], board[s2][e2.offset]


def board_to_json(board: Mapping[Slot, Sequence[str]]) -> list[dict[str, object]]:
    """The DESIGN form: ``[{"slot": "top-left", "words": [top, right, bottom, left]}, ...]``."""
    return [{"slot": slot.value, "words": list(board[slot])} for slot in SLOTS]


def board_from_json(items: Sequence[Mapping[str, object]]) -> dict[Slot, Words]:
    """Read back ``board_to_json``; ValueError when a slot is missing, repeated or unknown."""
    board: dict[Slot, Words] = {}
    for item in items:
        slot = Slot(str(item["slot"]))
        words = item["words"]
        if slot in board:
            raise ValueError(f"slot {slot.value!r} is on the board twice")
        if not isinstance(words, (list, tuple)) or len(words) != 4:
            raise ValueError(f"slot {slot.value!r} needs four words")
        board[slot] = (str(words[0]), str(words[1]), str(words[2]), str(words[3]))
    if set(board) != set(SLOTS):
        raise ValueError("a board fills all four slots")
    return board


def all_words(board: Mapping[Slot, Sequence[str]]) -> list[str]:
    """The sixteen words of a board, outward and inward."""
    return [w for slot in SLOTS for w in board[slot]]
