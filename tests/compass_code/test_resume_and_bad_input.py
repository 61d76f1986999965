"""Nothing lost: SIGKILL then --resume, bad input on stdin, corrupt logs, broken content."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest
from support import ROOT, kill_while_playing, log_has, read_jsonl, run_cli

from facilitator.grammar import load_grammar

SCRIPT = [
    "send north east south west",
    "is W in position 4",
    "send east west south north",
    "send east south north west",      # solves leg 1
    "send south west north east",      # leg 2 ...
    "send west north east south",
    "send north east south west",      # solves leg 2
    "send west south east north",      # solves leg 3: the voyage ends
]
ARGS = ["play", "compass-code", "--text", "--seed", "11", "--routes", "ESNW,NESW,WSEN"]



@pytest.mark.slow
def test_sigkill_mid_leg_then_resume_loses_nothing(tmp_path: Path) -> None:
    straight = tmp_path / "straight.jsonl"
    whole = run_cli([*ARGS, "--log", str(straight)], "\n".join(SCRIPT) + "\n")
    assert whole.returncode == 0, whole.stderr

    log = tmp_path / "killed.jsonl"
    status = kill_while_playing([*ARGS, "--log", str(log)], SCRIPT[:5],      # into leg 2, mid-leg
                                log_has(log, lambda events: len(events) >= 13))
    assert status == -signal.SIGKILL
    before = read_jsonl(log)
    assert before[-1]["type"] == "captain-named" and before[-1]["leg"] == 2

    resumed = run_cli(["play", "compass-code", "--text", "--resume", str(log)],
                      "\n".join(SCRIPT[5:]) + "\n")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.splitlines()[0] == "Resuming the game."
    assert "Leg 2 of 3, guess 2 of 4" in resumed.stdout
    assert resumed.stdout.splitlines()[-1] == "The voyage is over: all 3 legs solved. A perfect voyage!"
    after = read_jsonl(log)
    assert after[:len(before)] == before                   # nothing rewritten
    assert after == read_jsonl(straight)                   # and the same game as without the crash


def test_resume_after_eof_continues_the_same_game(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    first = run_cli([*ARGS, "--log", str(log)], "\n".join(SCRIPT[:3]) + "\n")
    assert first.returncode == 0
    second = run_cli(["play", "compass-code", "--text", "--resume", str(log)], "\n".join(SCRIPT[3:]) + "\n")
    assert second.returncode == 0, second.stderr
    events = read_jsonl(log)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] == "voyage-ended"
    over = run_cli(["play", "compass-code", "--text", "--resume", str(log)], "status\n")
    assert over.returncode == 2 and "is over" in over.stderr


def test_bad_input_on_stdin_costs_nothing(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    junk = [
        b"send north east south west\n",
        b"\xff\xfe\xfa not utf-8 \xc3\x28\n",
        b"x" * 1_000_000 + b"\n",
        b"send send send\n",
        b"pass the crisps please\n",
        b"is purple in position nine\n",
        b"   \n",
        b"# a comment\n",
        b"\x00\x01\x02\n",
        b"send east west south north\n",
    ]
    result = run_cli([*ARGS, "--log", str(log)], b"".join(junk))
    assert result.returncode == 0
    assert "Traceback" not in result.stderr and result.stderr == ""
    out = result.stdout.splitlines()
    # lines that start like a command get its usage line; characters no one types (bytes that
    # were not UTF-8, control characters) are named; the rest "Say again?"
    usage = [line for line in out if line.startswith("That is not how to say")
             or line in {load_grammar("compass-code").responses.get(k) for k in ("usage-send", "usage-check")}]
    assert out.count("Say again?") == 1 and len(usage) == 2
    untyped = [line for line in out if line.startswith("I can't take")]
    assert [line.split(". ")[0] for line in untyped] == [
        "I can't take bytes that are not text in a typed line",
        "I can't take an invisible control character in a typed line"]
    assert out.count("That was too long to be a command. Say again?") == 1
    events = read_jsonl(log)
    rejected = [e for e in events if e["type"] == "command-rejected"]
    assert len(rejected) == 6
    assert all(len(e["utterance"]) <= 301 for e in rejected)
    # both real guesses counted as guesses 1 and 2: nothing was used up by the junk
    assert [e["guess"] for e in events if e["type"] == "guess-scored"] == [1, 2]


def test_unreadable_logs_exit_2_and_stay_as_they_were(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    run_cli([*ARGS, "--log", str(log)], "send north east south west\n")
    lines = log.read_bytes().splitlines(keepends=True)
    corrupt = tmp_path / "corrupt.jsonl"
    corrupt.write_bytes(lines[0] + b"{not json}\n" + b"".join(lines[1:]))
    before = corrupt.read_bytes()
    result = run_cli(["play", "compass-code", "--text", "--resume", str(corrupt)], "status\n")
    assert result.returncode == 2
    assert "line 2" in result.stderr and len(result.stderr.splitlines()) == 1
    assert corrupt.read_bytes() == before
    missing = run_cli(["play", "compass-code", "--text", "--resume", str(tmp_path / "none.jsonl")])
    assert missing.returncode == 2 and "no log at" in missing.stderr
    other_game = tmp_path / "other.jsonl"
    first = {k: v for k, v in json.loads(lines[0]).items() if k not in ("batch", "batch_size", "chain")}
    other_game.write_text(json.dumps({**first, "game": "chess"}) + "\n")   # a log from before batches
    wrong = run_cli(["play", "compass-code", "--text", "--resume", str(other_game)])
    assert wrong.returncode == 2 and "unknown game" in wrong.stderr


def test_truncated_log_resumes_with_a_note(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    run_cli([*ARGS, "--log", str(log)], "send north east south west\n")
    data = log.read_bytes()
    log.write_bytes(data + data.splitlines()[-1][:17])      # a half-written line from a power cut
    result = run_cli(["play", "compass-code", "--text", "--resume", str(log)],
                     "send east south north west\n")
    assert result.returncode == 0
    assert "half-written" in result.stderr and "Traceback" not in result.stderr
    assert "Four anchors! Leg 1 is solved." in result.stdout
    events = read_jsonl(log)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def _broken_content(tmp_path: Path, old: str, new: str) -> Path:
    directory = tmp_path / "content"
    shutil.copytree(ROOT / "content", directory)
    path = directory / "compass-code" / "routes.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return directory


@pytest.mark.parametrize("old, new, message", [
    ('route = "NSEW"', 'route = "NSEE"', "content/compass-code/routes.toml: routes entry 3 (number 3) route"),
    ('number = 3\n', 'number = 3\ncolour = "red"\n', "routes entry 3 (number 3) colour: unknown key"),
    ('number = 24', 'number = 23', "card numbers must be 1 to 24 once each"),
    ('[[routes]]\nnumber = 1', '[[routes]\nnumber = 1', "not valid TOML"),
])
def test_broken_content_names_file_entry_and_reason(tmp_path: Path, old: str, new: str,
                                                      message: str) -> None:
    directory = _broken_content(tmp_path, old, new)
    check = run_cli(["content", "check", "--content-dir", str(directory)])
    assert check.returncode == 1
    assert message in check.stderr and "Traceback" not in check.stderr
    play = run_cli(["play", "compass-code", "--text"], "status\n",
                   env={"FACILITATOR_CONTENT_DIR": str(directory)})
    assert play.returncode == 2 and message in play.stderr
    assert len(play.stderr.strip().splitlines()) == 1


def test_content_check_passes_on_the_shipped_decks() -> None:
    result = run_cli(["content", "check"])
    assert result.returncode == 0, result.stderr
    assert "compass-code: content/compass-code/routes.toml: 24 route cards" in result.stdout
