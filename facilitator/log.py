"""The event log: JSON Lines, appended and fsynced before anything is announced.

A power cut can leave a half-written last line; reading drops it with a note
(and resuming cuts it off the file).  Any other unreadable line makes the log
unusable for resuming: nothing is rewritten, so nothing already logged is lost.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .errors import LogError
from .events import Event, is_audience


@dataclass
class LogContents:
    """What a log file holds: its events, the last seq, and notes for stderr."""

    events: list[Event]
    last_seq: int
    notes: list[str] = field(default_factory=list)
    good_bytes: int = 0


def read_log(path: Path) -> LogContents:
    """Read every event of ``path``; raise ``LogError`` naming the first bad line."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise LogError(f"no log at {str(path)!r}") from None
    except OSError as exc:
        raise LogError(f"cannot read log {str(path)!r}: {exc.strerror}") from None
    lines = raw.split(b"\n")
    events: list[Event] = []
    notes: list[str] = []
    last_seq = 0
    offset = good = 0
    for number, line in enumerate(lines, 1):
        is_tail = number == len(lines)
        start = offset
        offset += len(line) + 1
        if not line.strip():
            if not is_tail:
                good = offset
            continue
        try:
            obj = json.loads(line.decode("utf-8"))
            event = _check(obj, last_seq)
        except (ValueError, UnicodeDecodeError) as exc:
            if is_tail:
                notes.append(f"dropped a half-written last line of the log (line {number})")
                good = start
                break
            raise LogError(f"log {str(path)!r} line {number}: {exc}") from None
        events.append(event)
        last_seq = obj["seq"]
        good = offset if not is_tail else offset - 1
    if not events:
        raise LogError(f"log {str(path)!r} holds no events")
    if events[0].type != "game-started":
        raise LogError(f"log {str(path)!r} does not start with game-started")
    return LogContents(events, last_seq, notes, good)


def _check(obj: Any, last_seq: int) -> Event:
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    seq = obj.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq <= last_seq:
        raise ValueError(f"seq {seq!r} does not follow {last_seq}")
    if not isinstance(obj.get("type"), str) or not is_audience(obj.get("audience")):
        raise ValueError("missing type or audience")
    return Event.from_json(obj)


class EventLog:
    """An append-only JSONL file; ``append`` writes a batch and fsyncs once."""

    def __init__(self, path: Path | None, next_seq: int = 1) -> None:
        self.path = path
        self.next_seq = next_seq
        self._file: IO[bytes] | None = None
        if path is not None:
            new = not path.exists()
            if path.parent and not path.parent.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(path, "ab")
            if new:
                _fsync_dir(path.parent)

    @classmethod
    def resume(cls, path: Path) -> tuple[EventLog, LogContents]:
        """Open ``path`` to continue it, cutting a half-written last line off."""
        contents = read_log(path)
        size = path.stat().st_size
        if contents.good_bytes < size or not _ends_with_newline(path, contents.good_bytes):
            with open(path, "r+b") as f:
                f.truncate(contents.good_bytes)
                f.seek(0, os.SEEK_END)
                if not _ends_with_newline(path, contents.good_bytes):
                    f.write(b"\n")
                f.flush()
                os.fsync(f.fileno())
        return cls(path, contents.last_seq + 1), contents

    def append(self, events: Iterable[Event]) -> list[dict[str, Any]]:
        """Number, write and fsync ``events``; return their log lines."""
        lines = []
        for event in events:
            lines.append(event.to_json(self.next_seq))
            self.next_seq += 1
        if self._file is not None and lines:
            data = b"".join(
                json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
                for line in lines
            )
            self._file.write(data)
            self._file.flush()
            os.fsync(self._file.fileno())
        return lines

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _ends_with_newline(path: Path, size: int) -> bool:
    with open(path, "rb") as f:
        f.seek(size - 1)
        return f.read(1) == b"\n"


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_private(path: Path, lines: Sequence[dict[str, Any]]) -> None:
    """Append private messages (the log envelope plus ``text``) to ``path``."""
    if not lines:
        return
    with open(path, "ab") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n")
        f.flush()
        os.fsync(f.fileno())
