"""The log is the file that was opened, and only a log is ever written over.

A log removed (or replaced, or its file system unmounted) during a game would take
every command after it onto a file no resume can find: before each announcement the
referee checks the log at its path is still the file it opened (same device and
inode, still linked); if not, it stops with one line, writes everything already
logged back (at the path when nothing is there, else beside it as ``.rescued``) and
announces nothing more.  ``--log`` refuses any non-empty file that is not a log,
a one-line note as much as a long one, and leaves it as it was."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults.fault_games import (
    COMPASS_MACHINE,
    Table,
    batches_done,
    one_line,
    resume_args,
    run,
    script,
    start_args,
    straight,
)
from support import ROOT, deadline


def _read_until(proc: subprocess.Popen[bytes], expected: bytes) -> bytes:
    """Read the game's stdout until it has said ``expected`` (its answer to the first command)."""
    assert proc.stdout is not None
    got = b""
    deadline = time.monotonic() + 60
    while len(got) < len(expected) and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            got += chunk
    assert got == expected, got
    return got


def _play_and_pull(table: Table, pull: str, said_first: str) -> tuple[subprocess.CompletedProcess[str], bytes]:
    """Play the first command, wait for its answer, take the log away (``pull``), then send the rest."""
    game = COMPASS_MACHINE
    proc = subprocess.Popen([sys.executable, "-m", "facilitator", *start_args(game, table)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin is not None
    proc.stdin.write(script(game.lines[:1]))
    proc.stdin.flush()
    first = _read_until(proc, said_first.encode())
    assert batches_done(table.log) == 1
    before = table.log.read_bytes()
    if pull == "rm":
        table.log.unlink()
    else:   # replaced: another file moved over the log's name
        other = table.root / "other.txt"
        other.write_text("someone else's file\n")
        other.replace(table.log)
    out, err = proc.communicate(script(game.lines[1:]), timeout=deadline(60))
    return subprocess.CompletedProcess(proc.args, proc.returncode, (first + out).decode(), err.decode()), before


def _said_after_first_command(tmp_path: Path) -> str:
    """What a straight run says for the opening and the first command alone."""
    table = Table(tmp_path / "straight-1")
    done = run(start_args(COMPASS_MACHINE, table), script(COMPASS_MACHINE.lines[:1]))
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_log_removed_mid_game_stops_the_game_and_is_written_back(tmp_path: Path) -> None:
    said_first = _said_after_first_command(tmp_path)
    table = Table(tmp_path / "t")
    done, before = _play_and_pull(table, "rm", said_first)
    assert done.returncode != 0
    assert one_line(done.stderr) and "removed" in done.stderr and "--resume" in done.stderr, done.stderr
    # nothing was announced past the first command: the second found the log gone
    assert done.stdout == said_first
    # everything logged is back at the path: what was there before, and the command in flight
    back = table.log.read_bytes()
    assert back.startswith(before) and batches_done(table.log) == 2
    # and the game goes on from it to the same end as a game never interrupted
    rest = run(resume_args(COMPASS_MACHINE, table), script(COMPASS_MACHINE.lines[2:]))
    assert rest.returncode == 0, rest.stderr
    assert table.log.read_bytes() == straight(COMPASS_MACHINE, tmp_path / "straight").log.read_bytes()


@pytest.mark.slow
def test_a_log_replaced_mid_game_is_left_alone_and_the_game_rescued_beside_it(tmp_path: Path) -> None:
    said_first = _said_after_first_command(tmp_path)
    table = Table(tmp_path / "t")
    done, before = _play_and_pull(table, "replace", said_first)
    assert done.returncode != 0
    assert one_line(done.stderr) and "replaced" in done.stderr, done.stderr
    assert done.stdout == said_first
    assert table.log.read_text() == "someone else's file\n"     # the other file is not touched
    rescued = table.log.with_name(table.log.name + ".rescued")
    assert rescued.read_bytes().startswith(before) and batches_done(rescued) == 2


@pytest.mark.parametrize("text", ["notes", "notes\n", "x", "{}\n", "shopping: milk, eggs\nbread\n",
                                  "{", "{\n", '{"', '{"type":"game-sta', '{"type":"game-started", my notes',
                                  '{"type":"game-started","seq":2,'])
def test_log_refuses_any_non_empty_file_that_is_not_a_log(tmp_path: Path, text: str) -> None:
    note = tmp_path / "n.txt"
    note.write_text(text)
    done = run(["play", "compass-code", "--text", "--log", str(note), "--data-dir", str(tmp_path / "d")],
               b"status\n")
    assert done.returncode == 2
    assert one_line(done.stderr) and "not a game log" in done.stderr, done.stderr
    assert done.stdout == ""
    assert note.read_text() == text


@pytest.mark.parametrize("torn", [b'{"type":"game-started",', b'{"type":"game-started","seq":1,"aud',
                                  b'{"type":"game-started","seq":1,"audience":"public","game":"compass-co'])
def test_log_still_takes_over_an_opening_torn_by_a_power_cut(tmp_path: Path, torn: bytes) -> None:
    """A log whose opening batch was cut short holds no game: the new game starts in it."""
    log = tmp_path / "g.jsonl"
    log.write_bytes(torn)
    done = run(["play", "compass-code", "--text", "--log", str(log), "--data-dir", str(tmp_path / "d")],
               b"status\n")
    assert done.returncode == 0, done.stderr
    assert log.read_bytes().startswith(b'{"type":"game-started","seq":1,')


def _pull_then(table: Table, said_first: str, rest: list[str], *, close: bool = True
               ) -> tuple[subprocess.CompletedProcess[str], bytes]:
    """Play the first command, remove the log, then type ``rest`` (queries, "quit"); the
    end of input follows unless ``rest`` ends the game first."""
    game = COMPASS_MACHINE
    proc = subprocess.Popen([sys.executable, "-m", "facilitator", *start_args(game, table)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdin is not None
    proc.stdin.write(script(game.lines[:1]))
    proc.stdin.flush()
    first = _read_until(proc, said_first.encode())
    before = table.log.read_bytes()
    table.log.unlink()
    out, err = proc.communicate(script(rest) if rest else b"", timeout=deadline(60))
    return subprocess.CompletedProcess(proc.args, proc.returncode, (first + out).decode(), err.decode()), before


@pytest.mark.slow
@pytest.mark.parametrize("rest", [["status", "quit"], ["status", "how many candidates"], []],
                         ids=["queries-then-quit", "queries-then-eof", "eof"])
def test_a_log_removed_before_only_queries_quit_or_eof_is_written_back(tmp_path: Path, rest: list[str]) -> None:
    """No command follows the removal, so no batch finds the log gone: the end of the game
    (a "quit", the end of input) does, and writes it back instead of leaving no log at all."""
    said_first = _said_after_first_command(tmp_path)
    table = Table(tmp_path / "t")
    done, before = _pull_then(table, said_first, rest)
    assert done.returncode == 2, done.stderr
    assert one_line(done.stderr) and "removed" in done.stderr, done.stderr
    assert f"--resume {table.log}" in done.stderr, done.stderr
    assert "Goodbye." not in done.stdout          # a quit stops before saying it, as a command does
    assert table.log.read_bytes() == before       # every command logged, nothing more: queries log nothing
    rest_of_game = run(resume_args(COMPASS_MACHINE, table), script(COMPASS_MACHINE.lines[1:]))
    assert rest_of_game.returncode == 0, rest_of_game.stderr
    assert table.log.read_bytes() == straight(COMPASS_MACHINE, tmp_path / "straight").log.read_bytes()


def test_the_lobby_offers_a_game_whose_log_was_removed_before_quit_and_resumes_it(tmp_path: Path) -> None:
    """In the lobby the game's "quit" finds the log gone: it is written back, so the game
    the lobby keeps offering is one "resume" can find."""
    import io

    from facilitator.lobby import GameStore, Lobby
    from facilitator.lobby_run import run_text

    data = tmp_path / "data"
    lines = iter(["play compass code", "send north east south west", "status", "quit", "resume", "status"])

    class Typed(io.RawIOBase):
        """Lines typed one at a time; the log is removed when "quit" is about to be read."""

        def readable(self) -> bool:
            return True

        def readline(self, size: int | None = -1) -> bytes:
            line = next(lines, None)
            if line is None:
                return b""
            if line == "quit":
                next((data / "games").glob("*.jsonl")).unlink()
            return line.encode() + b"\n"

    out = io.StringIO()
    run_text(Lobby(GameStore(data), seed=1), Typed(), out)      # type: ignore[arg-type]
    said = out.getvalue().splitlines()
    log = next((data / "games").glob("*.jsonl"))
    assert "Goodbye." not in said
    assert "Resuming the game." in said, said
    # the status before "quit", the resume's, and the one after it: the game went on
    assert sum(line.startswith("Leg 1 of 3, guess 2 of 4") for line in said) == 3, said
    assert "guess-scored" in [json.loads(x)["type"] for x in log.read_text().splitlines()]
