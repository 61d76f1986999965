"""The registry of games and the shape every referee has.

A referee is pure: it does no I/O and takes randomness from the generator it is
given.  ``decide`` turns a command into events (or raises
``IllegalCommandError``); ``evolve`` folds one event into the state, so the live
state and a replayed log are the same fold.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar

from ..command import GAMES, Command, RuntimeLists
from ..errors import IllegalCommandError, OptionsError
from ..events import Audience, Event
from ..phrases import Phrasebook

S = TypeVar("S")

_MODULES = {"compass-code": "compass_code", "two-windows": "two_windows",
            "lantern-links": "lantern_links", "clover": "clover"}
_ALIASES = {"compass_code": "compass-code", "two_windows": "two-windows",
            "lantern_links": "lantern-links"}


class Referee(Generic[S]):
    """Base class of the four referees."""

    name: str = ""
    min_players: int = 2
    max_players: int = 8
    default_players: int = 4
    #: intents that only ask (they change nothing and log nothing)
    queries: frozenset[str] = frozenset()
    #: queries whose answer is private (a seat's own board): they change and log nothing
    private_queries: frozenset[str] = frozenset()
    #: queries whose answer's first sentence says itself how to hear the rest ("say go on
    #: to hear them"), so the table's one-time "say go on for more" is not added
    cued_queries: frozenset[str] = frozenset()

    def parse_options(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        """Options from command-line flags (``mode``, ``routes``...); ``OptionsError`` for
        a flag this game does not take.  The result is logged in ``game-started``."""
        if flags:
            raise OptionsError(f"--{min(flags)} is not an option of {self.name}")
        return {}

    def check_options(self, options: Mapping[str, Any], players: int) -> None:
        """Raise ``OptionsError`` for options this game cannot start with."""

    def prepare_options(self, options: dict[str, Any], table: Mapping[str, Any]) -> dict[str, Any]:
        """Options completed from the table's kept document (pure: the session reads it).

        Whatever is added is logged in ``game-started``, so replay needs no table data."""
        return options

    #: whether ``with_table`` needs the table's document before each decision
    keeps_table: bool = False

    def with_table(self, state: S, table: Mapping[str, Any]) -> S:
        """The state with the table's document as it is now, read just before each decision:
        another game at the same table may have changed it since this one started (a record
        beaten, packets played).  Whatever a decision takes from it is logged in its events,
        so replay still needs no table data."""
        return state

    def table_update(self, table: Mapping[str, Any], events: Sequence[Event]) -> dict[str, Any] | None:
        """The table's document after ``events`` (None: unchanged).  Must be idempotent:
        a resumed game may apply the same events to the document again."""
        return None

    def typed_words_private(self, state: S) -> bool:
        """Whether a line typed now may carry private words (Clover's clues): a rejected
        line is then logged without its words, since ``command-rejected`` is public."""
        return False

    def initial(self, started: Event) -> S:
        """The state right after ``game-started``."""
        raise NotImplementedError

    def setup(self, state: S, rng: random.Random) -> list[Event]:
        """Events that open the game (draws, deals) after ``game-started``."""
        return []

    def decide(self, state: S, command: Command, rng: random.Random) -> list[Event]:
        """Events for ``command`` now; raise ``IllegalCommandError`` if the rules forbid it."""
        raise NotImplementedError

    def evolve(self, state: S, event: Event) -> S:
        """Fold one event into the state."""
        raise NotImplementedError

    def is_over(self, state: S) -> bool:
        raise NotImplementedError

    def legal_intents(self, state: S) -> set[str]:
        """Intents that could be legal now (voice grammars are narrowed to these)."""
        raise NotImplementedError

    def acting_seats(self, state: S, command: Command) -> frozenset[int] | None:
        """The seats whose voice may give ``command`` now (the captain's send, the current
        player's tile); None: anyone at the table (queries, table controls, agreements).
        Used only to refuse a command heard in another enrolled seat's voice."""
        return None

    def runtime_lists(self, state: S) -> RuntimeLists:
        return {}

    def recognition_lists(self) -> RuntimeLists:
        """Every runtime list value any state could use (for ``recognize``, which has no
        game state: e.g. both Two Windows catalogues' names)."""
        return {}

    def query(self, state: S, command: Command, phrases: Phrasebook) -> list[str]:
        """Answer a query intent (status, help, ...) without changing anything."""
        raise IllegalCommandError("not-now", f"{command.intent!r} is not a query")

    def private_query(self, state: S, command: Command, phrases: Phrasebook) -> list[tuple[Audience, str]]:
        """Answer a private query: (audience, text) pairs, delivered like private events;
        ``"public"`` pairs are said aloud (an acknowledgement that reveals nothing)."""
        raise IllegalCommandError("not-now", f"{command.intent!r} is not a private query")

    def announce(self, state: S, event: Event, phrases: Phrasebook) -> list[str]:
        """Public sentences for a public event (``state`` is after it)."""
        return []

    def private_text(self, state: S, event: Event, phrases: Phrasebook) -> str | None:
        """The text a private event shows its audience."""
        return None

    def seat_audiences(self, state: S, seat: int) -> frozenset[Audience]:
        """The private audiences ``seat`` reads now: the seat itself, plus any role it
        holds at this moment (Compass Code's keeper, a Two Windows informant team)."""
        return frozenset({seat})

    def private_view(self, state: S, audience: Audience) -> dict[str, Any] | None:
        """What ``audience`` privately knows now, as JSON values, derived from the state
        (so a private screen opened late still shows everything); None: nothing."""
        return None

    def replay(self, events: Sequence[Event]) -> S:
        """Rebuild the state from a log's events."""
        state = self.initial(events[0])
        for event in events[1:]:
            state = self.evolve(state, event)
        return state


def find_game(name: str) -> Referee[Any]:
    """The referee for ``name`` (``compass-code``...); ValueError if unknown."""
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in _MODULES:
        raise ValueError(f"unsupported game: {name!r}; the games are {', '.join(GAMES[:-1])} and {GAMES[-1]}")
    try:
        module = importlib.import_module(f"{__name__}.{_MODULES[key]}")
    except ModuleNotFoundError:
        raise ValueError(f"unsupported game: {name!r} (not built yet)") from None
    referee: Referee[Any] | None = getattr(module, "REFEREE", None)
    if referee is None:
        raise ValueError(f"unsupported game: {name!r} (not built yet)")
    return referee


def available_games() -> list[str]:
    """Games whose referee is built."""
    out = []
    for game in GAMES:
        try:
            find_game(game)
        except ValueError:
            continue
        out.append(game)
    return out


def register_content_checks() -> None:
    """Let every built game register its content checker (``content check`` calls this)."""
    for game in available_games():
        module = importlib.import_module(f"{__name__}.{_MODULES[game]}")
        getattr(module, "register_content_check", lambda: None)()
