"""One facilitator per log and per data directory: a second copy started by mistake
gets one line naming the first (its pid) and exit 2, and writes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults.fault_games import COMPASS_MACHINE, Table, one_line, run, script, start_args
from support import ROOT, deadline


def _first(args: list[str], ready: Path) -> subprocess.Popen[bytes]:
    """A running facilitator that waits on stdin (the table is mid-game)."""
    proc = subprocess.Popen([sys.executable, "-m", "facilitator", *args], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=os.environ.copy())
    deadline = time.monotonic() + 30
    try:
        while not (ready.exists() and ready.stat().st_size > 0):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the first copy never started"
            time.sleep(0.05)
    except BaseException:
        proc.kill()
        _stop(proc)
        raise
    return proc


def _stop(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=deadline(30))
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


@pytest.mark.slow
def test_two_resumes_of_one_log(tmp_path: Path) -> None:
    table = Table(tmp_path / "t")
    assert run(start_args(COMPASS_MACHINE, table), script(COMPASS_MACHINE.lines[:2])).returncode == 0
    first = _first(["play", "compass-code", "--text", "--resume", str(table.log), "--data-dir",
                    str(tmp_path / "one")], table.root / ".game.jsonl.pid")
    try:
        before = table.log.read_bytes()
        second = run(["play", "compass-code", "--text", "--resume", str(table.log), "--data-dir",
                      str(tmp_path / "two")], script(COMPASS_MACHINE.lines[2:]))
        assert second.returncode == 2 and one_line(second.stderr), (first.poll(), first.stderr.read(), second.stderr)
        assert f"pid {first.pid}" in second.stderr and "in use" in second.stderr
        assert table.log.read_bytes() == before          # the second wrote nothing
    finally:
        _stop(first)
    assert first.returncode == 0


@pytest.mark.slow
def test_two_games_on_one_data_directory(tmp_path: Path) -> None:
    data = tmp_path / "data"
    private = tmp_path / "p.jsonl"
    first = _first(["play", "two-windows", "--text", "--seed", "1", "--data-dir", str(data),
                    "--private", str(private)], data / "two-windows.json")
    try:
        record = (data / "two-windows.json").read_bytes()
        second = run(["play", "two-windows", "--text", "--seed", "2", "--data-dir", str(data),
                      "--private", str(tmp_path / "q.jsonl")], b"")
        assert second.returncode == 2 and one_line(second.stderr), second.stderr
        assert f"pid {first.pid}" in second.stderr and "data directory" in second.stderr
        assert (data / "two-windows.json").read_bytes() == record    # no packet marked twice
    finally:
        _stop(first)


@pytest.mark.slow
def test_a_second_lobby_says_so_aloud_and_exits_2(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = _first(["serve", "--text", "--data-dir", str(data)], data / ".lock")
    try:
        second = run(["serve", "--text", "--data-dir", str(data)], b"quit\n")
        assert second.returncode == 2 and one_line(second.stderr), second.stderr
        assert f"pid {first.pid}" in second.stderr
        assert second.stdout.splitlines() == [
            (f"Another copy of the assistant is already running at this table, process {first.pid}. "
            "Stop it first; this copy stops now.")]
    finally:
        _stop(first)


@pytest.mark.slow
def test_a_second_voice_lobby_speaks_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    speech = tmp_path / "speech"
    clip = next((ROOT / "tests" / "audio").rglob("*.wav"))
    first = _first(["serve", "--text", "--data-dir", str(data)], data / ".lock")
    try:
        second = run(["serve", "--data-dir", str(data), "--audio-in", str(clip), "--speech-out", str(speech)])
        assert second.returncode == 2 and one_line(second.stderr), second.stderr
        spoken = sorted(speech.glob("*-speech.txt"))
        assert [p.read_text().strip() for p in spoken] == [
            (f"Another copy of the assistant is already running at this table, process {first.pid}. "
            "Stop it first; this copy stops now.")]
        assert spoken[0].with_suffix(".wav").stat().st_size > 1000     # said aloud, by espeak-ng
    finally:
        _stop(first)


@pytest.mark.slow
def test_a_log_given_again_with_log_is_refused_naming_resume(tmp_path: Path) -> None:
    table = Table(tmp_path / "t")
    assert run(start_args(COMPASS_MACHINE, table), script(COMPASS_MACHINE.lines[:3])).returncode == 0
    before = table.log.read_bytes()
    again = run(start_args(COMPASS_MACHINE, table), script(COMPASS_MACHINE.lines[3:]))
    assert again.returncode == 2 and one_line(again.stderr), again.stderr
    assert "--resume" in again.stderr and "already holds a game" in again.stderr
    assert table.log.read_bytes() == before
