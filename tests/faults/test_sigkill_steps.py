"""SIGKILL right after every durable step (log fsync, private write, record write,
rename), with real subprocesses: the resumed game ends exactly as the straight one.

For each game the straight run is played once under the counting wrapper to learn
its durable steps and their kinds; then one run per chosen step is killed right
after it and finished by ``--resume`` with the lines its log does not hold.  The finished
run must have the same log bytes, every private message once, the same records,
and no stale temporary file.  Kill points are sampled to keep CI short: every kind
of step (log fsync, private fsync, record fsync, rename, directory fsync, lock note)
at its first, middle and last occurrence, and every step of the game's end.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from faults.fault_games import (
    COMPASS_HUMAN,
    TWO_WINDOWS,
    Game,
    Table,
    clover_game,
    finish,
    one_line,
    run,
    script,
    start_args,
    straight,
)

KILLER = [str(Path(__file__).with_name("killer.py"))]
#: kill points per kind of durable step (spread over the game)
PER_KIND = 3


def _steps(game: Game, root: Path) -> list[str]:
    """The kind of each durable step of the straight game, in order."""
    table = Table(root)
    count = root / "count"
    done = run(start_args(game, table), script(game.lines), wrapper=KILLER,
               env={"FAULT_KILL_AFTER": "0", "FAULT_COUNT_FILE": str(count)})
    assert done.returncode == 0, done.stderr
    return count.read_text().split()


def _points(kinds: list[str]) -> list[int]:
    """Kill points: every kind of step at its first, middle and last occurrence (and a few
    more between), and every step of the game's end, where the records are written."""
    chosen = set(range(max(1, len(kinds) - 5), len(kinds) + 1))
    for kind in set(kinds):
        at = [n for n, k in enumerate(kinds, 1) if k == kind]
        picks = min(len(at), PER_KIND)
        chosen.update(at[round(i * (len(at) - 1) / max(1, picks - 1))] for i in range(picks))
    return sorted(chosen)


def _kill_everywhere(game: Game, tmp_path: Path) -> int:
    expected = straight(game, tmp_path / "straight").outcome(game)
    kinds = _steps(game, tmp_path / "count")
    total = len(kinds)
    points = _points(kinds)
    assert {kinds[n - 1] for n in points} >= {"log", "lock-note"} | ({"private"} if game.private else set()) | (
        {"record", "rename", "directory"} if game.records else set())
    cases = 0
    for n in points:
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
    print(f"FAULT-CASES sigkill {game.name} {cases} of {total} durable steps, kinds "
          f"{sorted({kinds[n - 1] for n in points})}")
    return cases


@pytest.mark.slow
def test_a_human_keepers_voyage_survives_a_kill_after_every_durable_step(tmp_path: Path) -> None:
    assert _kill_everywhere(COMPASS_HUMAN, tmp_path) >= 8


@pytest.mark.slow
def test_two_windows_and_its_packet_record_survive_a_kill_after_every_durable_step(tmp_path: Path) -> None:
    assert _kill_everywhere(TWO_WINDOWS, tmp_path) >= 8


@pytest.mark.slow
def test_clover_and_its_record_of_legends_survive_a_kill_after_every_durable_step(tmp_path: Path) -> None:
    assert _kill_everywhere(clover_game(tmp_path), tmp_path) >= 8
