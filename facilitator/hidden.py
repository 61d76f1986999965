"""Where hidden information goes, and refusing a game that would have nowhere to put it.

A human keeper's route, Two Windows' reports and Clover's boards must reach their
readers privately: on ``--private PATH`` or on the screens.  A game with hidden
information and neither does not start (in text mode too: the log is no place to
read a report from), and so it marks no packet as played.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import OptionsError

#: games whose players always receive hidden information
PRIVATE_GAMES = frozenset({"two-windows", "clover"})


def needs_private(game: str, options: dict[str, Any]) -> bool:
    """Whether ``game`` with ``options`` deals hidden information to players."""
    return game in PRIVATE_GAMES or (game == "compass-code" and options.get("keeper") == "human")


def check_private(game: str, options: dict[str, Any], private: Path | None, screens: bool) -> None:
    """``OptionsError`` (one line saying what to add) when hidden information has nowhere to go."""
    if screens or private is not None or not needs_private(game, options):
        return
    who = "a human keeper" if game == "compass-code" else game
    raise OptionsError(f"{who} needs --private PATH for the hidden information (a file a player's "
                       "screen or second terminal shows) or --screens")
