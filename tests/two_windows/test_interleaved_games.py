"""Two record games at one table, interleaved on one data directory: each round's
packet is checked against the table's packet record when the round starts, so a game
resumed after another one played its planned packets draws unplayed ones instead and
no packet is played twice in a cycle."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from two_windows.conftest import Table

from facilitator.session import Session
from facilitator.table_data import TableData


def _round(t: Table) -> None:
    t.send_first()
    t.say("final " + t.target())


def _packets(t: Table) -> list[int]:
    return [e["packet"] for e in t.events("round-started")]


def test_a_game_resumed_after_another_plays_none_of_the_other_games_packets(
        play: Callable[..., Any], tmp_path: Path) -> None:
    data = tmp_path / "table"
    first = play(seed=5, data=data, log=tmp_path / "a.jsonl")
    _round(first)                            # game A: round 1 done, round 2 set out
    planned = list(first.state.packets)
    first.session.log.close()

    second = play(seed=6, data=data, log=tmp_path / "b.jsonl")
    while not second.session.over:
        _round(second)                       # game B to its end
    second.session.log.close()
    theirs = _packets(second)
    assert len(theirs) == 6 and not set(theirs) & set(_packets(first))
    assert set(theirs) & set(planned[2:]), "the seeds must make B take some of A's planned packets"

    session, reply, _ = Session.resume(tmp_path / "a.jsonl", table=TableData(data))
    again = Table(session, private=list(first.private))   # the informants' screens keep their reports
    again.take(reply)
    while not again.session.over:
        _round(again)
    mine = _packets(first) + _packets(again)
    assert len(mine) == 6 and len(set(mine)) == 6
    assert not set(mine[2:]) & set(theirs)   # rounds 3-6 of A: none that B played
    assert len(again.events("game-ended")) == 1
    record = json.loads((data / "two-windows.json").read_text())
    assert record == {"cycle": 1, "played": sorted(set(mine) | set(theirs))}
    session.log.close()
