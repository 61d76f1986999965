"""``facilitator play clover --text`` end to end: a whole game, privacy on stdout,
SIGKILL then --resume, and bad arguments."""

from __future__ import annotations

import json
import re
import signal
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, kill_while_playing, log_has, read_jsonl, run_cli

#: hidden information needs somewhere to go (a game without --private or --screens does not start)
PRIVATE = ["--private", str(Path(tempfile.mkdtemp(prefix="private-")) / "private.jsonl")]

from facilitator.games.clover.board import all_words, board_from_json

SEED = 17
PLAN = [6, 2, 0, 3]  # what each board scores


def _script(new_table: Callable[..., Any]) -> tuple[list[str], list[int]]:
    """The lines of a whole game (worked out in-process on the same seed) and the log size after each."""
    table = new_table(players=4, seed=SEED)
    sizes: list[int] = []
    table.write_clues()
    sizes = [0] * len(table.lines)
    for points in PLAN:
        start = len(table.lines)
        table.play_board(points)
        sizes += [0] * (len(table.lines) - start)
    assert table.session.over
    # log size after each line, recounted by replaying the lines on a fresh in-process table
    replay = new_table(players=4, seed=SEED)
    for i, line in enumerate(table.lines):
        replay.say(line)
        sizes[i] = len(replay.events())
    return table.lines, sizes


def _args(log: Path, data: Path) -> list[str]:
    return [
        "play",
        "clover",
        "--text",
        *PRIVATE,
        "--seed",
        str(SEED),
        "--players",
        "4",
        "--log",
        str(log),
        "--data-dir",
        str(data),
    ]


@pytest.mark.slow
def test_a_whole_game_by_text_keeps_boards_off_stdout(
    new_table: Callable[..., Any], tmp_path: Path
) -> None:
    lines, _ = _script(new_table)
    log, private = tmp_path / "game.jsonl", tmp_path / "private.jsonl"
    done = run_cli(
        [*_args(log, tmp_path / "cli-data"), "--private", str(private)], "\n".join(lines) + "\n"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == (
        "Write one clue per zone: your boards are in the private file; 4 players, 1 extra card."
    )
    assert out[-2:] == [
        "The game is over: 11 of 24 points.",
        "That is the table's first entry in the Record of Legends: 11.",
    ]
    events = read_jsonl(log)
    dealt = [e for e in events if e["type"] == "board-dealt"]
    assert [e["audience"] for e in dealt] == [1, 2, 3, 4]
    assert [(p["type"], p["audience"]) for p in read_jsonl(private)][:4] == [
        ("board-dealt", s) for s in (1, 2, 3, 4)
    ]
    # no board word reaches stdout before that board's cards are laid out (the responses'
    # own words aside, e.g. "card")
    fixed = set(re.findall(r"[a-z]+", " ".join(out[:1]).lower())) | {
        "card",
        "top",
        "right",
        "bottom",
        "left",
    }
    first_resolution = next(i for i, line in enumerate(out) if line.startswith("Resolution 1 of 4"))
    said = set(re.findall(r"[a-z]+", " ".join(out[:first_resolution]).lower()))
    for event in dealt:
        words = set(all_words(board_from_json(event["board"]))) - fixed
        assert not words & said
    assert json.loads((tmp_path / "cli-data" / "clover.json").read_text()) == {
        "records": {"4-1": 11}
    }



@pytest.mark.slow
def test_sigkill_mid_resolution_then_resume_loses_nothing(
    new_table: Callable[..., Any], tmp_path: Path
) -> None:
    lines, sizes = _script(new_table)
    straight = tmp_path / "straight.jsonl"
    whole = run_cli(_args(straight, tmp_path / "data-straight"), "\n".join(lines) + "\n")
    assert whole.returncode == 0, whole.stderr

    # stop in the middle of the second board's first attempt
    cut = next(i for i, line in enumerate(lines) if line == "commit") + 3
    log, data = tmp_path / "killed.jsonl", tmp_path / "cli-data"
    status = kill_while_playing(_args(log, data), lines[:cut],
                                log_has(log, lambda events: len(events) >= sizes[cut - 1]))
    assert status == -signal.SIGKILL
    before = read_jsonl(log)
    assert len(before) == sizes[cut - 1]
    assert before[-1]["type"] in ("card-placed", "card-turned")

    resumed = run_cli(
        ["play", "clover", "--text", *PRIVATE, "--resume", str(log), "--data-dir", str(data)],
        "\n".join(lines[cut:]) + "\n",
    )
    assert resumed.returncode == 0, resumed.stderr
    out = resumed.stdout.splitlines()
    assert out[0] == "Resuming the game."
    # the last command before the kill is said again, then where the game stands
    assert out[1].startswith("Card 2 turned")
    assert out[2].startswith("Player 2's board, attempt 1 of 2: ")
    assert out[-1] == "That is the table's first entry in the Record of Legends: 11."
    after = read_jsonl(log)
    assert after[: len(before)] == before  # nothing rewritten
    assert after == read_jsonl(straight)  # the same game as without the crash
    assert json.loads((data / "clover.json").read_text()) == {"records": {"4-1": 11}}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--extra", "5"], "facilitator: --extra takes a number from 1 to 4, not 5"),
        (["--extra", "0"], "facilitator: --extra takes a number from 1 to 4, not 0"),
        (["--players", "7"], "facilitator: clover takes 3 to 6 players, not 7"),
        (["--names", "Ann,Bo"], "facilitator: clover takes 3 to 6 players, not 2"),
        (["--mode", "gentle"], "facilitator: --mode is not an option of clover"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    done = run_cli(["play", "clover", "--text", *PRIVATE, "--data-dir", str(tmp_path), *args], "")
    assert done.returncode == 2
    assert done.stderr.strip() == message
    assert done.stdout == ""


@pytest.mark.slow
def test_names_and_extra_cards_from_the_command_line(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    done = run_cli(
        [
            "play",
            "clover",
            "--text",
            *PRIVATE,
            "--names",
            "Ann,Bo,Cy",
            "--extra",
            "3",
            "--seed",
            "2",
            "--log",
            str(log),
            "--data-dir",
            str(tmp_path / "d"),
        ],
        "status\nclue Bo top wool\nplace card one top left\nnonsense words\n",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [
        "Clue writing: 0 of 3 ready; waiting for Ann, Bo and Cy.",
        "The boards are not laid out yet. Still writing clues: Ann, Bo, Cy.",
        "Say again?",
    ]
    events = read_jsonl(log)
    assert events[0]["options"] == {"extra": 3, "records": {}}
    assert [e["type"] for e in events[-2:]] == ["command-rejected", "command-rejected"]


@pytest.mark.slow
def test_a_broken_deck_stops_the_game_before_it_starts(tmp_path: Path) -> None:
    import shutil

    content = tmp_path / "content"
    shutil.copytree(ROOT / "content", content)
    deck = content / "clover" / "keywords.toml"
    deck.write_text(deck.read_text().replace("number = 3\n", "number = 3\nshade = 1\n", 1))
    done = run_cli(
        ["play", "clover", "--text", *PRIVATE, "--data-dir", str(tmp_path / "d")],
        "status\n",
        env={"FACILITATOR_CONTENT_DIR": str(content)},
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "facilitator: content/clover/keywords.toml: cards entry 3 (number 3) shade: unknown key"
    )


@pytest.mark.slow
def test_an_unreadable_record_is_a_clear_message(tmp_path: Path) -> None:
    data = tmp_path / "d"
    data.mkdir()
    (data / "clover.json").write_text("{not json")
    done = run_cli(["play", "clover", "--text", *PRIVATE, "--data-dir", str(data)], "status\n")
    assert done.returncode == 2
    assert "clover.json" in done.stderr and "move it away" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert (data / "clover.json").read_text() == "{not json"  # nothing overwritten


def test_misheard_and_illegal_lines_cost_nothing(new_table: Callable[..., Any]) -> None:
    table = new_table(players=3, seed=6)
    before = table.state
    for line in (
        "clue 5 top wool",
        "place card nine top left",
        "turn card two",
        "commit",
        "read card three",
        "clue 2 middle wool",
        "x" * 400,
    ):
        table.say(line)
    assert table.public[-7:] == [
        "There is no seat 5; the seats are 1 to 3.",
        table.session.usage_line("place"),      # starts like a move: how to say it
        "The boards are not laid out yet. Still writing clues: Player 1, Player 2, Player 3.",
        "The boards are not laid out yet. Still writing clues: Player 1, Player 2, Player 3.",
        "No cards are on the table yet.",
        table.session.usage_line("clue"),
        "That was too long to be a command. Say again?",
    ]
    assert table.state == before
    assert [e["type"] for e in table.events()[-7:]] == ["command-rejected"] * 7
    table.play_game([6, 6, 6])  # the rejected lines cost the table nothing
    assert table.session.over
    assert table.public[-2:] == [
        "The game is over: 18 of 18 points.",
        "That is the table's first entry in the Record of Legends: 18.",
    ]


def _renumbered(events: list[dict[str, Any]]) -> str:
    # written as a log from before batches (no batch fields or chain), so replay refuses it
    batch = ("batch", "batch_size", "chain")
    return "".join(json.dumps({**{k: v for k, v in e.items() if k not in batch}, "seq": n}) + "\n"
                   for n, e in enumerate(events, 1))


@pytest.mark.slow
def test_a_log_that_cannot_be_replayed_is_refused_cleanly(
    new_table: Callable[..., Any], tmp_path: Path
) -> None:
    table = new_table(players=3, seed=2)
    table.write_clues()
    table.say("place 1 top-left")
    events = table.events()
    early = tmp_path / "early.jsonl"  # a card move before any card is laid out
    early.write_text(_renumbered([*events[:3], events[-1], *events[3:-1]]))
    twice = tmp_path / "twice.jsonl"  # the same move twice: the referee never logs that
    twice.write_text(_renumbered([*events, events[-1]]))
    for log, reason in ((early, "no cards are laid out"), (twice, "card-placed cannot happen")):
        before = log.read_text()
        done = run_cli(["play", "clover", "--text", *PRIVATE, "--resume", str(log)], "status\n")
        assert done.returncode == 2
        assert done.stderr.startswith(f"facilitator: log {str(log)!r} cannot be replayed")
        assert reason in done.stderr and "Traceback" not in done.stderr
        assert log.read_text() == before
