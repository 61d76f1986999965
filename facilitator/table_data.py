"""The table's data directory: what a table keeps between games.

Each game may keep one small JSON document here (Two Windows' packet record,
Clover's Record of Legends).  Referees stay pure: the session reads the document,
hands it to ``Referee.prepare_options`` and ``Referee.table_update`` (both pure)
and writes back what they return, atomically, after the log is fsynced.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .durable import write_json
from .errors import OptionsError, WriteError
from .paths import data_dir


class TableData:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or data_dir()

    def path(self, game: str) -> Path:
        return self.directory / f"{game}.json"

    def read(self, game: str) -> dict[str, Any]:
        """The game's document; ``{}`` when there is none yet."""
        path = self.path(game)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise OptionsError(f"the table's record {str(path)!r} is unreadable ({exc}); "
                               "move it away to start a fresh record") from None
        if not isinstance(data, dict):
            raise OptionsError(f"the table's record {str(path)!r} is not a JSON object")
        return data

    def write(self, game: str, document: dict[str, Any]) -> None:
        """Replace the game's document atomically (a power cut leaves old or new, never half).

        ``WriteError`` when it cannot be written (a read-only or full disk); the old
        document stays, and resuming the game writes it again from the log."""
        try:
            self._write(game, document)
        except OSError as exc:
            raise WriteError(f"cannot write the table's record {str(self.path(game))!r}: "
                             f"{exc.strerror or exc}") from None

    def clean_stale(self) -> None:
        """Remove temporary files a crash left mid-write (call only while holding the
        data directory's lock, so no other writer is mid-write)."""
        try:
            stale = list(self.directory.glob(".*.tmp"))
        except OSError:
            return
        for path in stale:
            try:
                path.unlink()
            except OSError:
                pass

    def _write(self, game: str, document: dict[str, Any]) -> None:
        write_json(self.path(game), document, sort_keys=True)


