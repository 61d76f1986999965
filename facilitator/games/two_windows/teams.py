"""Teams Oak, Pine and Reed, the jobs of each round, and who speaks for a team.

Seat ``s`` joins team ``(s - 1) mod 3``, so with 4-6 players the extra players
join Oak, then Pine.  In round ``r`` the decoder is team ``(r - 1) mod 3``;
report A goes to the next team and report B to the one after, so over six rounds
each team decodes twice and holds each report twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

ROUNDS = 6


class Team(str, Enum):
    OAK = "Oak"
    PINE = "Pine"
    REED = "Reed"


TEAMS = (Team.OAK, Team.PINE, Team.REED)
#: the three jobs of a round, in the order the rules list them
JOBS = ("decoder", "a", "b")


def team_of(seat: int) -> Team:
    """The team of ``seat`` (1-based)."""
    return TEAMS[(seat - 1) % 3]


def members(team: Team, players: int) -> tuple[int, ...]:
    """The seats of ``team`` at a table of ``players``, lowest first."""
    return tuple(s for s in range(1, players + 1) if team_of(s) is team)


def jobs(round_number: int) -> dict[str, Team]:
    """Which team decodes and which hold reports A and B in ``round_number`` (1-based)."""
    first = (round_number - 1) % 3
    return {job: TEAMS[(first + offset) % 3] for offset, job in enumerate(JOBS)}


def spokesperson(team: Team, job: str, round_number: int, players: int) -> int:
    """The seat that speaks for ``team`` doing ``job`` in ``round_number``.

    In a team of two the spokesperson alternates each time the team gets the same
    job, the lower seat first: the k-th time (counting from 0) a team has a job,
    seat ``members[k mod 2]`` speaks.  A team of one always speaks for itself.
    """
    seats = members(team, players)
    times_before = sum(1 for r in range(1, round_number) if jobs(r)[job] is team)
    return seats[times_before % len(seats)]


@dataclass(frozen=True)
class Lineup:
    """One round's jobs: the teams and the seats that speak for them."""

    decoder: Team
    a: Team
    b: Team
    speakers: dict[str, int]


def lineup(round_number: int, players: int) -> Lineup:
    j = jobs(round_number)
    speakers = {job: spokesperson(team, job, round_number, players) for job, team in j.items()}
    return Lineup(j["decoder"], j["a"], j["b"], speakers)
