"""A table of Lantern Links players, driven in-process through the real session."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from facilitator.games.lantern_links.referee import State
from facilitator.log import read_log
from facilitator.session import Reply, Session

NATO = {"A": "alpha", "B": "bravo", "C": "charlie", "D": "delta", "E": "echo", "F": "foxtrot",
        "G": "golf", "H": "hotel", "I": "india", "J": "juliet"}


class Table:
    """One game: say lines, read what was announced and logged."""

    def __init__(self, log: Path, players: int = 3, seed: int = 1, routes: tuple[int, ...] = (1, 7, 12),
                 pool: bool = False) -> None:
        self.log = log
        options: dict[str, Any] = {"pool": pool, "routes": list(routes)}
        self.session, reply = Session.start("lantern-links", players=players, seed=seed,
                                            options=options, log_path=log)
        self.heard: list[str] = list(reply.public)
        self.replies: list[Reply] = [reply]

    @property
    def state(self) -> State:
        state: State = self.session.state
        return state

    def say(self, line: str) -> list[str]:
        reply = self.session.handle(line)
        self.replies.append(reply)
        self.heard.extend(reply.public)
        return reply.public

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        lines = [line for reply in self.replies for line in reply.logged]
        return [e for e in lines if kind is None or e["type"] == kind]

    def place(self, tile: str, how: str = "nato") -> list[str]:
        """Pass until the tile's owner is up (any seat in the pool variant), then play it."""
        if not self.state.pool_variant:
            owner = self.state.holder(tile)
            assert owner is not None, f"nobody holds {tile}"
            while self.state.turn != owner:
                self.say("pass")
        if how == "nato":
            return self.say(f"play {NATO[tile]}")
        if how == "words":
            a, b = self.state.words[tile]
            return self.say(f"{b} {a}".lower())
        return self.say(f"play {tile}")

    def replayed(self) -> State:
        self.session.log.close()
        state: State = self.session.referee.replay(read_log(self.log).events)
        return state


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    made: list[Table] = []

    def make(**kwargs: Any) -> Table:
        t = Table(tmp_path / f"game{len(made)}.jsonl", **kwargs)
        made.append(t)
        return t

    yield make
    for t in made:
        t.session.log.close()
