"""Clover test helpers: a table that plays through the real session.

Players learn their own boards the way they would, from the private lines the
session hands their seat; the rebuilding table sees only public lines and the
cards laid out at resolution.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from support import read_jsonl

from facilitator.games.clover.board import SLOTS, ZONES, Slot, board_from_json, turns_between
from facilitator.session import Reply, Session
from facilitator.table_data import TableData

SPOKEN = ["one", "two", "three", "four", "five", "six", "seven", "eight"]
CLUE_WORDS = {"top": "harvest", "right": "journey", "bottom": "justice", "left": "silence"}  # on no card


@dataclass
class Table:
    """One game at one table, driven line by line."""

    session: Session
    public: list[str] = field(default_factory=list)
    private: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def take(self, reply: Reply) -> Reply:
        self.public.extend(reply.public)
        self.private.extend(reply.private)
        return reply

    def say(self, line: str) -> Reply:
        self.lines.append(line)
        return self.take(self.session.handle(line))

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        """The log so far, as JSON objects (only ``kind`` if given)."""
        lines = read_jsonl(self.session.log.path)
        return [e for e in lines if kind is None or e["type"] == kind]

    @property
    def state(self) -> Any:
        return self.session.state

    def board(self, seat: int) -> dict[Slot, tuple[str, str, str, str]]:
        """Seat's board as its private screen showed it."""
        dealt = [p for p in self.private if p["type"] == "board-dealt" and p["audience"] == seat]
        return board_from_json(dealt[-1]["board"])

    def write_clues(self) -> None:
        """Every seat writes four clues no board holds, so all are accepted."""
        for seat in range(1, self.state.players + 1):
            for zone in ZONES:
                self.say(f"clue {seat} {zone.value} {CLUE_WORDS[zone.value]}{seat}")

    def solve(self, slots: list[Slot] | None = None, spoken: bool = True) -> None:
        """Place (and turn) the right card in each of ``slots`` (default: every unlocked one)."""
        board = self.board(self.state.spectator)
        for slot in slots if slots is not None else SLOTS:
            layout = self.state.layout
            if slot in layout.locked:
                continue
            for k in range(1, len(layout.cards) + 1):
                turns = turns_between(layout.words(k), board[slot])
                if turns is not None:
                    if layout.card_in(slot) != k:
                        self.say(
                            f"place card {SPOKEN[k - 1]} {slot.value.replace('-', ' ')}"
                            if spoken
                            else f"place {k} {slot.value}"
                        )
                    for _ in range(turns):
                        self.say(f"turn card {SPOKEN[k - 1]}" if spoken else f"turn {k}")
                    break

    def spoil(self, slots: list[Slot]) -> None:
        """Turn the card in each of ``slots`` a quarter: the right card, the wrong way round."""
        for slot in slots:
            self.say(f"turn {self.state.layout.card_in(slot)}")

    def play_board(self, points: int) -> None:
        """Rebuild the current board so that it scores ``points`` (6, or 0-4 after two attempts)."""
        self.solve()
        if points != 6:
            self.spoil(list(SLOTS))
            self.say("commit")
            self.solve()
            self.spoil(list(SLOTS[points:]))
        self.say("commit")

    def play_game(self, points: list[int]) -> None:
        """Clues for everyone, then each board in turn scoring ``points[spectator - 1]``."""
        self.write_clues()
        for p in points:
            self.play_board(p)

    def wrong_card_for(self, slot: Slot) -> int:
        """A card that does not belong in ``slot`` (an extra, or another slot's card)."""
        board = self.board(self.state.spectator)
        layout = self.state.layout
        for k in range(1, len(layout.cards) + 1):
            if turns_between(layout.words(k), board[slot]) is None and layout.slot_of(k) is None:
                return k
        raise AssertionError("no free wrong card")

    def fill_wrong(self, slots: list[Slot]) -> None:
        """Fill ``slots`` with cards that are wrong there (placed, or the right card turned wrong)."""
        board = self.board(self.state.spectator)
        for slot in slots:
            layout = self.state.layout
            for k in range(1, len(layout.cards) + 1):
                if (
                    layout.slot_of(k) is None
                    and turns_between(layout.words(k), board[slot]) is None
                ):
                    self.say(f"place {k} {slot.value}")
                    break
            else:
                raise AssertionError(f"no wrong card left for {slot.value}")


@pytest.fixture
def new_table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    """``new_table(players=4, seed=1, extra=1, data=None, log=None)``: a started, logged game."""
    made: list[int] = []

    def make(
        players: int = 4,
        seed: int = 1,
        extra: int = 1,
        data: Path | None = None,
        log: Path | None = None,
        names: list[str] | None = None,
    ) -> Table:
        table_data = TableData(data or tmp_path / "data")
        if log is None:
            made.append(1)
            log = tmp_path / f"game-{len(made)}.jsonl"
        session, reply = Session.start(
            "clover",
            players=None if names else players,
            names=names,
            seed=seed,
            options={"extra": extra},
            log_path=log,
            table=table_data,
        )
        table = Table(session)
        table.take(reply)
        tables.append(table)
        return table

    tables: list[Table] = []
    yield make
    for table in tables:
        table.session.log.close()
