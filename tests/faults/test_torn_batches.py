"""A command's events torn at every byte offset of its batch (a power cut mid-write,
a full disk, a file-size limit): resume keeps the command whole or not at all.

For the largest batch of each game (a winning guess logs the score, the end of the
leg and the next leg), the log is cut at every byte offset inside it.  Resuming
must hold exactly the commands before it (the torn command is dropped whole) or
all of it when the cut is at its very end; the state is the one replayed from
those commands; and, for a spread of offsets, playing the rest of the script
gives the straight game's log byte for byte.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from faults.fault_games import (
    COMPASS_MACHINE,
    TWO_WINDOWS,
    Game,
    Table,
    batch_ranges,
    clover_game,
    lantern_game,
    straight,
)

from facilitator.log import read_log
from facilitator.session import Session
from facilitator.table_data import TableData


def _tear_everywhere(game: Game, tmp_path: Path) -> int:
    done = straight(game, tmp_path / "straight")
    raw = done.log.read_bytes()
    batches = batch_ranges(raw)
    index = max(range(1, len(batches)), key=lambda i: batches[i][1] - batches[i][0])
    start, end = batches[index]
    whole = read_log(done.log)
    assert whole.batches[index][1] - whole.batches[index][0] >= 2, "the torn command logs several events"
    cases = 0
    work = tmp_path / "torn"
    for cut in range(start, end + 1):
        if work.exists():
            shutil.rmtree(work)
        table = Table(work)
        table.log.write_bytes(raw[:cut])
        # whole batches left in the file (a last line short of only its newline is whole)
        kept = index + 1 if cut >= end - 1 else index
        session, _, notes = Session.resume(table.log, table.private if game.private else None,
                                           table=TableData(table.data))
        try:
            expected_events = whole.events[:whole.batches[kept - 1][1]]
            assert session.log.next_seq == len(expected_events) + 1, cut
            assert session.state == session.referee.replay(expected_events), cut
            assert cut in (start, end - 1, end) or notes, cut   # a dropped command is said on stderr
            if cut % 37 == 0 or cut in (start, start + 1, end - 1, end):
                for line in game.lines[kept - 1:]:
                    session.handle(line)
                session.log.close()
                assert table.log.read_bytes() == raw, f"cut at byte {cut}: not the straight game"
        finally:
            session.log.close()
        cases += 1
    print(f"FAULT-CASES torn {game.name} {cases} offsets")
    return cases


@pytest.mark.slow
@pytest.mark.parametrize("game", [COMPASS_MACHINE, TWO_WINDOWS], ids=lambda g: g.name)
def test_a_torn_command_is_dropped_whole_at_every_byte_offset(game: Game, tmp_path: Path) -> None:
    assert _tear_everywhere(game, tmp_path) > 100


@pytest.mark.slow
def test_a_torn_clover_command_is_dropped_whole_at_every_byte_offset(tmp_path: Path) -> None:
    assert _tear_everywhere(clover_game(tmp_path), tmp_path) > 100


@pytest.mark.slow
def test_a_torn_lantern_command_is_dropped_whole_at_every_byte_offset(tmp_path: Path) -> None:
    assert _tear_everywhere(lantern_game(tmp_path), tmp_path) > 100


@pytest.mark.slow
def test_a_flipped_last_newline_keeps_the_last_command_on_resume(tmp_path: Path) -> None:
    """One byte flipped in the last line's newline: resume keeps that command (its chain
    verifies), says so in one line, and the game ends as the straight one does."""
    from faults.fault_games import one_line, resume_args, run, script, start_args

    game = COMPASS_MACHINE
    table = Table(tmp_path / "t")
    done = run(start_args(game, table), script(game.lines[:3]))
    assert done.returncode == 0, done.stderr
    raw = table.log.read_bytes()
    table.log.write_bytes(raw[:-1] + b"\x0b")
    rest = run(resume_args(game, table), script(game.lines[3:]))
    assert rest.returncode == 0, rest.stderr
    assert one_line(rest.stderr) and "chain verifies" in rest.stderr, rest.stderr
    assert table.log.read_bytes() == straight(game, tmp_path / "straight").log.read_bytes()
