"""The Record of Legends: the best total per (player count, extra cards), kept in the
table's data directory across games, replaced only by a higher total, announced when beaten."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from facilitator.events import Event
from facilitator.games.clover import REFEREE
from facilitator.games.clover.record import best, outcome, updated


def _game(
    new_table: Callable[..., Any], data: Path, points: list[int], extra: int = 1, seed: int = 3
) -> Any:
    table = new_table(players=3, seed=seed, extra=extra, data=data)
    table.play_game(points)
    assert table.session.over
    return table


def test_record_kept_across_games_and_not_replaced_by_a_lower_score(
    new_table: Callable[..., Any], tmp_path: Path
) -> None:
    data = tmp_path / "table"
    first = _game(new_table, data, [6, 0, 0])
    assert first.public[-2:] == [
        "The game is over: 6 of 18 points.",
        "That is the table's first entry in the Record of Legends: 6.",
    ]
    assert json.loads((data / "clover.json").read_text()) == {"records": {"3-1": 6}}

    second = _game(new_table, data, [6, 6, 4], seed=4)
    assert second.public[-2:] == [
        "The game is over: 16 of 18 points.",
        "A new Record of Legends: 16, beating 6!",
    ]
    ended = second.events("game-ended")[-1]
    assert (ended["points"], ended["record"], ended["new_record"], ended["previous"]) == (
        16,
        16,
        True,
        6,
    )

    third = _game(new_table, data, [1, 2, 3], seed=5)
    assert third.public[-2:] == [
        "The game is over: 6 of 18 points.",
        "The Record of Legends stays at 16.",
    ]
    ended = third.events("game-ended")[-1]
    assert (ended["points"], ended["record"], ended["new_record"]) == (6, 16, False)
    assert json.loads((data / "clover.json").read_text()) == {"records": {"3-1": 16}}

    tie = _game(new_table, data, [6, 6, 4], seed=6)
    assert tie.public[-1] == "The Record of Legends stays at 16."


def test_each_dial_and_table_size_keeps_its_own_record(
    new_table: Callable[..., Any], tmp_path: Path
) -> None:
    data = tmp_path / "table"
    _game(new_table, data, [6, 6, 6])
    harder = _game(new_table, data, [2, 0, 0], extra=3)
    assert harder.public[-1] == "That is the table's first entry in the Record of Legends: 2."
    assert json.loads((data / "clover.json").read_text()) == {"records": {"3-1": 18, "3-3": 2}}
    started = harder.events("game-started")[0]
    assert started["options"] == {"extra": 3, "records": {}}  # the 1-card record is not this dial's


def test_the_record_in_play_is_logged_so_replay_needs_no_table_data(
    new_table: Callable[..., Any], tmp_path: Path
) -> None:
    data = tmp_path / "table"
    _game(new_table, data, [6, 0, 0])
    table = new_table(players=3, seed=9, data=data)
    assert table.events("game-started")[0]["options"] == {"extra": 1, "records": {"3-1": 6}}
    assert table.state.previous_record == 6
    (data / "clover.json").unlink()
    events = [Event.from_json(e) for e in table.events()]
    assert REFEREE.replay(events) == table.state


def test_update_is_idempotent_and_keeps_the_best() -> None:
    ended = Event(
        "game-ended",
        {
            "points": 9,
            "record": 12,
            "new_record": False,
            "previous": 12,
            "players": 4,
            "extra": 2,
            "scores": {},
        },
    )
    doc = updated({"records": {"4-2": 12, "5-1": 3}, "other": "kept"}, [ended])
    assert doc == {"records": {"4-2": 12, "5-1": 3}, "other": "kept"}
    higher = Event("game-ended", {**ended.data, "points": 15, "record": 15, "new_record": True})
    doc = updated(doc, [higher])
    assert doc is not None and updated(doc, [higher]) == doc == {
        "records": {"4-2": 15, "5-1": 3},
        "other": "kept",
    }
    assert updated(doc, [Event("card-turned", {"card": 1})]) is None


def test_outcome_and_best_read_defensively() -> None:
    assert outcome(None, 0) == (0, True)
    assert outcome(10, 10) == (10, False)
    assert outcome(10, 11) == (11, True)
    assert best({"records": {"4-1": "junk"}}, 4, 1) is None
    assert best({"records": []}, 4, 1) is None
    assert best({}, 4, 1) is None
