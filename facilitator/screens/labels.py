"""The screens' own words (``labels.toml`` beside this module): headings, control
labels, replies.  The games' words are in their grammars; these name no game."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=1)
def labels() -> dict[str, dict[str, str]]:
    """The screens' words, read once."""
    text = resources.files(__package__).joinpath("labels.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)
