"""A voice command echoed (or asked about) and not yet applied, noted beside the log.

By voice, a sure and undoable command is echoed ("Send north east south west.") and
applied only when its undo window closes; an unsure one is asked about and applied
only on "yes".  Until then nothing is logged (invariant 7): a kill or a power cut in
the window drops the command, which is right, since nobody agreed to it yet.  But the
table heard the echo and expects its guess to be in: so while a command waits, the
listen loop keeps a small note beside the log (``GAME.jsonl.pending``: the command,
the words the echo said, and the log's last sequence number), and removes it when the
command leaves the window (applied, taken back, cancelled, timed out).

On ``--resume`` (``play`` or the lobby's "resume") a note whose sequence number is
still the log's last one says the command never reached the log: the resumed game
says so after where it is ("Send north east south west was not applied: the referee
stopped before it was. Say it again if you still want it."), and the note is
removed.  A note behind the log (the command was applied, and the stop came before
the note was removed) is removed without a word.

The note is written to a temporary file and renamed into place, not fsynced: one
fsync a command is what an SD card is given (the log's); a kill always leaves it, a
power cut in the window may lose it, and then the game resumes as before, silently.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

SUFFIX = ".pending"


def note_path(log_path: Path) -> Path:
    """Where the note of ``log_path``'s game is kept."""
    return log_path.with_name(log_path.name + SUFFIX)


class PendingNote:
    """The note of one game's log: ``hold`` when a command starts to wait, ``clear`` when
    it stops.  ``last_seq()`` is the log's last sequence number now."""

    def __init__(self, log_path: Path, last_seq: Callable[[], int]) -> None:
        self.path = note_path(log_path)
        self.last_seq = last_seq

    def hold(self, command: str, said: str) -> None:
        body = json.dumps({"command": command, "said": said, "seq": self.last_seq()}, ensure_ascii=False)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        try:
            tmp.write_text(body + "\n", encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass          # a note is a courtesy: the game goes on without it

    def clear(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass


def keeper(session: Any, said: Callable[[Any], str]) -> Callable[[Any], None] | None:
    """What the listen loop's pending command calls as it changes (``Pendings(keep=...)``):
    a pending value (its ``command``) starts or changes the note, None clears it.  None
    when ``session`` keeps no log (the table service's lobby)."""
    log: Any = getattr(session, "log", None)
    path = getattr(log, "path", None)
    if log is None or path is None:
        return None
    note = PendingNote(Path(path), lambda: int(log.next_seq) - 1)

    def keep(pending: Any) -> None:
        if pending is None:
            note.clear()
        else:
            note.hold(pending.command.canonical, said(pending.command))
    return keep


def take(log_path: Path, last_seq: int) -> str | None:
    """The words of the command noted as waiting when the game stopped, if it never
    reached the log (None: no note, or one the log has passed); the note is removed."""
    path = note_path(log_path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass
    try:
        note = json.loads(text)
        said, seq = str(note["said"]), int(note["seq"])
    except (ValueError, KeyError, TypeError):
        return None          # a damaged note says nothing
    return said if seq == last_seq and said.strip() else None
