"""Compass Code through the real command line: stdin lines in, announcements out, a log."""

from __future__ import annotations

import json
from pathlib import Path

from support import read_jsonl, run_cli

GOLDEN = Path(__file__).parent / "golden"
NAMES = "Ann,Ben,Cat,Dan"


def play(tmp_path: Path, lines: list[str] | str, *extra: str, log: str = "game.jsonl"):
    stdin = lines if isinstance(lines, str) else "\n".join(lines) + "\n"
    args = ["play", "compass-code", "--text", "--seed", "5", "--log", str(tmp_path / log), *extra]
    return run_cli(args, stdin)


def test_worked_example_golden(tmp_path: Path) -> None:
    result = play(tmp_path, (GOLDEN / "worked_example.in").read_text(),
                  "--names", NAMES, "--routes", "ESNW,NESW,WSEN")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (GOLDEN / "worked_example.out").read_text()
    events = read_jsonl(tmp_path / "game.jsonl")
    scored = [(e["route"], e["anchors"], e["clockwise"]) for e in events if e["type"] == "guess-scored"]
    assert scored == [("NESW", 1, 2), ("NEWS", 0, 4), ("ESNW", 4, 0)]


MACHINE_VOYAGE = [
    # leg 1 (E S N W): illegal guesses cost nothing, a bearing check, solved on guess 3
    "send north north south west",          # repeated direction: corrected, no guess used
    "send N E S",                           # missing a direction
    "send north east south west",           # guess 1
    "is W in position 4",                   # the bearing check
    "is N in position 1",                   # a second check in one leg is refused
    "send east west south north",           # guess 2
    "send east south north west",           # guess 3: solved
    # leg 2 (N E S W): four wrong guesses, the reveal
    "send south west north east",
    "send west north east south",
    "send east south west north",
    "send south north west east",
    # leg 3 (W S E N): solved at once
    "send west south east north",
]


def test_machine_keeper_voyage(tmp_path: Path) -> None:
    result = play(tmp_path, MACHINE_VOYAGE + ["status"], "--names", NAMES,
                  "--routes", "ESNW,NESW,WSEN")
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert "North north south west repeats north and misses east. Guess not used." in out
    assert "A route needs all four directions once each. Guess not used." in out
    assert "Yes, west is in position 4." in out
    assert "The bearing check has been used this leg." in out
    assert "Out of guesses. Leg 2 fails: the route was north east south west." in out
    assert out[-1] == "The voyage is over: 2 of 3 legs solved. A shared win!"
    assert "status" not in result.stdout  # the game ended: no further line was read
    events = read_jsonl(tmp_path / "game.jsonl")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    legs = [(e["leg"], e["solved"], e["route"]) for e in events if e["type"] == "leg-ended"]
    assert legs == [(1, True, "ESNW"), (2, False, "NESW"), (3, True, "WSEN")]
    assert [e["guess"] for e in events if e["type"] == "guess-scored" and e["leg"] == 1] == [1, 2, 3]
    assert len([e for e in events if e["type"] == "command-rejected"]) == 3
    assert events[-1] == {**events[-1], "type": "voyage-ended", "solved_legs": 2, "outcome": "win"}
    # captains rotate by seat across guesses and legs: Ann, Ben, Cat | Dan, Ann, Ben, Cat | Dan
    captains = [e["seat"] for e in events if e["type"] == "captain-named"]
    assert captains == [1, 2, 3, 4, 1, 2, 3, 4]


def test_no_stdout_line_reveals_a_route_before_its_leg_ends(tmp_path: Path) -> None:
    result = play(tmp_path, MACHINE_VOYAGE, "--names", NAMES, "--routes", "ESNW,NESW,WSEN",
                  "--private", str(tmp_path / "private.jsonl"))
    lines = result.stdout.splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith(("Four anchors!", "Out of guesses."))]
    starts = [0] + [i + 1 for i in ends[:-1]]
    spoken = ["east south north west", "north east south west", "west south east north"]
    for (start, end), route in zip(zip(starts, ends), spoken):
        for line in lines[start:end]:
            # the winning guess is not echoed with its totals: "Four anchors!" says it
            assert route not in line.lower(), line
    # the machine keeps the route: no player, not even one reading --private, receives it
    private = tmp_path / "private.jsonl"
    assert not private.exists() or not any("route" in p for p in read_jsonl(private))
    public_log = [e for e in read_jsonl(tmp_path / "game.jsonl") if e["audience"] == "public"]
    assert not any(e["type"] == "leg-started" for e in public_log)


HUMAN_VOYAGE = [
    # leg 1 (E S N W), Ann keeps, Ben captains
    "send north east south west",
    "two anchors, one clockwise step",       # wrong: flagged privately, not scored
    "one anchor, two clockwise steps",       # corrected: a free clue, guess 1 again
    "send north east west south",
    "three anchors one clockwise step",      # impossible totals: refused
    "zero anchors four clockwise steps",
    "send east south north west",
    "four anchors",
    # leg 2 (N E S W), Ben keeps
    "send north east south west",
    "four anchors",
    # leg 3 (W S E N), Cat keeps: fails
    "send north east south west",
    "no anchors, two clockwise steps",
    "send east south west north",
    "two anchors, no clockwise steps",
    "send south west north east",
    "zero anchors two clockwise steps",
    "is N in position 4",
    "send south north west east",
    "zero anchors one clockwise step",
]


def test_human_keeper_voyage_with_a_wrong_total_caught_privately(tmp_path: Path) -> None:
    private = tmp_path / "keeper.jsonl"
    result = play(tmp_path, HUMAN_VOYAGE, "--names", NAMES, "--keeper", "human",
                  "--routes", "ESNW,NESW,WSEN", "--private", str(private))
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert out[0] == "Leg 1 of 3: Ann keeps, Ben captains guess 1 of 4."
    assert "Guess 1 is north east south west. Ann, your totals?" in out
    # the wrong total is not met with silence: the table hears a recount, not the totals
    assert out[out.index("Guess 1 is north east south west. Ann, your totals?") + 1] == (
        "Ann is recounting guess 1.")
    leg1 = out[:out.index("Four anchors! Leg 1 is solved.")]
    assert not any("2 anchors" in line for line in leg1)
    assert ("Corrected: north east south west has 1 anchor, 2 clockwise steps. "
            "A free clue; guess 1 again.") in out
    assert "3 anchors and 1 clockwise step cannot happen. Recount." in out
    assert "Leg 2 of 3: Ben keeps, Dan captains guess 1 of 4." in out
    assert "Leg 3 of 3: Cat keeps, Ann captains guess 1 of 4." in out
    assert "Yes, north is in position 4." in out
    assert "Out of guesses. Leg 3 fails: the route was west south east north." in out
    assert out[-1] == "The voyage is over: 2 of 3 legs solved. A shared win!"
    notes = read_jsonl(private)
    flagged = [n for n in notes if n["type"] == "feedback-flagged"]
    assert len(flagged) == 1 and flagged[0]["text"].startswith("Recount: guess 1")
    assert {n["audience"] for n in notes} == {"keeper"}
    events = read_jsonl(tmp_path / "game.jsonl")
    scored = [e for e in events if e["type"] == "guess-scored"]
    assert [(e["leg"], e["guess"], e["corrected"]) for e in scored][:3] == [
        (1, 1, True), (1, 1, False), (1, 2, False)]
    # the wrong total was never logged as scored
    assert not any(e["anchors"] == 2 and e["leg"] == 1 for e in scored)


def test_gentle_mode_has_five_guesses_and_tight_has_no_check(tmp_path: Path) -> None:
    wrong = ["send south west north east", "send west north east south",
             "send east south west north", "send south north west east"]
    gentle = play(tmp_path, wrong + ["send north east south west"], "--mode", "gentle",
                  "--routes", "NESW,NESW,NESW", log="g.jsonl")
    assert "Guess 5 of 5: Player 1 is captain." in gentle.stdout
    assert "Four anchors! Leg 1 is solved" in gentle.stdout
    tight = play(tmp_path, ["is north in position one"], "--mode", "tight",
                 "--routes", "NESW,NESW,NESW", log="t.jsonl")
    assert "There is no bearing check in tight mode." in tight.stdout


def test_queries_change_nothing_and_log_nothing(tmp_path: Path) -> None:
    play(tmp_path, ["how many candidates", "read the candidates", "status", "help", "repeat"],
         "--routes", "ESNW,NESW,WSEN")
    events = read_jsonl(tmp_path / "game.jsonl")
    assert [e["type"] for e in events] == ["game-started", "leg-started", "captain-named"]


def test_bad_arguments_exit_2_with_one_line(tmp_path: Path) -> None:
    for args in (["--routes", "ESNW,NNSW,WSEN"], ["--routes", "ESNW"], ["--mode", "easy"],
                 ["--keeper", "robot"], ["--players", "3", "--names", "A,B"],
                 ["--players", "9"], ["--keeper", "human", "--players", "2"], ["--pool"]):
        result = play(tmp_path, "", *args)
        assert result.returncode == 2, args
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "Traceback" not in result.stderr
    unknown = run_cli(["play", "compass", "--text"])
    assert unknown.returncode == 2 and "unsupported game: 'compass'" in unknown.stderr


def test_log_lines_follow_the_contract(tmp_path: Path) -> None:
    play(tmp_path, MACHINE_VOYAGE, "--routes", "ESNW,NESW,WSEN")
    events = read_jsonl(tmp_path / "game.jsonl")
    first = events[0]
    assert first["type"] == "game-started" and first["game"] == "compass-code"
    assert first["seed"] == 5 and first["players"] == 4 and len(first["names"]) == 4
    assert first["options"] == {"mode": "standard", "keeper": "machine",
                                "routes": ["ESNW", "NESW", "WSEN"]}
    required = {
        "leg-started": {"leg", "route"}, "guess-scored": {"leg", "guess", "route", "anchors", "clockwise"},
        "bearing-checked": {"leg", "direction", "position", "answer"},
        "leg-ended": {"leg", "solved", "route"}, "voyage-ended": {"solved_legs", "outcome"},
        "command-rejected": {"utterance", "reason"},
    }
    for event in events:
        assert set(event) >= {"type", "seq", "audience"}
        assert set(event) >= required.get(event["type"], set()), event
        json.dumps(event)


def test_text_play_pages_the_candidates_as_the_docs_say(tmp_path: Path) -> None:
    """docs/compass-code.md (issue 36): text play, like voice play, says the count
    first and each four routes on "go on"."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "compass-code.md").read_text(encoding="utf-8")
    candidates = doc[doc.index("## Candidates"):doc.index("## What the table hears")]
    result = play(tmp_path, ["read the candidates", "go on"])
    assert result.returncode == 0, result.stderr
    said = result.stdout.splitlines()[1:]
    assert said[0] == "24 candidates. Say go on to hear them, four at a time." and said[0] in candidates
    assert said[-1].startswith("First 4: ") and len(said) == 2      # the count with its cue, one page
    assert "text play prints them all" not in candidates and '"go on"' in candidates
