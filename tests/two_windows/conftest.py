"""Two Windows test helpers: a table that plays through the real session.

Informants learn their reports the way players do, from the private lines the
session hands their role; the decoder only ever sees public lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from facilitator.games.two_windows import REFEREE, load_deck, load_practice, matching
from facilitator.session import Reply, Session
from facilitator.table_data import TableData


@dataclass
class Table:
    """One game at one table, driven line by line."""

    session: Session
    public: list[str] = field(default_factory=list)
    private: list[dict[str, Any]] = field(default_factory=list)
    logged: list[dict[str, Any]] = field(default_factory=list)

    def take(self, reply: Reply) -> Reply:
        self.public.extend(reply.public)
        self.private.extend(reply.private)
        self.logged.extend(reply.logged)
        return reply

    def say(self, line: str) -> Reply:
        return self.take(self.session.handle(line))

    @property
    def state(self) -> Any:
        return self.session.state

    def report(self, holder: str) -> list[str]:
        """What the informant holding ``holder`` ("a"/"b") was dealt last (from its private lines)."""
        dealt = [p for p in self.private if p["type"] == "report-dealt" and p["audience"] == holder]
        return list(dealt[-1]["facts"])

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.logged if e["type"] == kind]

    def send_first(self, a: int = 0, b: int = 0) -> Reply:
        """Both informants lock a fact of their report (by index) and the slips are revealed."""
        self.say(f"a sends {self.report('a')[a]}")
        return self.say(f"b sends {self.report('b')[b]}")

    def candidates(self) -> list[str]:
        """The catalogue entries the revealed transmissions allow (the decoder's own reasoning)."""
        sent = [f for pair in self.state.sent for f in pair]
        deck = load_practice() if self.state.practice else load_deck()
        return [e.name for e in matching(list(deck.entries), sent)]

    def target(self) -> str:
        """The answer guide (the test peeks, as a host would after commitment)."""
        return REFEREE.packet(self.state).target

    def wrong_name(self) -> str:
        deck = load_practice() if self.state.practice else load_deck()
        return next(n for n in deck.names if n != self.target())


def start(players: int = 3, names: list[str] | None = None, seed: int = 1, log: Path | None = None,
          data: Path | None = None, **options: Any) -> Table:
    session, reply = Session.start("two-windows", players=None if names else players, names=names,
                                   seed=seed, options=REFEREE.parse_options(options), log_path=log,
                                   table=TableData(data) if data else None)
    table = Table(session)
    table.take(reply)
    return table


@pytest.fixture
def play() -> Callable[..., Table]:
    """``play(players=3, seed=1, packets="1,8,...", practice=True, data=dir)``: a started table."""
    return start
