"""``facilitator play`` without ``--log`` keeps the game in the data directory (issue 36),
so that EOF, "quit" or a crash leaves it resumable as the README says: one line on
stderr names the log, ``--resume`` alone finds it, the lobby offers it, and the log is
a whole event log (chained batches, seq from 1, fsynced before anything is said).
A refused ``--log`` suggests ``--resume`` only where it would work."""

from __future__ import annotations

import json
import re
from pathlib import Path

from support import run_cli

from facilitator.log import read_log

SOLVE = "send east south north west\nsend north east south west\nsend west south east north\n"
ROUTES = ["--routes", "ESNW,NESW,WSEN"]


def kept_path(stderr: str, resume: str = "facilitator play compass-code --text --resume") -> Path:
    found = re.fullmatch(r"facilitator: the game is kept in (\S+\.jsonl); continue it with: (.*)\n", stderr)
    assert found and found.group(2) == resume, stderr
    return Path(found.group(1))


def test_a_game_without_log_is_kept_and_resume_alone_continues_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {"FACILITATOR_DATA_DIR": str(data)}
    first = run_cli(["play", "compass-code", "--text", "--seed", "4"], "send north east south west\n", env=env)
    assert first.returncode == 0
    log = kept_path(first.stderr)
    assert log.parent == data / "games" and log.name.endswith("-compass-code.jsonl")
    contents = read_log(log)                                # a whole, chained log
    assert [e.type for e in contents.events][:1] == ["game-started"]
    assert "guess-scored" in [e.type for e in contents.events]
    seqs = [int(json.loads(line)["seq"]) for line in log.read_text().splitlines()]
    assert seqs == list(range(1, len(seqs) + 1))

    quit_ = run_cli(["play", "compass-code", "--text", "--resume"], "status\nquit\n", env=env)
    assert quit_.returncode == 0, quit_.stderr
    assert quit_.stdout.splitlines()[0] == "Resuming the game."
    assert quit_.stdout.splitlines()[-1] == "Goodbye."
    assert quit_.stderr == f"facilitator: continuing the game in {log}\n"

    by_path = run_cli(["play", "compass-code", "--text", "--resume", str(log)], "send west south east north\n",
                      env=env)
    assert by_path.returncode == 0 and by_path.stdout.startswith("Resuming the game.\n"), by_path.stderr
    after = read_log(log).events
    assert len(after) > len(contents.events) and after[:len(contents.events)] == contents.events

    lobby = run_cli(["serve", "--text"], "", env=env)      # the lobby offers it too
    assert lobby.stdout.splitlines() == ["There is an unfinished compass code game. Say resume or new game."]

    other = run_cli(["play", "lantern-links", "--text", "--resume"], "", env=env)
    assert other.returncode == 2 and other.stdout == ""
    assert other.stderr == (f"facilitator: no unfinished lantern-links game in {data / 'games'}; "
                            "name its log: --resume LOG\n")


def test_a_finished_game_says_nothing_of_resume(tmp_path: Path) -> None:
    env = {"FACILITATOR_DATA_DIR": str(tmp_path / "data")}
    done = run_cli(["play", "compass-code", "--text", *ROUTES], SOLVE, env=env)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines()[-1].startswith("The voyage is over")
    logs = list((tmp_path / "data" / "games").glob("*.jsonl"))
    assert len(logs) == 1 and read_log(logs[0]).events[-1].type == "voyage-ended"
    again = run_cli(["play", "compass-code", "--text", "--resume"], "", env=env)
    assert again.returncode == 2 and "no unfinished compass-code game" in again.stderr


def test_a_refused_log_suggests_resume_only_where_it_works(tmp_path: Path) -> None:
    finished, open_ = tmp_path / "finished.jsonl", tmp_path / "open.jsonl"
    assert run_cli(["play", "compass-code", "--text", *ROUTES, "--log", str(finished)], SOLVE).returncode == 0
    assert run_cli(["play", "compass-code", "--text", "--log", str(open_)], "quit\n").returncode == 0

    over = run_cli(["play", "compass-code", "--text", "--log", str(finished)], "")
    assert over.returncode == 2 and over.stderr.count("\n") == 1
    assert "already holds a finished game" in over.stderr and "--resume" not in over.stderr
    going = run_cli(["play", "compass-code", "--text", "--log", str(open_)], "")
    assert going.returncode == 2 and f"--resume {open_}" in going.stderr      # that one works:
    assert run_cli(["play", "compass-code", "--text", "--resume", str(open_)], "").returncode == 0

    for log in (finished, open_):                            # the demo has no --resume
        demo = run_cli(["demo", "--text", "--log", str(log)], "")
        assert demo.returncode == 2 and demo.stderr.count("\n") == 1
        assert "--resume" not in demo.stderr and "choose another --log" in demo.stderr


def test_the_hint_carries_what_the_hidden_information_needs(tmp_path: Path) -> None:
    env = {"FACILITATOR_DATA_DIR": str(tmp_path / "data")}
    private = tmp_path / "keeper.jsonl"
    first = run_cli(["play", "compass-code", "--text", "--keeper", "human", "--private", str(private)], "quit\n",
                    env=env)
    resume = f"facilitator play compass-code --text --resume --private {private}"
    kept_path(first.stderr, resume)
    bare = run_cli(["play", "compass-code", "--text", "--resume"], "", env=env)   # without it: refused
    assert bare.returncode == 2 and "--private" in bare.stderr
    again = run_cli(resume.split()[1:], "status\n", env=env)                    # as the hint says: it works
    assert again.returncode == 0 and again.stdout.startswith("Resuming the game.\n"), again.stderr
