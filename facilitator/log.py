"""The event log: JSON Lines, appended and fsynced before anything is announced.

Every command's events are written as one batch with one ``write`` and one
``fsync``.  Each line carries, beside the event, where its batch starts and how
long it is, and a short chained digest::

    {"type": ..., "seq": 7, "audience": ..., ...fields, "batch": 6, "batch_size": 3, "chain": "9f0c..."}

``batch`` is the seq of the command's first event, ``batch_size`` how many events
the command logged, ``chain`` the first 16 hex digits of SHA-256 over the previous
line's chain and this line without its chain (the first line chains from "").
A command's events are all or nothing: a power cut can leave only the last
batch short or its last line half-written, and reading drops that whole batch
with a note (resuming cuts it off the file).  Anything else that is wrong
(numbering that does not start at 1 or skips, a line not made by the referee, a
damaged middle) makes the log unusable for resuming: nothing is rewritten, so
nothing already logged is lost.  Logs written before batches existed (no
``batch`` on their first line) are read line by line, as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .durable import fsync_directory
from .errors import LogError, WriteError
from .events import Event, is_audience

#: the envelope fields a log line adds around an event (never an event's own fields)
BATCH_FIELDS = ("batch", "batch_size", "chain")
#: the most of a log file that is read (a log of a long game is well under 1 MB)
MAX_LOG_BYTES = 64 * 1024 * 1024


@dataclass
class LogContents:
    """What a log file holds: its events, the last seq, and notes for stderr.

    ``batches`` are the index ranges of ``events`` that one command logged;
    ``good_bytes`` is where the last complete batch ends; ``chain`` is the digest
    the next line chains from."""

    events: list[Event]
    last_seq: int
    notes: list[str] = field(default_factory=list)
    good_bytes: int = 0
    batches: list[tuple[int, int]] = field(default_factory=list)
    chain: str | None = None
    lines: list[dict[str, Any]] = field(default_factory=list)
    #: the file's line number of each event (a blank line between them shifts it from the seq)
    line_numbers: list[int] = field(default_factory=list)


def digest(previous: str, line: bytes) -> str:
    return hashlib.sha256(previous.encode("ascii") + b"\n" + line).hexdigest()[:16]


def _dump(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


#: how every batched log line the referee writes ends: its chain, last
_CHAIN_END = re.compile(rb'"chain":"[0-9a-f]{16}"\}')


def _whole_line(line: bytes, previous: str) -> tuple[dict[str, Any], int] | None:
    """A log's last line that does not parse because bytes follow its end (a flipped
    newline): the line up to its chain, and where it ends, when that part is a JSON
    object whose chain follows from ``previous``; None for a line really cut short."""
    ends = [m.end() for m in _CHAIN_END.finditer(line)]
    if not ends:
        return None
    kept = ends[-1]
    try:
        obj = json.loads(line[:kept].decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    given = obj.get("chain")
    body = {k: v for k, v in obj.items() if k != "chain"}
    if given != digest(previous, _dump(body)):
        return None
    return obj, kept


def _damage(exc: ValueError, line: bytes) -> str:
    """What is wrong with a log line that is not a record, in a player's words (the JSON
    parser's own text, "Expecting ',' delimiter: line 1 column 52", means nothing at a table)."""
    if isinstance(exc, UnicodeDecodeError):
        return (f"holds a byte that is not text (0x{line[exc.start]:02x} at character {exc.start + 1}): "
                "it was damaged or changed outside the game")
    if isinstance(exc, json.JSONDecodeError):
        at = f"at character {exc.pos + 1}"
        if exc.msg == "Extra data":
            return f"has more after the end of its record ({at}): two lines run together, or something was added"
        if exc.pos >= len(line.rstrip()):
            return "breaks off before its record ends: it was cut short"
        return f"is not a whole record: it was damaged or changed by hand ({at})"
    return "is not a record of the game (each line holds one, in braces)"


def check_regular(path: Path, what: str) -> None:
    """Refuse a path that is not a regular file (a FIFO, a device, a directory)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise LogError(f"cannot read {what} {str(path)!r}: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise LogError(f"{what} {str(path)!r} is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise LogError(f"{what} {str(path)!r} is not a regular file")


def read_log(path: Path) -> LogContents:
    """Read every event of ``path``; raise ``LogError`` naming the first bad line."""
    check_regular(path, "log")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_LOG_BYTES + 1)
    except FileNotFoundError:
        raise LogError(f"no log at {str(path)!r}") from None
    except OSError as exc:
        raise LogError(f"cannot read log {str(path)!r}: {exc.strerror}") from None
    if len(raw) > MAX_LOG_BYTES:
        raise LogError(f"log {str(path)!r} is larger than {MAX_LOG_BYTES // 2**20} MB; not a game log")
    return _parse(path, raw)


def _parse(path: Path, raw: bytes) -> LogContents:
    name = repr(str(path))
    lines = raw.split(b"\n")
    contents = LogContents([], 0)
    offset = 0
    batched: bool | None = None
    chain = ""
    open_batch: tuple[int, int, int] | None = None   # (first seq, size, first event index)
    batch_start_bytes = 0
    for number, line in enumerate(lines, 1):
        is_tail = number == len(lines)
        start = offset
        offset += len(line) + 1
        end = min(offset, len(raw))
        if not line.strip():
            if not is_tail and open_batch is None:
                contents.good_bytes = offset
            if not is_tail:
                continue
            break
        try:
            obj = json.loads(line.decode("utf-8"))
            if not isinstance(obj, dict):
                raise ValueError("not an object")  # noqa: TRY004 - caught below as a bad line
        except (ValueError, UnicodeDecodeError) as exc:
            whole = _whole_line(line, chain) if is_tail and batched else None
            if whole is not None:
                # a whole line, its chain verified, then damage where its newline belongs
                # (a flipped byte): a command, not a torn tail; what follows it is cut off
                obj, kept = whole
                contents.notes.append(f"the log's last line (line {number}) ends in {line[kept:]!r} "
                                      "where its newline belongs; its chain verifies, so it is kept "
                                      "and the damage cut off")
                end = start + kept
            elif is_tail:
                what = "the last command's events" if open_batch else "a half-written last line"
                contents.notes.append(f"dropped {what} of the log (line {number}): half-written")
                break
            else:
                raise LogError(f"log {name} line {number} {_damage(exc, line)}; the game cannot be "
                               "resumed from it (the file is left as it is)") from None
        seq = obj.get("seq")
        expected = contents.last_seq + 1
        if seq is None:
            raise LogError(f"log {name} line {number} has no seq (its number, {expected} here): "
                           "not a record the referee wrote")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq != expected:
            if contents.last_seq == 0:
                raise LogError(f"log {name} line {number}: seq {seq!r} does not start the log at 1")
            raise LogError(f"log {name} line {number}: seq {seq!r} does not follow {contents.last_seq}")
        if not isinstance(obj.get("type"), str) or not is_audience(obj.get("audience")):
            raise LogError(f"log {name} line {number}: missing type or audience")
        if batched is None:
            batched = "batch" in obj
        if batched:
            size, first, given = obj.get("batch_size"), obj.get("batch"), obj.pop("chain", None)
            if (not isinstance(size, int) or isinstance(size, bool) or not isinstance(first, int)
                    or isinstance(first, bool) or size < 1):
                raise LogError(f"log {name} line {number}: no batch of its command")
            if open_batch is None:
                if first != seq:
                    raise LogError(f"log {name} line {number}: batch {first} does not start at seq {seq}")
                open_batch = (seq, size, len(contents.events))
                batch_start_bytes = start
            elif (first, size) != open_batch[:2]:
                raise LogError(f"log {name} line {number}: batch {first} of {size} inside batch "
                               f"{open_batch[0]} of {open_batch[1]}")
            chain = digest(chain, _dump(obj))
            if given != chain:
                raise LogError(f"log {name} line {number}: not the line the referee wrote "
                               "(its chain does not match)")
        else:
            for key in BATCH_FIELDS:
                if key in obj:
                    raise LogError(f"log {name} line {number}: {key!r} in a log without batches")
            open_batch = (seq, 1, len(contents.events))
            batch_start_bytes = start
        try:
            event = Event.from_json({k: v for k, v in obj.items() if k not in BATCH_FIELDS})
        except ValueError as exc:
            raise LogError(f"log {name} line {number}: {exc}") from None
        contents.events.append(event)
        contents.lines.append(obj)
        contents.line_numbers.append(number)
        contents.last_seq = seq
        if seq - open_batch[0] + 1 == open_batch[1]:
            contents.batches.append((open_batch[2], len(contents.events)))
            contents.good_bytes = end
            contents.chain = chain if batched else None
            open_batch = None
    if open_batch is not None:
        dropped = len(contents.events) - open_batch[2]
        if not any("dropped" in n for n in contents.notes):
            contents.notes.append(f"dropped the last command's events of the log (seq {open_batch[0]} on): "
                                  f"{dropped} of {open_batch[1]} written")
        del contents.events[open_batch[2]:]
        del contents.lines[open_batch[2]:]
        del contents.line_numbers[open_batch[2]:]
        contents.last_seq = open_batch[0] - 1
        contents.good_bytes = batch_start_bytes
    elif batched and contents.chain is None:
        contents.chain = chain
    if not contents.events:
        raise LogError(f"log {name} holds no events")
    if contents.events[0].type != "game-started":
        raise LogError(f"log {name} does not start with game-started")
    if batched is False:
        contents.chain = None
    return contents


class EventLog:
    """An append-only JSONL file; ``append`` writes one command's batch and fsyncs once."""

    def __init__(self, path: Path | None, next_seq: int = 1, chain: str | None = "") -> None:
        self.path = path
        self.next_seq = next_seq
        self._chain = chain          # None: an old log without batches
        self._file: IO[bytes] | None = None
        self._identity: tuple[int, int] | None = None   # (device, inode) of the file opened
        self._lost: str | None = None     # why the log was found taken away (it was written back)
        self.lock: Any = None
        if path is not None:
            check_regular(path, "log")
            new = not path.exists()
            try:
                if path.parent and not path.parent.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(path, "a+b")  # noqa: SIM115 - the log stays open for the game; readable: a log taken away mid-game is copied back
            except OSError as exc:
                raise WriteError(f"cannot write the log {str(path)!r}: {exc.strerror}") from None
            from .locks import lock_log

            try:
                self.lock = lock_log(path, self._file)
            except BaseException:
                self._file.close()
                self._file = None
                raise
            opened = os.fstat(self._file.fileno())
            self._identity = (opened.st_dev, opened.st_ino)
            if new:
                fsync_directory(path.parent)

    @classmethod
    def resume(cls, path: Path) -> tuple[EventLog, LogContents]:
        """Lock and open ``path`` to continue it, cutting a half-written last batch off."""
        check_regular(path, "log")
        if not path.exists():
            raise LogError(f"no log at {str(path)!r}")
        log = cls(path, 0, None)      # locked before it is read or cut
        try:
            contents = read_log(path)
            log.next_seq, log._chain = contents.last_seq + 1, contents.chain
            size = path.stat().st_size
            ends = _ends_with_newline(path, contents.good_bytes)
            if contents.good_bytes < size or not ends:
                with open(path, "r+b") as f:
                    f.truncate(contents.good_bytes)
                    f.seek(0, os.SEEK_END)
                    if not ends:
                        f.write(b"\n")
                    f.flush()
                    os.fsync(f.fileno())
        except OSError as exc:
            log.close()
            raise WriteError(f"cannot write the log {str(path)!r}: {exc.strerror}") from None
        except BaseException:
            log.close()
            raise
        return log, contents

    def append(self, events: Iterable[Event]) -> list[dict[str, Any]]:
        """Number, write and fsync one command's ``events``; return their log lines.

        On a write error the file is cut back to where it was, so the log holds the
        whole command or none of it, and ``WriteError`` says why."""
        batch = list(events)
        first = self.next_seq
        lines = [event.to_json(first + i) for i, event in enumerate(batch)]
        if self._lost is not None:
            raise WriteError(self._lost)       # written back already: nothing goes on a lost file
        if self._file is None or not lines:
            self.next_seq += len(lines)
            return lines
        data = []
        chain = self._chain
        for line in lines:
            if chain is None:
                data.append(_dump(line) + b"\n")
                continue
            body = {**line, "batch": first, "batch_size": len(lines)}
            chain = digest(chain, _dump(body))
            data.append(_dump({**body, "chain": chain}) + b"\n")
        _write_all(self._file, b"".join(data), self.path)
        self._chain = chain
        self.next_seq += len(lines)
        self._check_still_there()
        return lines

    def check_kept(self) -> None:
        """``WriteError`` when the log is no longer at its path (see ``_taken_away``): a
        "quit" checks it before saying goodbye, as a command does before announcing."""
        if self._lost is not None:
            raise WriteError(self._lost)
        self._check_still_there()

    def _check_still_there(self, stopped: str = "stopped before announcing; ") -> None:
        problem = self._taken_away(stopped)
        if problem is not None:
            raise WriteError(problem)

    def _taken_away(self, stopped: str) -> str | None:
        """None while the file written is the log at ``path``; else (removed, renamed,
        replaced, its file system unmounted) everything written is put back at ``path``
        when nothing is there (else beside it, ``.rescued``) and the line that says so is
        returned: what was fsynced would exist on no log a resume can find, so nothing
        more may be announced or written."""
        if self._file is None or self.path is None:
            return None
        fd = self._file.fileno()
        mine = os.fstat(fd)
        try:
            there = os.stat(self.path)
            same = (there.st_dev, there.st_ino) == self._identity
        except OSError:
            there, same = None, False
        if same and mine.st_nlink > 0:
            return None
        name = repr(str(self.path))
        what = "was removed" if there is None else "was replaced by another file"
        target = self.path if there is None else _free_name(self.path.with_name(self.path.name + ".rescued"))
        try:
            _copy_out(fd, mine.st_size, target)
        except OSError as exc:
            self._lost = (f"the log {name} {what} during the game: {stopped}"
                          f"its events cannot be written back to {str(target)!r} ({exc.strerror or exc})")
            return self._lost
        resume = f"--resume {target}" if target == self.path else f"put {str(target)!r} back as the log"
        self._lost = (f"the log {name} {what} during the game: {stopped}"
                      f"everything logged is written back to {str(target)!r} ({resume} to go on)")
        return self._lost

    def discard(self) -> None:
        """Empty the file (it held only a torn opening batch: no game)."""
        if self._file is not None:
            try:
                os.ftruncate(self._file.fileno(), 0)
                os.fsync(self._file.fileno())
            except OSError as exc:
                raise WriteError(f"cannot write the log {str(self.path)!r}: {exc.strerror}") from None

    @property
    def crashed(self) -> bool:
        """Whether the process that wrote this log before ended without closing it."""
        return bool(self.lock is not None and self.lock.crashed)

    def close(self) -> None:
        """Close the log and release its lock.  A log taken away since its last command
        (only queries, "quit" or the end of input followed) is written back first, as after
        a command, and ``WriteError`` then says where, once the log is closed."""
        lost = self._taken_away("") if self._lost is None else None
        if self._file is not None:
            self._file.close()
            self._file = None
        if self.lock is not None:
            self.lock.release()
            self.lock = None
        if lost is not None:
            raise WriteError(lost)


def _write_all(f: IO[bytes], data: bytes, path: Path | None) -> None:
    """Write ``data`` and fsync; on failure cut the file back and raise ``WriteError``."""
    fd = f.fileno()
    before = os.fstat(fd).st_size
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fsync(fd)
    except OSError as exc:
        try:
            os.ftruncate(fd, before)
            os.fsync(fd)
        except OSError:
            pass        # reading drops the short batch anyway
        raise WriteError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None


def _free_name(path: Path) -> Path:
    """``path``, or ``path-2``, ``path-3``... the first that does not exist."""
    n, candidate = 2, path
    while candidate.exists():
        candidate, n = path.with_name(f"{path.name}-{n}"), n + 1
    return candidate


def _copy_out(fd: int, size: int, target: Path) -> None:
    """Write the first ``size`` bytes of the open file ``fd`` to a new file ``target``."""
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    done = False
    try:
        offset = 0
        while offset < size:
            chunk = os.pread(fd, min(1 << 20, size - offset), offset)
            if not chunk:
                break
            view = memoryview(chunk)
            while view:
                view = view[os.write(out, view):]
            offset += len(chunk)
        os.fsync(out)
        done = True
    finally:
        os.close(out)
        if not done:
            target.unlink(missing_ok=True)
    fsync_directory(target.parent)


def _ends_with_newline(path: Path, size: int) -> bool:
    if size == 0:
        return True
    with open(path, "rb") as f:
        f.seek(size - 1)
        return f.read(1) == b"\n"


def write_private(path: Path, lines: Sequence[dict[str, Any]]) -> None:
    """Append private messages (the log envelope plus ``text``) to ``path``, fsynced."""
    if not lines:
        return
    check_regular(path, "--private")
    try:
        f = open(path, "ab")  # noqa: SIM115 - open for the whole game
    except OSError as exc:
        raise WriteError(f"cannot write private messages to {str(path)!r}: {exc.strerror}") from None
    with f:
        data = b"".join(json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n" for line in lines)
        size = os.fstat(f.fileno()).st_size
        if size and not _ends_with_newline(path, size):
            data = b"\n" + data          # after a half-written line, start a fresh one
        _write_all(f, data, path)


def delivered_seqs(path: Path, game_id: str) -> set[int]:
    """The seqs of game ``game_id``'s private messages that ``path`` already holds (a torn
    last line counts not)."""
    check_regular(path, "--private")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_LOG_BYTES)
    except FileNotFoundError:
        return set()
    except OSError as exc:
        raise WriteError(f"cannot read private messages in {str(path)!r}: {exc.strerror}") from None
    seqs = set()
    for line in raw.split(b"\n"):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("seq"), int) and obj.get("game_id") == game_id:
            seqs.add(obj["seq"])
    return seqs
