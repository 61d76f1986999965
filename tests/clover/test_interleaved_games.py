"""Two games at one table, interleaved on one data directory: the Record of Legends is
read when a game ends, not when it starts, so a game that ends after another one set
the record is measured against that record."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clover.conftest import Table

from facilitator.session import Session
from facilitator.table_data import TableData


def test_a_game_resumed_after_another_set_the_record_is_measured_against_it(
    new_table: Callable[..., Any], tmp_path: Path
) -> None:
    data = tmp_path / "table"
    first = new_table(players=3, seed=3, data=data, log=tmp_path / "a.jsonl")
    first.write_clues()
    first.play_board(6)                      # game A part-way: one board of three
    first.session.log.close()

    second = new_table(players=3, seed=4, data=data, log=tmp_path / "b.jsonl")
    second.play_game([6, 6, 6])              # game B to its end: the record is 18
    assert json.loads((data / "clover.json").read_text()) == {"records": {"3-1": 18}}

    session, reply, _ = Session.resume(tmp_path / "a.jsonl", table=TableData(data))
    again = Table(session, private=list(first.private))   # each seat's screen keeps its board
    again.take(reply)
    again.play_board(6)
    again.play_board(4)                      # A ends with 16, under B's 18
    assert again.public[-2:] == ["The game is over: 16 of 18 points.",
                                 "The Record of Legends stays at 18."]
    ended = again.events("game-ended")[-1]
    assert (ended["record"], ended["new_record"], ended["previous"]) == (18, False, 18)
    assert json.loads((data / "clover.json").read_text()) == {"records": {"3-1": 18}}
    session.log.close()


def test_a_game_beating_a_record_set_meanwhile_says_whose_record_it_beat(
    new_table: Callable[..., Any], tmp_path: Path
) -> None:
    data = tmp_path / "table"
    first = new_table(players=3, seed=3, data=data)
    first.write_clues()
    second = new_table(players=3, seed=4, data=data)
    second.play_game([6, 4, 0])              # 10, set while A is still being played
    for points in (6, 6, 6):
        first.play_board(points)
    assert first.public[-1] == "A new Record of Legends: 18, beating 10!"
    ended = first.events("game-ended")[-1]
    assert (ended["record"], ended["new_record"], ended["previous"]) == (18, True, 10)
