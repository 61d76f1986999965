"""A write that fails (a full disk, a file-size limit, a read-only file) stops the
game with one line on stderr and exit 2; nothing already logged is lost and the
resumed game ends as the straight one.  The lobby says so aloud and stays up.

Two ways in: ``ulimit -f`` on a real subprocess, with the limit inside every
command's batch in turn; and, in-process, the project's own file layer failing at
every write (the log's, the private file's, the records').
"""

from __future__ import annotations

import errno
import os
import resource
from pathlib import Path
from typing import Self

import pytest
from faults.fault_games import (
    TWO_WINDOWS,
    Game,
    Table,
    batch_ranges,
    batches_done,
    batches_done_raw,
    finish,
    one_line,
    run,
    script,
    start_args,
    straight,
)

from facilitator import log as log_module
from facilitator import table_data
from facilitator.errors import WriteError
from facilitator.session import Session
from facilitator.table_data import TableData


@pytest.mark.slow
def test_a_file_size_limit_inside_every_command_stops_cleanly_and_resume_finishes_the_game(
        tmp_path: Path) -> None:
    game = TWO_WINDOWS
    expected = straight(game, tmp_path / "straight").outcome(game)
    middles = [(start + end) // 2 for start, end in batch_ranges(expected["log"])]  # type: ignore[arg-type]
    cases = 0
    middles = middles[::2] + ([middles[-1]] if len(middles) % 2 == 0 else [])
    for n, limit in enumerate(middles):
        table = Table(tmp_path / f"limit-{n}")

        def cap(limit: int = limit) -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        stopped = run(start_args(game, table), script(game.lines), preexec=cap)
        assert stopped.returncode == 2 and one_line(stopped.stderr), (limit, stopped.stderr)
        assert "File too large" in stopped.stderr
        if table.log.exists():          # cut back to the last whole command: nothing torn is left
            assert table.log.read_bytes() == expected["log"][:len(table.log.read_bytes())]  # type: ignore[index]
        done = finish(game, table)
        assert done.returncode == 0, done.stderr
        assert table.outcome(game) == expected, f"limit {limit}"
        cases += 1
    assert cases == len(middles)
    print(f"FAULT-CASES ulimit {game.name} {cases} limits")


class _FailAt:
    """The file layer failing at its ``n``th write (ENOSPC, a full disk): ``os.write`` as the
    log and the private file see it, and the records' write."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.calls = 0

    def __enter__(self) -> Self:
        outer = self

        class _Os:
            def __getattr__(self, name: str) -> object:
                return getattr(os, name)

            def write(self, fd: int, data: bytes) -> int:
                outer._tick()
                return os.write(fd, data)

        self.os, self.write = log_module.os, table_data.TableData._write

        def write(table, game, document):  # type: ignore[no-untyped-def]
            self._tick()
            return self.write(table, game, document)

        log_module.os = _Os()  # type: ignore[assignment]
        table_data.TableData._write = write  # type: ignore[method-assign]
        return self

    def _tick(self) -> None:
        self.calls += 1
        if self.calls == self.n:
            raise OSError(errno.ENOSPC, "No space left on device")

    def __exit__(self, *exc: object) -> None:
        log_module.os, table_data.TableData._write = self.os, self.write  # type: ignore[method-assign]


def _play(game: Game, table: Table, options: dict, lines: tuple[str, ...]) -> None:
    session, _ = Session.start(game.name, seed=4, players=5, options=options, log_path=table.log,
                               private_path=table.private, table=TableData(table.data))
    try:
        for line in lines:
            session.handle(line)
    finally:
        session.log.close()


def test_a_full_disk_at_every_write_loses_nothing(tmp_path: Path) -> None:
    game = TWO_WINDOWS
    whole = Table(tmp_path / "whole")
    with _FailAt(0) as counter:
        _play(game, whole, {}, game.lines)
    expected = whole.outcome(game)
    cases = 0
    for n in range(1, counter.calls + 1):
        table = Table(tmp_path / f"full-{n}")
        with pytest.raises(WriteError), _FailAt(n):
            _play(game, table, {}, game.lines)
        # resume from the log (start again when the opening never reached it)
        if batches_done_raw(table.log) == 0:
            _play(game, table, {}, game.lines)
        else:
            session, _, _ = Session.resume(table.log, table.private, table=TableData(table.data))
            try:
                for line in game.lines[batches_done(table.log):]:
                    session.handle(line)
            finally:
                session.log.close()
        assert table.outcome(game) == expected, f"write {n} of {counter.calls} failed"
        cases += 1
    assert cases == counter.calls > len(game.lines)
    print(f"FAULT-CASES full-disk {game.name} {cases} writes")


@pytest.mark.slow
def test_the_lobby_says_a_full_disk_aloud_and_stays_up(tmp_path: Path) -> None:
    data = tmp_path / "data"

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1500, 1500))

    lines = ["let's play compass code with four players", "send north east south west",
             "send east west south north", "send west east north south", "status", "quit"]
    done = run(["serve", "--text", "--data-dir", str(data)], script(lines), preexec=cap)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert any(line.startswith("The game cannot be saved: file too large.") for line in out), out
    assert out[-1] == "Goodbye."                        # the lobby stayed up and heard "quit"
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
    logged = next((data / "games").glob("*.jsonl"))
    resumed = run(["play", "compass-code", "--text", "--resume", str(logged)], b"status\n")
    assert resumed.returncode == 0 and resumed.stdout.startswith("Resuming the game.")
