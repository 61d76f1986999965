"""The table's enrolled voices: seat -> d-vectors, kept with the game so ``--resume`` keeps them.

A voiceprint says who someone is, so it is kept apart from the event log (which a
table may share or paste into a bug report): a private file beside the log,
``GAME.jsonl.voices`` (mode 0600), written to a temporary file, fsynced and
renamed, like the table's records.  It carries the game's id, so a file left
by another game of the same name is ignored and replaced.  A game without
``--log`` keeps its voices in memory only.  What the file holds:

    {"game_id": "...", "declined": false, "seats": {"1": [[256 floats], ...], ...}}

``declined`` is the table's spoken "no" to the enrollment question: a resumed
game does not ask again.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np

#: lines kept per seat (an enrollment said again adds one; the oldest goes)
MAX_LINES = 3


class Voiceprints:
    def __init__(self, path: Path | None, game_id: str) -> None:
        self.path = path
        self.game_id = game_id
        self.seats: dict[int, list[np.ndarray]] = {}
        self.declined = False
        self.problem: str | None = None   # why a kept file could not be read (said once)
        if path is not None:
            self._load(path)

    @staticmethod
    def beside(log_path: Path | None) -> Path | None:
        return None if log_path is None else log_path.with_name(log_path.name + ".voices")

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            self.problem = f"the enrolled voices in {path.name} cannot be read ({exc}); enrol again"
            return
        if not isinstance(data, dict) or data.get("game_id") != self.game_id:
            return            # another game's voices: this game enrols afresh
        try:
            self.declined = bool(data.get("declined", False))
            for seat, lines in dict(data.get("seats", {})).items():
                self.seats[int(seat)] = [np.asarray(v, dtype=np.float32) for v in lines][-MAX_LINES:]
        except (TypeError, ValueError) as exc:
            self.seats, self.problem = {}, f"the enrolled voices in {path.name} are damaged ({exc}); enrol again"

    def enrolled(self, seat: int) -> bool:
        return bool(self.seats.get(seat))

    def add(self, seat: int, embedding: np.ndarray, *, replace: bool = False) -> None:
        lines = [] if replace else self.seats.get(seat, [])
        self.seats[seat] = [*lines, np.asarray(embedding, dtype=np.float32)][-MAX_LINES:]
        self.save()

    def decline(self) -> None:
        self.declined = True
        self.save()

    def save(self) -> None:
        if self.path is None:
            return
        body = {"game_id": self.game_id, "declined": self.declined,
                "seats": {str(s): [[round(float(x), 6) for x in v] for v in lines]
                          for s, lines in sorted(self.seats.items())}}
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
