"""Resolution: rebuilding the spectator's board from the clues, and its score.

The spectator's four cards and the dial's extra cards lie face up, numbered from
1, each in a random rotation.  The table places cards in the four slots, turns
them a quarter clockwise at a time, and the player left of the spectator commits.
A card is right when it sits in its slot with its rotation (its four words face
the way they do on the spectator's board).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ...errors import IllegalCommandError
from .board import SLOTS, Slot, Words, turn

PERFECT_POINTS = 6


@dataclass(frozen=True)
class Layout:
    """The cards on the table: their faces, which slot holds which card, and the locks."""

    cards: tuple[Words, ...]
    slots: tuple[int | None, ...] = (None, None, None, None)  # card number per slot, SLOTS order
    locked: frozenset[Slot] = frozenset()
    attempt: int = 1

    def card_in(self, slot: Slot) -> int | None:
        return self.slots[SLOTS.index(slot)]

    def slot_of(self, card: int) -> Slot | None:
        for slot, held in zip(SLOTS, self.slots):
            if held == card:
                return slot
        return None

    @property
    def pool(self) -> list[int]:
        """Cards not on a slot, by number."""
        return [k for k in range(1, len(self.cards) + 1) if k not in self.slots]

    @property
    def full(self) -> bool:
        return all(held is not None for held in self.slots)

    def words(self, card: int) -> Words:
        return self.cards[card - 1]

    def placed(self) -> dict[str, int]:
        return {slot.value: held for slot, held in zip(SLOTS, self.slots) if held is not None}


def _check_card(layout: Layout, card: int) -> None:
    if not 1 <= card <= len(layout.cards):
        raise IllegalCommandError(
            "cl-no-such-card",
            f"no card {card} (cards 1 to {len(layout.cards)})",
            card=card,
            cards=len(layout.cards),
        )


def check_place(layout: Layout, card: int, slot: Slot) -> tuple[Slot | None, int | None]:
    """Where ``card`` comes from and which card it displaces; IllegalCommandError if it cannot.

    A locked card stays, a locked slot takes nothing, and a card already in the slot
    is not a move.  Placing on an occupied slot swaps: the displaced card goes where
    the placed card was (to the pool if it came from there).
    """
    _check_card(layout, card)
    origin = _unlocked_origin(layout, card)
    if slot in layout.locked:
        raise IllegalCommandError(
            "cl-slot-locked", f"slot {slot.value} is locked", slot=slot.value.replace("-", " ")
        )
    if origin == slot:
        raise IllegalCommandError(
            "cl-already-there",
            f"card {card} is already in {slot.value}",
            card=card,
            slot=slot.value.replace("-", " "),
        )
    return origin, layout.card_in(slot)


def _unlocked_origin(layout: Layout, card: int) -> Slot | None:
    """The slot ``card`` lies in (None: the pool); a card locked there cannot move or turn."""
    origin = layout.slot_of(card)
    if origin is not None and origin in layout.locked:
        raise IllegalCommandError(
            "cl-card-locked",
            f"card {card} is locked in {origin.value}",
            card=card,
            slot=origin.value.replace("-", " "),
        )
    return origin


def place(layout: Layout, card: int, slot: Slot) -> Layout:
    """``layout`` after placing ``card`` in ``slot`` (see ``check_place``)."""
    origin, displaced = check_place(layout, card, slot)
    slots = list(layout.slots)
    slots[SLOTS.index(slot)] = card
    if origin is not None:
        slots[SLOTS.index(origin)] = displaced
    return replace(layout, slots=tuple(slots))


def check_turn(layout: Layout, card: int) -> Words:
    """The words of ``card`` after a clockwise quarter turn; a locked card cannot turn."""
    _check_card(layout, card)
    _unlocked_origin(layout, card)
    return turn(layout.words(card), 1)


def set_words(layout: Layout, card: int, words: Sequence[str]) -> Layout:
    cards = list(layout.cards)
    cards[card - 1] = (words[0], words[1], words[2], words[3])
    return replace(layout, cards=tuple(cards))


def correct_slots(layout: Layout, board: Mapping[Slot, Sequence[str]]) -> list[Slot]:
    """Slots whose card faces exactly as on the board (right card, right rotation)."""
    return [
        slot
        for slot, held in zip(SLOTS, layout.slots)
        if held is not None and layout.words(held) == tuple(board[slot])
    ]


def score(attempt: int, correct: int) -> int | None:
    """Points for a committed attempt, or None when a second attempt follows.

    All four right at the first attempt scores 6.  Otherwise the wrong cards come
    back, the right ones stay locked, and after the second attempt each right card
    scores 1 (0 to 4).
    """
    if attempt == 1:
        return PERFECT_POINTS if correct == len(SLOTS) else None
    return correct


def after_first_attempt(layout: Layout, right: Sequence[Slot]) -> Layout:
    """The wrong cards go back to the pool (keeping how they face); the right ones lock."""
    slots = tuple(held if slot in right else None for slot, held in zip(SLOTS, layout.slots))
    return replace(layout, slots=slots, locked=frozenset(right), attempt=2)
