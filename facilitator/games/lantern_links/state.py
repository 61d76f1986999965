"""Lantern Links' game state: a snapshot the referee folds events into and the announcer reads."""

from __future__ import annotations

from dataclasses import dataclass, field

from .rules import Link, open_word

ROUTES = 3


@dataclass(frozen=True)
class State:
    players: int
    names: tuple[str, ...]
    pool_variant: bool = False
    fixed_routes: tuple[int, ...] = ()
    index: int = 0                       # route 1-3 of the game
    card: int = 0                        # the route card's number
    start: str = ""
    end: str = ""
    checkpoint: str = ""
    words: dict[str, tuple[str, str]] = field(default_factory=dict)
    hands: tuple[tuple[str, ...], ...] = ()   # seat s holds hands[s - 1]
    pool: tuple[str, ...] = ()
    chain: tuple[Link, ...] = ()
    recorded: str | None = None          # the open word recorded after tile three
    first: int = 1
    turn: int = 1
    passes: int = 0                      # ordinary passes in a row
    rewind_used: bool = False
    paused: bool = False
    used_cards: tuple[int, ...] = ()
    results: tuple[int, ...] = ()
    over: bool = False

    @property
    def open(self) -> str:
        return open_word(self.start, self.chain)

    @property
    def total(self) -> int:
        return sum(self.results)

    @property
    def can_rewind(self) -> bool:
        return not self.rewind_used and bool(self.chain)

    def name(self, seat: int | None) -> str:
        return self.names[seat - 1] if seat else ""

    def holder(self, tile: str) -> int | None:
        """The seat holding ``tile`` (None when it is in the pool or the chain)."""
        for seat, hand in enumerate(self.hands, 1):
            if tile in hand:
                return seat
        return None

    def next_seat(self, seat: int) -> int:
        return seat % self.players + 1
