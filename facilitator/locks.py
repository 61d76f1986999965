"""One facilitator per event log and per data directory: exclusive ``flock`` locks.

A second copy started by mistake (two ``play --resume`` on one log, two lobbies on
one table) must not write into the same files.  Every log is locked while it is
open, and every ``play`` and ``serve`` locks the table's data directory (its
records, its game logs, its screen tokens) for as long as it runs.  The lock is
``fcntl.flock`` on the file itself (a log) or on ``.lock`` in the directory, so a
crash or a SIGKILL releases it with the process.  Beside a held lock, a small
``.NAME.pid`` file (or ``.lock`` itself) says which process holds it, so the
second copy can name the first.

API (also for other parts of the project that write into the data directory)::

    lock = lock_data_dir(directory)   # InUseError naming the holder's pid, or WriteError
    ...                               # write records, tokens, logs
    lock.release()                    # or let the process end

``lock_data_dir`` is re-entrant within a process: the second call from the same
process returns the held lock (released when every holder has released it), so
the screens and the session may both ask for it.  ``held_data_dir(directory)``
says whether this process holds it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import IO

from .errors import InUseError, WriteError

LOCK_NAME = ".lock"
_HELD: dict[str, DataDirLock] = {}


def _holder(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _named(pid: int | None) -> str:
    return f"pid {pid}" if pid is not None else "another process"


class LogLock:
    """The lock on one open log (its file descriptor) and the note of who holds it.

    ``crashed``: the note of an earlier holder was still there, so that process ended
    without closing the log (a crash, a kill, a power cut)."""

    def __init__(self, note: Path | None, crashed: bool = False) -> None:
        self.note = note
        self.crashed = crashed

    def release(self) -> None:
        if self.note is not None:
            try:
                self.note.unlink()
            except OSError:
                pass
            self.note = None


def lock_log(path: Path, file: IO[bytes]) -> LogLock:
    """Lock the open log ``file``; ``InUseError`` when another process has it open."""
    note = path.with_name(f".{path.name}.pid")
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = _holder(note)
        raise InUseError(f"the log {str(path)!r} is in use by another facilitator ({_named(pid)}); "
                         "stop it first, or play with another --log", pid) from None
    except OSError:
        return LogLock(None)     # a file system without locks: go on unlocked
    crashed = note.exists()
    try:
        with open(note, "w", encoding="ascii") as f:
            f.write(f"{os.getpid()}\n")
            f.flush()
            os.fsync(f.fileno())   # so that after a power cut it still says one was running
    except OSError:
        return LogLock(None, crashed)
    return LogLock(note, crashed)


class DataDirLock:
    """This process's lock on a data directory."""

    def __init__(self, key: str, file: IO[str]) -> None:
        self.key = key
        self.file: IO[str] | None = file
        self.count = 1

    def release(self) -> None:
        self.count -= 1
        if self.count > 0 or self.file is None:
            return
        _HELD.pop(self.key, None)
        self.file.close()           # closing the descriptor releases the flock
        self.file = None


def lock_data_dir(directory: Path) -> DataDirLock:
    """Lock ``directory`` (made if missing) for this process; re-entrant.

    ``InUseError`` names the pid of the facilitator that holds it; ``WriteError`` says
    why the directory cannot be used (read-only, a file in the way)."""
    key = os.path.realpath(directory)
    held = _HELD.get(key)
    if held is not None and held.file is not None:
        held.count += 1
        return held
    path = Path(directory) / LOCK_NAME
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
        file = open(path, "a+", encoding="ascii")  # noqa: SIM115 - held open: the lock lives as long as the file
    except OSError as exc:
        raise WriteError(f"cannot use the data directory {str(directory)!r}: {exc.strerror}") from None
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        file.close()
        pid = _holder(path)
        raise InUseError(f"the data directory {str(directory)!r} is in use by another facilitator "
                         f"({_named(pid)}); one table runs one facilitator", pid) from None
    except OSError:
        pass                        # no locks on this file system: go on unlocked
    try:
        file.seek(0)
        file.truncate()
        file.write(f"{os.getpid()}\n")
        file.flush()
    except OSError as exc:
        with contextlib.suppress(OSError):   # closing flushes the same write again: a full disk fails twice
            file.close()
        raise WriteError(f"cannot use the data directory {str(directory)!r}: {exc.strerror}") from None
    lock = DataDirLock(key, file)
    _HELD[key] = lock
    return lock


def held_data_dir(directory: Path) -> bool:
    """Whether this process holds ``directory``'s lock."""
    held = _HELD.get(os.path.realpath(directory))
    return held is not None and held.file is not None
