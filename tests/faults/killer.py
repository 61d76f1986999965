"""Run the facilitator CLI and SIGKILL it right after its Nth durable step.

usage: python killer.py ARGS...   with FAULT_KILL_AFTER=N (0: never) and
FAULT_COUNT_FILE=PATH (written at exit: the kind of each durable step the run took,
one a line: log, private, record, rename, directory, lock-note).

A durable step is an ``os.fsync`` (the log's, the private file's, a record's
temporary file, a directory's) or an ``os.replace`` (a record's rename).  The
kill is a real SIGKILL of this real process, as a crash or a power cut would be;
nothing in the project is changed, only these two calls are counted.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys

KILL_AFTER = int(os.environ.get("FAULT_KILL_AFTER", "0"))
COUNT_FILE = os.environ.get("FAULT_COUNT_FILE")
_kinds: list[str] = []
_fsync, _replace = os.fsync, os.replace


def _step(kind: str) -> None:
    _kinds.append(kind)
    if len(_kinds) == KILL_AFTER:
        os.kill(os.getpid(), signal.SIGKILL)


def _kind(fd: int) -> str:
    """What an fsync makes durable: the log, the private file, a record, a directory, a lock note."""
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "fsync"
    if os.path.isdir(target):
        return "directory"
    name = os.path.basename(target)
    if name.endswith(".tmp"):
        return "record"
    if name.endswith(".pid"):
        return "lock-note"
    if "private" in name:
        return "private"
    return "log"


def fsync(fd: int) -> None:
    kind = _kind(fd)
    _fsync(fd)
    _step(kind)


def replace(src: str, dst: str, *args: object, **kwargs: object) -> None:
    _replace(src, dst, *args, **kwargs)  # type: ignore[arg-type]
    _step("rename")


def _report() -> None:
    if COUNT_FILE:
        with open(COUNT_FILE, "w") as f:
            f.write("\n".join(_kinds))


os.fsync = fsync  # type: ignore[assignment]
os.replace = replace  # type: ignore[assignment]
atexit.register(_report)

from facilitator.cli import main

sys.argv[0] = "facilitator"
code = main(sys.argv[1:])
sys.stdout.flush()
sys.exit(code)
