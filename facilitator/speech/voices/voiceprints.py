"""The table's enrolled voices: seat -> d-vectors, kept with the game so ``--resume`` keeps them.

A voiceprint says who someone is, so it is kept apart from the event log (which a
table may share or paste into a bug report): a private file beside the log,
``GAME.jsonl.voices`` (mode 0600), written to a temporary file, fsynced and
renamed, like the table's records.  It carries the game's id, so a file left
by another game of the same name is ignored and replaced.  A game without
``--log`` keeps its voices in memory only.  What the file holds:

    {"game_id": "...", "declined": false, "seats": {"1": [[256 floats], ...], ...},
     "bearings": {"1": 47.5, ...}}

``bearings`` (at a microphone array only) is where each seat speaks from, degrees
0-360 at the array (``direction.py``): learned at enrollment and moved as the
player leans (``seats.py``), so a resumed game keeps it too.

``declined`` is the table's spoken "no" to the enrollment question: a resumed
game does not ask again.

Reading it back never hangs, never reads without bound and never fails the game:
the path must be a regular file (a FIFO, a device, a directory is set aside
unread) of at most ``MAX_BYTES``; its fields are validated (pydantic, strict); a
line of a seat that is not ``dimension`` finite numbers, is all zeros or holds a
number far past a voice's (``MAX_MAGNITUDE``), is set
aside, and so is a field of the wrong type (``"declined": "false"``).  What was
set aside is said in one line (``problem``); what is sound is kept, and the seats
left without a line are asked again.  A kept file readable by others is made
private (0600) when it is read.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from ...durable import fsync_directory
from .speaker_embed import DIMENSION

#: lines kept per seat (an enrollment said again adds one; the oldest goes)
MAX_LINES = 3
#: the largest number a voice line may hold: the embedder's lines are unit vectors (every
#: number within ±1); far past that is no voice, and past float32's range it would overflow
MAX_MAGNITUDE = 1000.0
#: the largest file read back (eight seats of three 256-number lines take about 80 KB)
MAX_BYTES = 1 << 20

_Number = Annotated[float, Field(allow_inf_nan=False)]
_Seat = Annotated[str, StringConstraints(pattern=r"^[1-9][0-9]?$")]


class _Kept(BaseModel):
    """The file's fields: strict, so a string is never a boolean.  Each seat's lines are
    validated one by one (``_seat_lines``), so one bad line costs only itself."""

    model_config = ConfigDict(extra="forbid", strict=True)
    game_id: str
    declined: bool = False
    seats: dict[str, Any] = {}
    bearings: dict[str, Any] = {}


_SEAT: TypeAdapter[str] = TypeAdapter(_Seat)
_LINE: TypeAdapter[list[float]] = TypeAdapter(list[_Number], config=ConfigDict(strict=True))


class Voiceprints:
    def __init__(self, path: Path | None, game_id: str, *, dimension: int = DIMENSION) -> None:
        """``dimension``: how many numbers a voice line has (the embedder's output)."""
        self.path = path
        self.game_id = game_id
        self.dimension = dimension
        self.seats: dict[int, list[np.ndarray]] = {}
        #: where each seat speaks from at the table's microphone array (degrees, 0-360)
        self.bearings: dict[int, float] = {}
        self.declined = False
        self.problem: str | None = None   # what a kept file could not give back (said once)
        if path is not None:
            self._load(path)

    @staticmethod
    def beside(log_path: Path | None) -> Path | None:
        return None if log_path is None else log_path.with_name(log_path.name + ".voices")

    def _load(self, path: Path) -> None:
        name = repr(path.name)
        try:
            raw = _read_private(path)
        except FileNotFoundError:
            return
        except _Unreadable as exc:
            self.problem = f"the enrolled voices in {name} are set aside ({exc}); every seat is asked again"
            return
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            self.problem = (f"the enrolled voices in {name} are set aside (damaged or changed by hand: "
                            "not a voices file); every seat is asked again")
            return
        if isinstance(data, dict) and isinstance(data.get("game_id"), str) and data["game_id"] != self.game_id:
            return            # another game's voices: this game enrols afresh
        if not isinstance(data, dict) or not isinstance(data.get("game_id"), str):
            self.problem = (f"the enrolled voices in {name} are set aside (no game id: not a voices file); "
                            "every seat is asked again")
            return
        kept, aside = _validated(data)
        self.declined = kept.declined
        self.seats, lines_aside = _seat_lines(kept.seats, self.dimension)
        aside += lines_aside
        self.bearings, bearings_aside = _bearings(kept.bearings)
        aside += bearings_aside
        if aside:
            self.problem = (f"the enrolled voices in {name}: set aside {'; '.join(aside)}; "
                            "the rest is kept; a seat left without a voice is asked again")

    def enrolled(self, seat: int) -> bool:
        return bool(self.seats.get(seat)) or seat in self.bearings

    def add(self, seat: int, embedding: np.ndarray | None, *, replace: bool = False,
            bearing: float | None = None) -> None:
        """Keep one enrollment line of ``seat``: its voice (None: no embedder) and where it
        was said from (None: no array, or no sure bearing)."""
        if embedding is not None:
            lines = [] if replace else self.seats.get(seat, [])
            self.seats[seat] = [*lines, np.asarray(embedding, dtype=np.float32)][-MAX_LINES:]
        elif replace:
            self.seats.pop(seat, None)
        if bearing is not None:
            self.bearings[seat] = float(bearing) % 360.0
        elif replace:
            self.bearings.pop(seat, None)
        self.save()

    def forget(self, seat: int) -> None:
        """``seat``'s lines and place are in doubt (another seat spoke twice from there): it
        enrols again; kept."""
        self.seats.pop(seat, None)
        self.bearings.pop(seat, None)
        self.save()

    def move(self, seat: int, bearing: float) -> None:
        """``seat`` now speaks from ``bearing`` (a player leaned); kept."""
        self.bearings[seat] = float(bearing) % 360.0
        self.save()

    def decline(self) -> None:
        self.declined = True
        self.save()

    def save(self) -> None:
        if self.path is None:
            return
        body: dict[str, Any] = {"game_id": self.game_id, "declined": self.declined,
                "seats": {str(s): [[round(float(x), 6) for x in v] for v in lines]
                          for s, lines in sorted(self.seats.items())}}
        if self.bearings:
            body["bearings"] = {str(s): round(b, 2) for s, b in sorted(self.bearings.items())}
        directory = self.path.parent
        fd, tmp = tempfile.mkstemp(prefix=".voices-", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(body, f)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        fsync_directory(directory)


class _Unreadable(Exception):
    """The voices file cannot be read back as a file (why, in a few words)."""


def _read_private(path: Path) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``MAX_BYTES``, made
    private (0600) if others could read it.  Opened without blocking, so a FIFO never
    hangs the game; a device or a directory is never read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise _Unreadable(f"cannot be read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _Unreadable("not a regular file")
        if info.st_size > MAX_BYTES:
            raise _Unreadable(f"larger than {MAX_BYTES // 2**20} MB")
        if info.st_mode & 0o077:
            try:
                os.fchmod(fd, 0o600)
            except OSError as exc:
                raise _Unreadable(f"readable by others (mode {stat.S_IMODE(info.st_mode):04o}) "
                                  f"and cannot be made private: {exc.strerror or exc}") from None
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_BYTES:
            raise _Unreadable(f"larger than {MAX_BYTES // 2**20} MB")
        return b"".join(chunks)
    except OSError as exc:
        raise _Unreadable(f"cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _validated(data: dict[str, Any]) -> tuple[_Kept, list[str]]:
    """``data`` as the file's fields, with what does not validate set aside (and said)."""
    aside: list[str] = []
    data = dict(data)
    try:
        kept = _Kept.model_validate(data)
    except ValidationError as exc:
        for error in exc.errors():
            field = str(error["loc"][0]) if error["loc"] else ""
            data.pop(field, None)
            if field == "declined":
                aside.append(f"the table's no ({_shown(error.get('input'))} is not true or false: asked again)")
            elif field == "seats":
                aside.append(f"every seat ({_shown(error.get('input'))} is not seats and their lines)")
            elif field == "bearings":
                aside.append(f"every seat's bearing ({_shown(error.get('input'))} is not seats and their bearings)")
            else:
                aside.append(f"the field {field!r} (not one of game_id, declined, seats, bearings)")
        kept = _Kept.model_validate(data)
    return kept, aside


def _seat_lines(seats: dict[str, Any], dimension: int) -> tuple[dict[int, list[np.ndarray]], list[str]]:
    """Each seat's sound lines; what is not one (a seat that is no number, a line that is
    not ``dimension`` finite numbers, or all zeros) set aside and said."""
    out: dict[int, list[np.ndarray]] = {}
    aside: list[str] = []
    for seat, lines in seats.items():
        if not _is_seat(seat):
            aside.append(f"seat {seat!r} (not a seat number)")
            continue
        if not isinstance(lines, list):
            aside.append(f"seat {seat} ({_shown(lines)} is not a list of lines)")
            continue
        good = []
        for index, line in enumerate(lines, 1):
            try:
                numbers = _LINE.validate_python(line)
            except ValidationError as exc:
                why = exc.errors()[0]
                given = why.get("input")
                what = ("not a list of numbers" if len(why["loc"]) == 0
                        else f"{_shown(given)} is not a finite number")
                aside.append(f"seat {seat}'s line {index} ({what})")
                continue
            problem = _bad_line(numbers, dimension)
            if problem is not None:
                aside.append(f"seat {seat}'s line {index} ({problem})")
                continue
            good.append(np.asarray(numbers, dtype=np.float32))
        if good:
            out[int(seat)] = good[-MAX_LINES:]
    return out, aside


def _bearings(bearings: dict[str, Any]) -> tuple[dict[int, float], list[str]]:
    """Each seat's bearing (a finite number of degrees); what is not one set aside and said."""
    out: dict[int, float] = {}
    aside: list[str] = []
    for seat, value in bearings.items():
        if not _is_seat(seat):
            aside.append(f"the bearing of seat {seat!r} (not a seat number)")
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
            aside.append(f"seat {seat}'s bearing ({_shown(value)} is not a number of degrees)")
            continue
        out[int(seat)] = float(value) % 360.0
    return out, aside


def _is_seat(key: str) -> bool:
    """Whether a key of the file's ``seats`` or ``bearings`` is a seat number (1-99)."""
    try:
        _SEAT.validate_python(key)
    except ValidationError:
        return False
    return True


def _bad_line(line: list[float], dimension: int) -> str | None:
    """Why one validated line of numbers is no voice (None: it is one)."""
    if len(line) != dimension:
        return f"{len(line)} numbers, not {dimension}"
    if not any(line):
        return "all zeros"
    largest = max(abs(x) for x in line)
    if largest > MAX_MAGNITUDE:   # would overflow float32 (a numpy warning) or the similarity's squares
        return f"a number as large as {largest:.3g}, where a voice's are at most 1"
    return None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
