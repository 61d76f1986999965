"""Bad paths and broken streams: one line on stderr, exit 2, never a traceback, and
nothing already logged lost.  Read-only places are real read-only bind mounts made
in a user namespace (``unshare -rm``, no root needed); where the machine does not
allow user namespaces those cases are skipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults.fault_games import (
    COMPASS_HUMAN,
    COMPASS_MACHINE,
    Table,
    one_line,
    run,
    script,
    start_args,
)
from support import ROOT, deadline

GAME = ["play", "compass-code", "--text", "--seed", "1"]


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False)
    return probe.returncode == 0


needs_userns = pytest.mark.skipif(not _unshare_works(), reason="no user namespaces for a read-only mount")


def run_read_only(paths: list[Path], args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    """The CLI with each of ``paths`` bind-mounted read-only (in its own mount namespace)."""
    mounts = " && ".join(f"mount --bind '{p}' '{p}' && mount -o remount,bind,ro '{p}'" for p in paths)
    command = ["unshare", "-rm", "sh", "-c", f'{mounts} && exec "$@"', "sh",
               sys.executable, "-m", "facilitator", *args]
    proc = subprocess.run(command, input=stdin, capture_output=True, timeout=deadline(60), cwd=ROOT, env=os.environ.copy(),
                          check=False)
    return subprocess.CompletedProcess(command, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


@pytest.mark.parametrize("args, says", [
    (["--log", ""], "--log needs a path"),
    (["--private", ""], "--private needs a path"),
    (["--log", "/dev/null"], "is not a regular file"),
    (["--log", "{tmp}"], "is a directory"),
    (["--private", "{tmp}", "--keeper", "human"], "is a directory"),
    (["--data-dir", "{tmp}/file"], "is not a directory"),
])
def test_a_path_that_cannot_be_a_file_is_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    (tmp_path / "file").write_text("x")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = run([*GAME, *args], b"send north east south west\n")
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert says in done.stderr and done.stdout == ""


def test_stdout_to_dev_full_is_one_line_and_the_game_is_kept(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "facilitator", *GAME, "--log", str(log)],
                              input=b"send north east south west\n", stdout=full, stderr=subprocess.PIPE,
                              cwd=ROOT, timeout=deadline(60), check=False)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and one_line(err), err
    assert "cannot write to standard output" in err
    resumed = run(["play", "compass-code", "--text", "--resume", str(log)], b"")
    assert resumed.returncode == 0 and resumed.stdout.startswith("Resuming the game.")


def test_a_closed_stdout_is_one_line(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    proc = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "facilitator", *GAME,
                           "--log", str(log)], input=b"send north east south west\n", stderr=subprocess.PIPE,
                          cwd=ROOT, timeout=deadline(60), check=False)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and one_line(err), err
    assert "standard output is closed" in err
    assert not log.exists() or b"send" not in log.read_bytes()   # nothing went into the log by mistake


def test_resume_on_a_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    started = time.monotonic()
    done = run(["play", "compass-code", "--text", "--resume", str(fifo)], b"", timeout=20)
    assert done.returncode == 2 and one_line(done.stderr) and "not a regular file" in done.stderr
    assert time.monotonic() - started < deadline(15)


MEASURE = """
import resource, subprocess, sys
with open(sys.argv[1], "rb") as stdin:
    done = subprocess.run(sys.argv[2:], stdin=stdin, capture_output=True, check=False)
sys.stdout.buffer.write(done.stdout)
sys.stderr.buffer.write(done.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, file=sys.stderr)
sys.exit(done.returncode)
"""


def _peak_rss(feed: Path, log: Path) -> tuple[subprocess.CompletedProcess[str], int]:
    """Play Compass Code on ``feed`` and return the run and the child's peak RSS in bytes,
    measured by a small parent (a fork of pytest would count pytest)."""
    done = run(["-c", MEASURE, str(feed), sys.executable, "-m", "facilitator", *GAME, "--log", str(log)],
               wrapper=[], timeout=180)
    *err, peak = done.stderr.splitlines()
    done.stderr = "\n".join(err)
    return done, int(peak)


def test_a_64_mb_line_is_refused_without_being_read_whole(tmp_path: Path) -> None:
    short = tmp_path / "short"
    short.write_bytes(b"send north east south west\n")
    _, baseline = _peak_rss(short, tmp_path / "short.jsonl")
    log = tmp_path / "g.jsonl"
    feed = tmp_path / "stdin"
    with open(feed, "wb") as f:          # written in pieces: this test never holds it whole either
        f.write(b"send ")
        f.writelines(b"north " * (2**20 // 6) for _ in range(64))
        f.write(b"\nsend north east south west\n")
    size = feed.stat().st_size
    done, peak = _peak_rss(feed, log)
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert said.count("That was too long to be a command. Say again?") == 1
    assert any(s.startswith("North east south west:") for s in said)     # the next line is played as usual
    rejected = [line for line in log.read_text().splitlines() if "command-rejected" in line]
    assert len(rejected) == 1 and len(rejected[0]) < 1000
    # never held whole: the long line adds far less than its own size to the process's peak
    # (reading it whole added over 200 MB).  Against the same game on a short line, not an
    # absolute size: an interpreter's own memory differs by machine (under qemu-user the
    # translator's code cache alone passes 64 MB).
    assert peak - baseline < size // 4, (peak, baseline)


def test_settings_nested_5000_levels_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "config.toml"
    deep.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    for args in (["settings", "check", "--config", str(deep)], ["serve", "--text", "--config", str(deep)]):
        done = run(args, b"quit\n")
        assert done.returncode == 2 and one_line(done.stderr), done.stderr
        assert "nested too deeply" in done.stderr


def test_settings_init_on_a_file_as_parent_and_force_on_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    under_file = run(["settings", "init", "--config", str(tmp_path / "file" / "config.toml")])
    assert under_file.returncode == 2 and one_line(under_file.stderr), under_file.stderr
    (tmp_path / "dir").mkdir()
    forced = run(["settings", "init", "--force", "--config", str(tmp_path / "dir")])
    assert forced.returncode == 2 and one_line(forced.stderr) and "not a file" in forced.stderr


@needs_userns
def test_settings_init_on_a_read_only_mount(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    done = run_read_only([ro], ["settings", "init", "--config", str(ro / "config.toml")])
    assert done.returncode == 2 and one_line(done.stderr) and "Read-only file system" in done.stderr


@needs_userns
def test_a_read_only_data_directory_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    done = run_read_only([data], [*GAME, "--data-dir", str(data)], b"send north east south west\n")
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert "Read-only file system" in done.stderr and "data directory" in done.stderr


@needs_userns
def test_a_read_only_log_is_one_line_and_kept(tmp_path: Path) -> None:
    table = Table(tmp_path / "t")
    assert run(start_args(COMPASS_MACHINE, table), script(COMPASS_MACHINE.lines[:2])).returncode == 0
    before = table.log.read_bytes()
    done = run_read_only([table.log], ["play", "compass-code", "--text", "--resume", str(table.log)],
                         script(COMPASS_MACHINE.lines[2:]))
    assert done.returncode == 2 and one_line(done.stderr) and "Read-only file system" in done.stderr
    assert table.log.read_bytes() == before


@needs_userns
def test_a_read_only_private_file_stops_the_game_and_resume_delivers_what_is_owed(tmp_path: Path) -> None:
    table = Table(tmp_path / "t")
    table.private.write_text("")
    args = start_args(COMPASS_HUMAN, table)
    done = run_read_only([table.private], args, script(COMPASS_HUMAN.lines))
    assert done.returncode == 2 and one_line(done.stderr) and "Read-only file system" in done.stderr
    assert table.private.read_text() == ""
    # the keeper's route was logged but never reached the keeper: resume delivers it
    resumed = run(["play", "compass-code", "--text", "--resume", str(table.log), "--private", str(table.private),
                   "--data-dir", str(table.data)], b"")
    assert resumed.returncode == 0, resumed.stderr
    assert "Leg 1: your route is east south north west" in table.private.read_text()
