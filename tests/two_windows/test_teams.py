"""Teams and the round rotation (DESIGN.md: seat s joins team (s - 1) mod 3;
round r: decoder team (r - 1) mod 3, report A the next team, report B the one
after; a pair's spokesperson alternates per job, lower seat first)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from facilitator.games.two_windows import Team, jobs, lineup, members

OAK, PINE, REED = Team.OAK, Team.PINE, Team.REED

#: round -> (decoder, A, B), as the rules' "round one: Oak decodes, Pine holds A, Reed holds B"
ROTATION = {1: (OAK, PINE, REED), 2: (PINE, REED, OAK), 3: (REED, OAK, PINE),
            4: (OAK, PINE, REED), 5: (PINE, REED, OAK), 6: (REED, OAK, PINE)}

#: players -> round -> speaking seats (decoder, A, B)
SPEAKERS = {
    3: {r: (1, 2, 3) if r % 3 == 1 else (2, 3, 1) if r % 3 == 2 else (3, 1, 2) for r in range(1, 7)},
    4: {1: (1, 2, 3), 2: (2, 3, 1), 3: (3, 1, 2), 4: (4, 2, 3), 5: (2, 3, 4), 6: (3, 4, 2)},
    5: {1: (1, 2, 3), 2: (2, 3, 1), 3: (3, 1, 2), 4: (4, 5, 3), 5: (5, 3, 4), 6: (3, 4, 5)},
    6: {1: (1, 2, 3), 2: (2, 3, 1), 3: (3, 1, 2), 4: (4, 5, 6), 5: (5, 6, 4), 6: (6, 4, 5)},
}


def test_teams_from_three_to_six_players() -> None:
    assert {t: members(t, 3) for t in (OAK, PINE, REED)} == {OAK: (1,), PINE: (2,), REED: (3,)}
    assert {t: members(t, 4) for t in (OAK, PINE, REED)} == {OAK: (1, 4), PINE: (2,), REED: (3,)}
    assert {t: members(t, 5) for t in (OAK, PINE, REED)} == {OAK: (1, 4), PINE: (2, 5), REED: (3,)}
    assert {t: members(t, 6) for t in (OAK, PINE, REED)} == {OAK: (1, 4), PINE: (2, 5), REED: (3, 6)}


def test_jobs_rotate_so_each_team_decodes_twice_and_holds_each_report_twice() -> None:
    for r, expected in ROTATION.items():
        assert (jobs(r)["decoder"], jobs(r)["a"], jobs(r)["b"]) == expected
    for team in (OAK, PINE, REED):
        for job in ("decoder", "a", "b"):
            assert sum(jobs(r)[job] is team for r in range(1, 7)) == 2


def test_spokespeople_for_three_to_six_players() -> None:
    for players, rounds in SPEAKERS.items():
        for r, (decoder, a, b) in rounds.items():
            assert lineup(r, players).speakers == {"decoder": decoder, "a": a, "b": b}, (players, r)


@given(st.integers(3, 6))
def test_a_pair_alternates_per_job_lower_seat_first(players: int) -> None:
    for team in (OAK, PINE, REED):
        seats = members(team, players)
        for job in ("decoder", "a", "b"):
            rounds = [r for r in range(1, 7) if jobs(r)[job] is team]
            said = [lineup(r, players).speakers[job] for r in rounds]
            assert said == ([seats[0], seats[1]] if len(seats) == 2 else [seats[0], seats[0]])


def test_the_session_announces_teams_and_spokespeople(play) -> None:
    for players in (3, 4, 5, 6):
        names = ["Ann", "Bea", "Cal", "Dan", "Eve", "Fay"][:players]
        t = play(names=names, packets="1,2,3,4,5,6")
        teams = t.events("teams-formed")[0]["teams"]
        assert teams == {team.value: list(members(team, players)) for team in (OAK, PINE, REED)}
        for r in range(1, 7):
            started = t.events("round-started")[-1]
            assert started["round"] == r
            assert (started["decoder"], started["a"], started["b"]) == tuple(x.value for x in ROTATION[r])
            seats = SPEAKERS[players][r]
            assert started["speakers"] == {"decoder": seats[0], "a": seats[1], "b": seats[2]}
            line = next(p for p in reversed(t.public) if p.startswith(f"Round {r} of 6"))
            assert line == (f"Round {r} of 6: {ROTATION[r][0].value} decodes, {names[seats[0] - 1]} speaking; "
                            f"report A: {ROTATION[r][1].value}, {names[seats[1] - 1]}; "
                            f"report B: {ROTATION[r][2].value}, {names[seats[2] - 1]}.")
            t.send_first()
            t.say("final " + t.target())
        assert t.session.over
    assert t.public[0] == "Teams: Oak is Ann and Dan; Pine is Bea and Eve; Reed is Cal and Fay."
