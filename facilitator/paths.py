"""Where the project's data lives: grammars, content, audio, and the table's data directory."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _shipped(name: str) -> Path:
    """``name`` beside the package in a checkout, or inside an installed wheel."""
    for candidate in (_PACKAGE.parent / name, _PACKAGE / "_data" / name):
        if candidate.is_dir():
            return candidate
    return _PACKAGE.parent / name


def grammars_dir() -> Path:
    return Path(os.environ.get("FACILITATOR_GRAMMARS_DIR") or _shipped("grammars"))


#: the environment variable naming a content directory in place of the shipped decks
CONTENT_ENV = "FACILITATOR_CONTENT_DIR"


def content_dir() -> Path:
    return Path(os.environ.get(CONTENT_ENV) or _shipped("content"))


def audio_dir() -> Path:
    return _shipped("audio")


def data_dir(explicit: str | Path | None = None) -> Path:
    """``--data-dir``, else ``$FACILITATOR_DATA_DIR``, else the platform's user data dir."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("FACILITATOR_DATA_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("facilitator", appauthor=False))


def cache_dir() -> Path:
    """``$FACILITATOR_CACHE_DIR``, else the platform's user cache dir: what can be made
    again (the meaning stage's trained weights), never a table's data."""
    env = os.environ.get("FACILITATOR_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("facilitator", appauthor=False))
