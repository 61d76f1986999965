"""SIGKILL right after every durable step (log fsync, private write, record write,
rename), with real subprocesses: the resumed game ends exactly as the straight one.

For each game the straight run is played once under the counting wrapper to learn
how many durable steps it takes; then one run per step is killed right after it
and finished by ``--resume`` with the lines its log does not hold.  The finished
run must have the same log bytes, every private message once, the same records,
and no stale temporary file.  Long games are sampled (every step of the last
commands, where the records are written, and a spread over the rest).
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from faults.fault_games import (COMPASS_HUMAN, TWO_WINDOWS, Game, Table, clover_game, finish, one_line,
                                run, script, start_args, straight)

KILLER = [str(Path(__file__).with_name("killer.py"))]
#: at most this many kill points a game (every step near the end, a spread before)
SAMPLE = 14


def _steps(game: Game, root: Path) -> int:
    table = Table(root)
    count = root / "count"
    done = run(start_args(game, table), script(game.lines), wrapper=KILLER,
               env={"FAULT_KILL_AFTER": "0", "FAULT_COUNT_FILE": str(count)})
    assert done.returncode == 0, done.stderr
    return int(count.read_text())


def _points(total: int) -> list[int]:
    tail = list(range(max(1, total - 7), total + 1))
    head = list(range(1, max(1, total - 7)))
    step = max(1, len(head) // max(1, SAMPLE - len(tail)))
    return sorted(set(head[::step] + tail))


def _kill_everywhere(game: Game, tmp_path: Path) -> int:
    expected = straight(game, tmp_path / "straight").outcome(game)
    total = _steps(game, tmp_path / "count")
    cases = 0
    for n in _points(total):
        table = Table(tmp_path / f"kill-{n}")
        killed = run(start_args(game, table), script(game.lines), wrapper=KILLER,
                     env={"FAULT_KILL_AFTER": str(n)})
        assert killed.returncode == -signal.SIGKILL, (n, killed.stderr)
        done = finish(game, table)
        over = done.returncode == 2 and "is over; nothing to resume" in done.stderr
        assert done.returncode == 0 or (over and one_line(done.stderr)), (n, done.stderr)
        assert "Traceback" not in done.stderr
        got = table.outcome(game)
        assert got == expected, f"killed after durable step {n} of {total}"
        cases += 1
    print(f"FAULT-CASES sigkill {game.name} {cases} of {total} durable steps")
    return cases


@pytest.mark.slow
def test_a_human_keepers_voyage_survives_a_kill_after_every_durable_step(tmp_path: Path) -> None:
    assert _kill_everywhere(COMPASS_HUMAN, tmp_path) >= 12


@pytest.mark.slow
def test_two_windows_and_its_packet_record_survive_a_kill_after_every_durable_step(tmp_path: Path) -> None:
    assert _kill_everywhere(TWO_WINDOWS, tmp_path) >= 12


@pytest.mark.slow
def test_clover_and_its_record_of_legends_survive_a_kill_after_every_durable_step(tmp_path: Path) -> None:
    assert _kill_everywhere(clover_game(tmp_path), tmp_path) >= 12
