"""The table's packet record in the data directory: six unplayed packets a game,
a packet counts as played when its round starts, the record starts over (and
says so) when fewer than six remain; --packets and --practice leave it alone."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from facilitator.events import Event
from facilitator.games.two_windows import REFEREE
from facilitator.games.two_windows.record import choose_from_record, updated_record
from facilitator.table_data import TableData

RESTARTED = "The packet record starts over: fewer than six packets were left unplayed."


def _finish(t) -> None:
    while not t.session.over:
        t.send_first()
        t.say("final " + t.target())


def _record(data: Path) -> dict:
    return json.loads((data / "two-windows.json").read_text())


def test_three_games_at_one_table_use_all_eighteen_packets_then_the_record_starts_over(
        play, tmp_path: Path) -> None:
    data = tmp_path / "table"
    seen: list[int] = []
    for game, seed in enumerate((5, 6, 7), 1):
        t = play(seed=seed, data=data)
        assert RESTARTED not in t.public
        _finish(t)
        packets = [e["packet"] for e in t.events("round-started")]
        assert len(packets) == 6 and not set(packets) & set(seen)
        seen += packets
        assert _record(data) == {"cycle": 1, "played": sorted(seen)}
        assert t.events("game-ended")[-1]["points"] == 12
    assert sorted(seen) == list(range(1, 19))

    fourth = play(seed=8, data=data)
    assert RESTARTED in fourth.public
    assert fourth.public.index(RESTARTED) < fourth.public.index("Six packets are set out.")
    chosen = fourth.events("packets-chosen")[0]
    assert chosen["restarted"] is True and chosen["cycle"] == 2
    assert _record(data) == {"cycle": 2, "played": [chosen["packets"][0]]}


def test_a_packet_counts_as_played_when_its_round_starts_and_a_replacement_too(play, tmp_path: Path) -> None:
    data = tmp_path / "table"
    t = play(data=data)
    first = t.state.packet
    assert _record(data)["played"] == [first]
    t.say("replace packet")
    new = t.events("packet-replaced")[-1]["new"]
    assert new not in t.state.packets
    assert _record(data)["played"] == sorted([first, new])
    t.send_first()
    t.say("final " + t.target())
    assert _record(data)["played"] == sorted([first, new, t.state.packet])
    # the next game avoids all three, and the packets still unplayed are the ones it may draw
    nxt = play(seed=2, data=data)
    assert not {first, new, t.state.packet} & set(nxt.state.packets)
    record = nxt.logged[0]["options"]["record"]
    assert record == {"cycle": 1, "unplayed": [p for p in range(1, 19) if p not in
                                               {first, new, t.state.packet}], "restarted": False}


def test_fixed_packets_and_practice_leave_the_record_alone(play, tmp_path: Path) -> None:
    data = tmp_path / "table"
    TableData(data).write("two-windows", {"cycle": 1, "played": [1, 2, 3]})
    t = play(packets="1,2,3,4,5,6", data=data)
    _finish(t)
    p = play(practice=True, data=data)
    _finish(p)
    assert _record(data) == {"cycle": 1, "played": [1, 2, 3]}
    assert "record" not in t.logged[0]["options"] and "cycle" not in t.events("round-started")[0]


def test_a_damaged_record_is_read_as_far_as_it_makes_sense() -> None:
    assert choose_from_record({"cycle": "x", "played": [1, "2", 99, True, 3]}) == {
        "cycle": 1, "unplayed": [2, *range(4, 19)],
        "restarted": False}


def test_an_unreadable_record_stops_the_game_with_a_clear_message(tmp_path: Path) -> None:
    from facilitator.errors import OptionsError
    from facilitator.session import Session

    data = tmp_path / "table"
    data.mkdir()
    (data / "two-windows.json").write_text("{not json")
    try:
        Session.start("two-windows", options={}, table=TableData(data))
    except OptionsError as exc:
        assert "two-windows.json" in str(exc) and "move it away" in str(exc)
    else:
        raise AssertionError("an unreadable record must stop the game")


def _started(packet: int, cycle: int | None) -> Event:
    fields = {"round": 1, "packet": packet, "decoder": "Oak", "a": "Pine", "b": "Reed",
              "speakers": {"decoder": 1, "a": 2, "b": 3}}
    return Event("round-started", fields | ({"cycle": cycle} if cycle else {}))


@given(st.lists(st.tuples(st.integers(1, 18), st.sampled_from([None, 1, 2, 3])), max_size=12),
       st.lists(st.integers(1, 18), max_size=18), st.integers(1, 3))
def test_record_updates_are_idempotent(events: list[tuple[int, int | None]], played: list[int],
                                       cycle: int) -> None:
    doc = {"cycle": cycle, "played": sorted(set(played))}
    batch = [_started(p, c) for p, c in events]
    once = updated_record(doc, batch) or doc
    twice = updated_record(once, batch) or once
    assert once == twice
    assert once["cycle"] >= cycle
    assert set(once["played"]) <= set(range(1, 19))


def test_record_game_draws_six_of_the_unplayed(play, tmp_path: Path) -> None:
    data = tmp_path / "table"
    TableData(data).write("two-windows", {"cycle": 3, "played": list(range(1, 13))})
    t = play(seed=3, data=data)
    assert sorted(t.state.packets) == list(range(13, 19))
    assert REFEREE.table_update({}, []) is None
