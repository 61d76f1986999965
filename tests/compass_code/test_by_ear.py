"""Compass Code by ear: the exposure clause, the recount, candidates in pages, status and help.

The rules: "If the secret is accidentally exposed, or a feedback error is discovered
after the answer was revealed, replace it with a new shuffled route and restart that
leg without penalty."  And for a keeper's error: "The mistaken transmission does not use
a guess: keep its corrected information as a free clue and repeat that guess number."
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from facilitator.games.compass_code.announce import CHUNK
from facilitator.grammar import load_grammar
from facilitator.log import read_log
from facilitator.session import Session

NAMES = ["Ann", "Ben", "Cat", "Dan"]


@pytest.fixture
def start() -> Iterator[Callable[..., Session]]:
    """Start games (seed 7, four players) whose logs are closed after the test."""
    sessions: list[Session] = []

    def make(tmp_path: Path, **options: object) -> Session:
        opts = {"mode": "standard", "keeper": "machine", **options}
        tmp_path.mkdir(parents=True, exist_ok=True)
        session, _ = Session.start("compass-code", names=NAMES, seed=7, options=opts,
                                   log_path=tmp_path / "game.jsonl")
        sessions.append(session)
        return session

    yield make
    for session in sessions:
        session.log.close()


def test_restart_after_exposure_draws_a_new_route_and_costs_nothing(tmp_path: Path, start: Callable[..., Session]) -> None:
    s = start(tmp_path, routes=["ESNW", "NESW", "WSEN"])
    s.handle("send north east south west")           # guess 1 of leg 1
    s.handle("is west in position four")             # the bearing check
    assert s.state.guess == 2 and s.state.check is not None
    reply = s.handle("the route was seen")
    types = [e["type"] for e in reply.logged]
    assert types == ["leg-restarted", "leg-started", "captain-named"]
    restarted, started, captain = reply.logged
    assert restarted == {**restarted, "audience": "public", "leg": 1, "guesses": 1}
    assert "route" not in restarted                   # the public event names no route
    assert started["audience"] == "keeper" and started["restart"] is True
    assert started["route"] != "ESNW" and sorted(started["route"]) == sorted("NESW")
    # without penalty: guess 1 again, a fresh bearing check, every route a candidate
    assert (s.state.leg, s.state.guess, s.state.scored, s.state.check) == (1, 1, (), None)
    assert captain["guess"] == 1 and captain["seat"] == 2          # the captain who was due
    assert reply.public == ["The route was seen: leg 1 restarts, without penalty.",
                            "Leg 1 of 3, new route. Ben captains guess 1 of 4."]
    assert started["route"] not in " ".join(reply.public)
    assert s.referee.query(s.state, s.parse("how many candidates"), s.phrases) == [  # type: ignore[arg-type]
        "24 candidates remain."]
    # the next legs keep the table's own cards
    s.handle(f"send {started['route']}")
    assert s.state.leg == 2 and s.state.route == "NESW" and s.state.results == (True,)


def test_restart_replays_and_resumes_to_the_same_route(tmp_path: Path, start: Callable[..., Session]) -> None:
    s = start(tmp_path)
    s.handle("send north east south west")
    s.handle("restart the leg")
    s.log.close()
    assert s.referee.replay(read_log(tmp_path / "game.jsonl").events) == s.state
    resumed, _, _ = Session.resume(tmp_path / "game.jsonl")
    assert resumed.state == s.state
    resumed.log.close()
    again = start(tmp_path / "again")
    again.handle("send north east south west")
    again.handle("restart the leg")
    assert again.state.route == s.state.route         # drawn from the seeded generator


def test_restart_is_a_confirmed_command_by_voice_and_typed_too(tmp_path: Path, start: Callable[..., Session]) -> None:
    grammar = load_grammar("compass-code")
    for line in ("restart the leg", "the route was seen", "the route was exposed"):
        command = grammar.parse(line, typed=False)
        assert getattr(command, "canonical", None) == "restart leg", line
    assert "restart leg" in grammar.confirmed


def test_restart_is_refused_once_the_voyage_is_over(tmp_path: Path, start: Callable[..., Session]) -> None:
    s = start(tmp_path, routes=["ESNW", "NESW", "WSEN"])
    for route in ("east south north west", "north east south west", "west south east north"):
        s.handle(f"send {route}")
    assert s.over
    assert s.handle("restart the leg").public == ["The game is over."]


def test_a_wrong_keeper_total_is_flagged_privately_and_a_recount_announced(tmp_path: Path, start: Callable[..., Session]) -> None:
    s = start(tmp_path, keeper="human", routes=["ESNW", "NESW", "WSEN"])
    s.handle("send north east south west")            # true totals: 1 anchor, 2 clockwise
    reply = s.handle("two anchors one clockwise step")
    assert [(e["type"], e["audience"]) for e in reply.logged] == [
        ("feedback-flagged", "keeper"), ("recount-asked", "public")]
    assert reply.public == ["Ann is recounting guess 1."]
    assert "2 anchors" not in " ".join(reply.public) and "north" not in " ".join(reply.public)
    assert reply.private[0]["text"].startswith("Recount: guess 1 is not 2 anchors and 1 clockwise step.")
    assert s.referee.query(s.state, s.parse("status"), s.phrases)[0] == (  # type: ignore[arg-type]
        "Leg 1 of 3, guess 1 of 4: waiting for Ann's totals.")
    reply = s.handle("one anchor two clockwise steps")
    assert reply.public == [("Corrected: north east south west has 1 anchor, 2 clockwise steps. "
                            "A free clue; guess 1 again.")]
    assert s.state.guess == 1                          # the mistaken transmission used no guess


def test_corrected_four_anchors_say_one_thing(tmp_path: Path, start: Callable[..., Session]) -> None:
    s = start(tmp_path, keeper="human", routes=["ESNW", "NESW", "WSEN"])
    s.handle("send east south north west")
    s.handle("two anchors no clockwise steps")         # wrong: it is the route
    reply = s.handle("four anchors")
    assert reply.public[0] == "Corrected: four anchors. Leg 1 is solved."
    assert not any("free clue" in line or "again" in line for line in reply.public)


def test_candidates_are_counted_first_then_read_four_to_a_sentence(tmp_path: Path, start: Callable[..., Session]) -> None:
    s = start(tmp_path)
    said = s.referee.query(s.state, s.parse("read the candidates"), s.phrases)  # type: ignore[arg-type]
    assert said[0] == "24 candidates. Say go on to hear them, four at a time."
    assert len(said) == 1 + 24 // CHUNK
    assert said[1] == ("First 4: north east south west, north east west south, "
                       "north south east west and north south west east.")
    assert said[-1].startswith("Last 4: ")
    assert all(len(line.split()) <= 20 for line in said)
    joined = " ".join(said)
    assert "N E" not in joined and "NESW" not in joined


def test_status_and_help_start_with_one_sentence_for_now(tmp_path: Path, start: Callable[..., Session]) -> None:
    s = start(tmp_path)
    status = s.referee.query(s.state, s.parse("status"), s.phrases)  # type: ignore[arg-type]
    assert status[0] == "Leg 1 of 3, guess 1 of 4: Ann is captain."
    assert status[1] == "The bearing check is unused. 24 candidates remain."
    help_ = s.referee.query(s.state, s.parse("help"), s.phrases)  # type: ignore[arg-type]
    assert help_[0] == "Ann, as captain, say send and four directions, or is west in position three."
    s.handle("is west in position three")
    help_ = s.referee.query(s.state, s.parse("help"), s.phrases)  # type: ignore[arg-type]
    assert help_[0] == "Ann, as captain, say send and four directions, like send north east south west."
    assert "restart the leg" in " ".join(help_)


def test_every_compass_intent_has_a_usage_line() -> None:
    grammar = load_grammar("compass-code")
    own = [i for i in grammar.intents if i not in grammar.common_intents]
    assert {"send", "check", "feedback", "restart leg"} <= set(own)
    for intent in own:
        line = grammar.responses.get(f"usage-{intent.replace(' ', '-')}")
        assert line and len(line.split()) <= 15 and line.count(".") == 1, intent
