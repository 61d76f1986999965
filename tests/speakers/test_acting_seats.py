"""Who may give a role's command now, from the rules (each referee's ``acting_seats``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from facilitator.command import Command
from facilitator.games.clover.referee import RESOLUTION
from facilitator.session import Session


def seats_for(session: Session, line: str) -> frozenset[int] | None:
    command = session.parse(line)
    assert isinstance(command, Command), f"{line!r} does not parse"
    return session.referee.acting_seats(session.state, command)


def start(game: str, tmp_path: Path, **kw: object) -> Session:
    session, _ = Session.start(game, seed=5, private_path=tmp_path / "p.jsonl",
                               **kw)  # type: ignore[arg-type]
    return session


def test_compass_captain_sends_and_checks_and_the_captaincy_moves_on(tmp_path: Path) -> None:
    s = start("compass-code", tmp_path, players=4)
    assert seats_for(s, "send north east south west") == {1}
    assert seats_for(s, "is west in position three") == {1}
    s.handle("send north east south west")
    if not s.over and s.state.leg == 1:
        assert seats_for(s, "send south east north west") == {2}   # seat 2 captains guess 2
    # queries and table controls stay open to everyone
    for line in ("status", "how many candidates", "repeat", "louder"):
        assert seats_for(s, line) is None


def test_compass_human_keeper_gives_the_totals(tmp_path: Path) -> None:
    s = start("compass-code", tmp_path, players=4, options={"keeper": "human"})
    assert seats_for(s, "send north east south west") == {2}       # seat 1 keeps leg 1
    s.handle("send north east south west")
    assert seats_for(s, "one anchor two clockwise steps") == {1}


def test_lantern_current_player_places_passes_and_rewinds(tmp_path: Path) -> None:
    s = start("lantern-links", tmp_path, players=3)
    assert seats_for(s, "pass") == {1}
    assert seats_for(s, "finish") is None                          # the table's agreement
    s.handle("pass")
    assert seats_for(s, "pass") == {2}
    assert seats_for(s, "rewind") == {2}


def test_two_windows_decoders_spokesperson_answers_and_informants_send(tmp_path: Path) -> None:
    s = start("two-windows", tmp_path, players=3, options={"practice": True})
    speakers = dict(s.state.speakers)
    assert seats_for(s, "a sends form round") == {speakers["a"]}
    assert seats_for(s, "b sends edge notched") == {speakers["b"]}
    assert seats_for(s, "final brook") == {speakers["decoder"]}
    assert seats_for(s, "more") == {speakers["decoder"]}


def test_clover_committer_commits_and_the_spectator_moves_no_card(tmp_path: Path) -> None:
    s = start("clover", tmp_path, players=4, options={"extra": 1})
    assert seats_for(s, "clue 3 top apple") == {3}                 # a spoken clue is its writer's
    s.state = replace(s.state, phase=RESOLUTION, spectator=2)
    assert seats_for(s, "commit") == {3}                           # left of the spectator
    assert seats_for(s, "turn 1") == {1, 3, 4}
