"""What a parsed utterance is: a ``Command``, or ``NotRecognized`` words.

These values sit between the grammar engine (which produces them) and the
referees, the session and the screens (which consume them), so none of those
needs the grammar engine to name a command.  ``GAMES`` is the list of game
names, shared by the grammar loader and the game registry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

#: the games, by the names the CLI and grammars/ use
GAMES = ("compass-code", "two-windows", "lantern-links", "clover")

#: lists that change during a game (names, tiles in hand), passed to the grammar per call
RuntimeLists = Mapping[str, Mapping[str, Iterable[str]]]


@dataclass(frozen=True)
class Command:
    """A parsed command: its intent, slot values and canonical form."""

    intent: str
    canonical: str
    slots: dict[str, str] = field(default_factory=dict)
    text: str = ""
    #: parsed from a typed (or clicked) line, not from a recognizer's words: a referee
    #: never matches such a command's free words loosely when it cannot be taken back
    typed: bool = field(default=False, compare=False)

    @property
    def args(self) -> list[str]:
        """The canonical form's words after the command word."""
        return self.canonical.split()[1:]


@dataclass(frozen=True)
class NotRecognized:
    """What the parser returns for words it cannot turn into a command."""

    text: str
