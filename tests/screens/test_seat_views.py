"""Which seat reads which private audience, and what a late screen shows (pure parts).

Rules stated: Compass Code's keeper rotates with the leg (seat ``(leg - 1) mod N + 1``)
and only the keeper reads the route and the marks; a Two Windows report is read by
every member of the team holding it this round, never by the decoder's team; a
Clover seat reads its own board only.  A private view is built from the state, so
replaying the log gives the same view as the live game."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from facilitator.games.two_windows.teams import jobs, team_of
from facilitator.session import Session

ROUTES = {"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]}


def _compass(tmp_path=None, players=4):
    return Session.start("compass-code", players=players, seed=1, options=dict(ROUTES),
                         log_path=tmp_path / "cc.jsonl" if tmp_path else None)


def test_the_compass_keeper_view_follows_the_leg():
    session, _ = _compass()
    ref = session.referee
    assert [s for s in range(1, 5) if "keeper" in ref.seat_audiences(session.state, s)] == [1]
    view = ref.private_view(session.state, "keeper")
    assert view["route"] == "ESNW" and view["guesses"] == [] and view["pending"] is None
    assert ref.private_view(session.state, 2) is None
    session.handle("send N E S W")
    assert ref.private_view(session.state, "keeper")["pending"] == {"guess": 1, "route": "NESW",
                                                                     "marks": "C C - A"}
    session.handle("feedback 0 2")                         # wrong: flagged, not scored
    assert ref.private_view(session.state, "keeper")["recount"] is True
    session.handle("feedback 1 2")                         # corrected: a free clue
    view = ref.private_view(session.state, "keeper")
    assert view["recount"] is False and view["pending"] is None
    assert view["guesses"] == [{"guess": 1, "route": "NESW", "marks": "C C - A", "anchors": 1,
                                "clockwise": 2, "corrected": True}]
    session.handle("send E S N W")
    session.handle("feedback 4 0")                         # leg 1 solved: seat 2 keeps leg 2
    assert [s for s in range(1, 5) if "keeper" in ref.seat_audiences(session.state, s)] == [2]
    assert ref.private_view(session.state, "keeper")["route"] == "NESW"


def test_a_machine_keeper_has_no_private_screen():
    session, _ = Session.start("compass-code", players=3, seed=1)
    for seat in (1, 2, 3):
        assert session.referee.seat_audiences(session.state, seat) == {seat}
    assert session.referee.private_view(session.state, "keeper") is None


@settings(max_examples=12, deadline=None)
@given(players=st.integers(3, 6), seed=st.integers(0, 10_000))
def test_two_windows_reports_go_to_every_member_of_the_holding_team(players, seed):
    session, _ = Session.start("two-windows", players=players, seed=seed,
                               options={"packets": [1, 2, 3, 4, 5, 6]})
    ref, state = session.referee, session.state
    job = jobs(1)
    for seat in range(1, players + 1):
        held = ref.seat_audiences(state, seat) - {seat}
        team = team_of(seat)
        assert held == ({"a"} if team is job["a"] else {"b"} if team is job["b"] else set())
    a, b = ref.private_view(state, "a"), ref.private_view(state, "b")
    assert a["report"] == "A" and b["report"] == "B" and not set(a["facts"]) & set(b["facts"])
    session.handle(f"a sends {a['facts'][1]}")
    assert ref.private_view(session.state, "a")["locked"] == a["facts"][1]
    assert ref.private_view(session.state, "b")["locked"] is None


def test_a_clover_seat_reads_its_own_board_and_clues(tmp_path):
    session, _ = Session.start("clover", players=3, seed=9, options={"extra": 1})
    ref = session.referee
    session.handle("clue 2 left serendipity")
    view = ref.private_view(session.state, 2)
    assert view["clues"] == {"left": "serendipity"} and view["writing"] is True
    assert len(view["board"]) == 4 and set(view["zones"]) == {"top", "right", "bottom", "left"}
    assert ref.private_view(session.state, 1)["clues"] == {}
    assert ref.private_view(session.state, "keeper") is None


def test_views_from_a_replayed_log_equal_the_live_ones(tmp_path):
    session, _ = _compass(tmp_path)
    for line in ("send N E S W", "feedback 0 2", "feedback 1 2", "send W S E N"):
        session.handle(line)
    session.log.close()
    replayed, _, _ = Session.resume(tmp_path / "cc.jsonl")
    try:
        assert replayed.referee.private_view(replayed.state, "keeper") == \
            session.referee.private_view(session.state, "keeper")
    finally:
        replayed.log.close()
