"""A human keeper may enter the physical route card it drew (DESIGN: "a physical card is
entered by its number on the keeper's screen"): before the leg's first guess or bearing
check, cards 1 to 24 only, never with the machine keeping; the entry is private."""

from __future__ import annotations

from pathlib import Path

from facilitator.session import Session
from facilitator.table_data import TableData


def start(tmp_path: Path, keeper: str) -> Session:
    session, _ = Session.start("compass-code", log_path=tmp_path / f"{keeper}.jsonl", seed=5, players=3,
                               table=TableData(tmp_path / "data"), options={"keeper": keeper})
    return session


def test_the_keeper_enters_a_card_before_the_first_guess(tmp_path):
    session = start(tmp_path, "human")
    deck = session.referee.deck
    entered = session.handle("card 7")
    assert entered.accepted and entered.public == []
    assert [p["audience"] for p in entered.private] == ["keeper"]
    assert session.state.route == deck.route_of(7) and session.state.card == 7
    assert not session.handle("route card 25").accepted
    assert session.handle("route card 3").accepted and session.state.route == deck.route_of(3)
    assert session.handle("send N E S W").accepted
    late = session.handle("card 4")
    assert not late.accepted and "before the first guess" in late.public[0]
    assert session.state.route == deck.route_of(3)
    session.log.close()
    resumed = Session.resume(tmp_path / "human.jsonl")[0]
    assert resumed.state.route == deck.route_of(3) and resumed.state.card == 3
    resumed.log.close()


def test_no_card_with_the_machine_keeping(tmp_path):
    session = start(tmp_path, "machine")
    drawn = session.state.route
    refused = session.handle("card 7")
    assert not refused.accepted and "keeping the route" in refused.public[0]
    assert session.state.route == drawn
    session.log.close()
