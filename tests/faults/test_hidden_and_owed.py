"""Hidden information stays hidden, and what a private reader is owed reaches them.

* a machine keeper's route reaches no player, ``--private`` included;
* a mistyped Clover clue never puts the clue in the public ``command-rejected``;
* a game with hidden information and nowhere to show it refuses to start, and
  marks no packet as played;
* a resumed game given a new ``--private`` file delivers everything the reader is owed;
* after a crash the command in flight is said again; after a clean stop it is not.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from faults.fault_games import (
    COMPASS_HUMAN,
    COMPASS_MACHINE,
    Table,
    clover_game,
    one_line,
    run,
    script,
    start_args,
)
from support import kill_while_playing, log_has, read_jsonl


def test_a_machine_keepers_route_reaches_no_player(tmp_path: Path) -> None:
    table = Table(tmp_path / "t")
    args = [*start_args(COMPASS_MACHINE, table), "--private", str(table.private)]
    done = run(args, script(COMPASS_MACHINE.lines))
    assert done.returncode == 0, done.stderr
    assert not table.private.exists() or "route" not in table.private.read_text()


@pytest.mark.slow
def test_a_mistyped_clover_clue_stays_out_of_the_public_log(tmp_path: Path) -> None:
    game = clover_game(tmp_path)
    table = Table(tmp_path / "t")
    typo = "clue 9 top secretword"              # no seat 9: refused
    garbled = "clu 1 top othersecret"            # not understood
    done = run(start_args(game, table), script([typo, garbled, *game.lines]))
    assert done.returncode == 0, done.stderr
    rejected = [e for e in read_jsonl(table.log) if e["type"] == "command-rejected"]
    assert len(rejected) >= 2 and all(e["audience"] == "public" for e in rejected)
    text = table.log.read_text()
    assert "secretword" not in text and "othersecret" not in text
    assert all(e["utterance"] == "" and e["withheld"] is True for e in rejected[:2])


@pytest.mark.parametrize("game, flags", [
    ("two-windows", []), ("clover", []), ("compass-code", ["--keeper", "human"])])
def test_hidden_information_with_nowhere_to_go_refuses_to_start_and_marks_nothing(
        tmp_path: Path, game: str, flags: list[str]) -> None:
    data = tmp_path / "data"
    log = tmp_path / "g.jsonl"
    done = run(["play", game, "--text", *flags, "--data-dir", str(data), "--log", str(log)], b"status\n")
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert "--private" in done.stderr and "--screens" in done.stderr and done.stdout == ""
    assert not (data / "two-windows.json").exists()        # no packet marked as played
    assert not log.exists() or log.stat().st_size == 0


@pytest.mark.slow
def test_a_resumed_game_with_a_new_private_file_gets_everything_owed(tmp_path: Path) -> None:
    table = Table(tmp_path / "t")
    done = run(start_args(COMPASS_HUMAN, table), script(COMPASS_HUMAN.lines[:9]))   # into leg 2
    assert done.returncode == 0
    first = [json.loads(x) for x in table.private.read_text().splitlines()]
    fresh = tmp_path / "new-private.jsonl"
    resumed = run(["play", "compass-code", "--text", "--resume", str(table.log), "--private", str(fresh),
                   "--data-dir", str(table.data)], b"")
    assert resumed.returncode == 0, resumed.stderr
    owed = [json.loads(x) for x in fresh.read_text().splitlines()]
    assert [(p["seq"], p["text"]) for p in owed] == [(p["seq"], p["text"]) for p in first]
    # resuming again owes nothing more: nothing is delivered twice
    again = run(["play", "compass-code", "--text", "--resume", str(table.log), "--private", str(fresh),
                 "--data-dir", str(table.data)], b"")
    assert again.returncode == 0 and len(fresh.read_text().splitlines()) == len(owed)


@pytest.mark.slow
def test_the_command_in_flight_at_a_crash_is_said_on_resume(tmp_path: Path) -> None:
    table = Table(tmp_path / "t")
    lines = list(COMPASS_MACHINE.lines[:3])
    status = kill_while_playing(start_args(COMPASS_MACHINE, table), lines,
                                log_has(table.log, lambda events: sum(e["type"] == "guess-scored"
                                                                      for e in events) >= 2))
    assert status == -signal.SIGKILL
    resumed = run(["play", "compass-code", "--text", "--resume", str(table.log), "--data-dir", str(table.data)],
                  b"")
    out = resumed.stdout.splitlines()
    assert out[0] == "Resuming the game." and out[1] == "East west south north: 1 anchor, 0 clockwise steps."
    # stopped cleanly (EOF) this time: nothing is said twice
    clean = run(["play", "compass-code", "--text", "--resume", str(table.log), "--data-dir", str(table.data)],
                b"")
    assert clean.stdout.splitlines()[1].startswith("Leg 1 of 3")
