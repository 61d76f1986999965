"""Decks as data: one entry point that reads and validates ``content/`` files.

Every file is TOML validated by a pydantic model that rejects unknown keys.
A broken file raises ``ContentError`` naming the file, the entry and the reason.
Each game registers a checker so ``facilitator content check`` covers every deck.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from .errors import ContentError
from .paths import CONTENT_ENV, content_dir

M = TypeVar("M", bound=BaseModel)


class Strict(BaseModel):
    """Base for content models: frozen, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def shown_name(relpath: str, directory: Path | None = None) -> str:
    """How a content file is named in a problem: ``content/RELPATH`` for the shipped decks,
    else by the directory the table gave (``--content-dir``, ``FACILITATOR_CONTENT_DIR``),
    so that the file named is the one to open."""
    if directory is None and not os.environ.get(CONTENT_ENV):
        return f"content/{relpath}"
    return str((directory or content_dir()) / relpath)


def load(relpath: str, model: type[M], directory: Path | None = None) -> M:
    """Read ``content/relpath`` and validate it as ``model``."""
    path = (directory or content_dir()) / relpath
    name = f"content/{relpath}"   # as every deck names its files; check_all names them by the directory checked
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ContentError(name, None, "file is missing") from None
    except IsADirectoryError:
        raise ContentError(name, None, "is a directory where the file belongs") from None
    except NotADirectoryError:
        raise ContentError(name, None, "cannot be there: a file stands where its folder belongs") from None
    except OSError as exc:
        raise ContentError(name, None, f"cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ContentError(name, None, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ContentError(name, None, f"not valid TOML: {exc}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ContentError(name, _entry(data, err["loc"]), _reason(err)) from None


def _entry(data: Any, loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    node = data
    for step in loc:
        if isinstance(step, int):
            label = f"entry {step + 1}"
            if isinstance(node, list) and step < len(node) and isinstance(node[step], dict):
                item = node[step]
                for key in ("number", "name", "id", "letter"):
                    if key in item:
                        label += f" ({key} {item[key]!r})"
                        break
            parts.append(label)
            node = node[step] if isinstance(node, list) and step < len(node) else None
        else:
            parts.append(str(step))
            node = node.get(step) if isinstance(node, dict) else None
    return " ".join(parts) if parts else "file"


def _reason(err: Any) -> str:
    msg = str(err["msg"])
    msg = msg.removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    return msg[:1].lower() + msg[1:]


CheckResult = list[str]
_CHECKERS: dict[str, Callable[[Path | None], CheckResult]] = {}


def register_check(game: str, checker: Callable[[Path | None], CheckResult]) -> None:
    """Register ``checker(directory) -> report lines``; it raises ContentError on a problem."""
    _CHECKERS[game] = checker


def check_all(directory: Path | None = None) -> tuple[list[str], list[ContentError]]:
    """Run every game's checker: report lines and the problems found."""
    from .games import register_content_checks

    register_content_checks()

    report: list[str] = []
    problems: list[ContentError] = []
    for game, checker in sorted(_CHECKERS.items()):
        try:
            report.extend(f"{game}: {line}" for line in checker(directory))
        except ContentError as exc:
            problems.append(_renamed(exc, directory))
        except OSError as exc:   # a deck's own reading: a problem of the content, like a broken entry
            name = str(exc.filename) if exc.filename else game
            problems.append(ContentError(name, None, f"cannot be read ({exc.strerror or exc})"))
    return report, problems


def _renamed(exc: ContentError, directory: Path | None) -> ContentError:
    """A deck's problem named ``content/...`` by the directory actually checked."""
    if not exc.file.startswith("content/"):
        return exc
    name = shown_name(exc.file.removeprefix("content/"), directory)
    return exc if name == exc.file else ContentError(name, exc.entry, exc.reason)


def version(game: str, directory: Path | None = None) -> str:
    """The content version of ``game``'s decks: a digest of every file in ``content/GAME/``.

    Logged in ``game-started``; a game is resumed only with the decks it started with."""
    import hashlib

    folder = (directory or content_dir()) / game
    h = hashlib.sha256()
    try:
        files = sorted(p for p in folder.rglob("*") if p.is_file())
    except OSError:
        files = []
    for path in files:
        h.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"\1unreadable")
        h.update(b"\0")
    return h.hexdigest()[:16]
