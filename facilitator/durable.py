"""Files that survive a power cut: a JSON document replaced atomically, a rename made durable.

``write_json`` writes a temporary file beside the target, fsyncs it, renames it over
the target and fsyncs the directory, so a reader finds the old document or the new
one, never a torn one.  A temporary file left by a crash is named ``.NAME.*.tmp``
(the table data's ``clean_stale`` removes them).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (best effort: some file systems cannot)."""
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


def write_json(path: Path, document: Any, *, mode: int | None = None, sort_keys: bool = False) -> None:
    """Replace ``path`` with ``document`` atomically (``mode``: the file's permissions,
    e.g. 0o600 for secrets).  Raises ``OSError``; nothing partial is left behind."""
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(document, f, indent=2, sort_keys=sort_keys)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fsync_directory(directory)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
