"""The lobby: what the assistant does between games when it is left running at a table.

It chooses a game ("let's play compass code with five players"), offers an
interrupted game for resuming ("There is an unfinished compass code game. Say
resume or new game."), sets it aside on "new game", and stops on "quit".  Every
game's log lives in the data directory (``games/``), so a restart or a power cut
loses nothing (invariant 3): the newest unfinished log is offered again.

``Lobby`` has the shape of a ``Session`` where the listen loop and text play use
one (``parse``, ``handle``, ``execute``, ``reject``, ``grammar``, ``phrases``,
``over``), so the same voice loop and the same confirmation gate run it.  The
lobby logs nothing: its only lasting state is which unfinished log was set
aside (``lobby.json`` in the data directory).  The drivers are in ``lobby_run.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .command import Command, NotRecognized, RuntimeLists
from .errors import (
    DecksChangedError,
    FacilitatorError,
    InUseError,
    LogError,
    OptionsError,
    WriteError,
)
from .games import find_game
from .grammar import load_grammar
from .hidden import check_private
from .log import read_log
from .phrases import Phrasebook
from .session import CONFIRMATIONS, Reply, Session, handle_line
from .settings import Settings
from .table_data import TableData

GAMES_DIR = "games"
LOBBY_DOC = "lobby"
#: how many of the newest logs are looked at for an unfinished game
SCAN_LOGS = 20
#: what the lobby answers besides choosing (the rest of common.toml is a game's)
QUERIES = frozenset({"help", "status", "read rules", "repeat"})


@dataclass(frozen=True)
class Unfinished:
    """An interrupted game: its log and its game's name."""

    log: Path
    game: str


class GameStore:
    """The data directory's game logs (``games/*.jsonl``) and the lobby's note of set-aside logs."""

    def __init__(self, directory: Path, clock: Callable[[], float] = time.time) -> None:
        self.directory = directory
        self.games = directory / GAMES_DIR
        self.table = TableData(directory)
        self._clock = clock

    def new_log(self, game: str) -> Path:
        """A fresh log path, named by the time and the game (never an existing file)."""
        self.games.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(self._clock()))
        path = self.games / f"{stamp}-{game}.jsonl"
        n = 2
        while path.exists():
            path = self.games / f"{stamp}-{n}-{game}.jsonl"
            n += 1
        return path

    def logs(self) -> list[Path]:
        """Game logs, newest first."""
        if not self.games.is_dir():
            return []
        found = [p for p in self.games.glob("*.jsonl") if p.is_file()]
        return sorted(found, key=lambda p: (p.stat().st_mtime, p.name), reverse=True)

    def set_aside(self) -> set[str]:
        names = self.table.read(LOBBY_DOC).get("set_aside", [])
        return {str(n) for n in names} if isinstance(names, list) else set()

    def put_aside(self, log: Path) -> None:
        """Never offer ``log`` again (the file itself is kept)."""
        names = self.set_aside() | {log.name}
        document = self.table.read(LOBBY_DOC)
        document["set_aside"] = sorted(names)
        self.table.write(LOBBY_DOC, document)

    def mark_playing(self, log: Path | None) -> None:
        """Note the game being played now (None: the lobby), so that a table service
        with screens that stops mid-game (a crash, a power cut) comes back into it."""
        document = self.table.read(LOBBY_DOC)
        if log is None:
            if "playing" not in document:
                return
            document.pop("playing")
        else:
            document["playing"] = log.name
        self.table.write(LOBBY_DOC, document)

    def playing(self) -> str | None:
        """The log name of the game a table service was playing when it stopped."""
        name = self.table.read(LOBBY_DOC).get("playing")
        return str(name) if isinstance(name, str) else None

    def unfinished(self, warn: Callable[[str], None] | None = None, game: str | None = None) -> Unfinished | None:
        """The newest game log that is not over and not set aside (of ``game`` only, when given)."""
        aside = self.set_aside()
        for log in self.logs()[:SCAN_LOGS]:
            if log.name in aside:
                continue
            try:
                events = read_log(log).events
                referee = find_game(str(events[0].get("game")))
                if game is not None and referee.name != game:
                    continue
                if referee.is_over(referee.replay(events)):
                    try:
                        self._records_up_to(referee, events)
                    except FacilitatorError as exc:
                        if warn is not None:
                            warn(str(exc))
                    continue
            except (LogError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
                if warn is not None:
                    warn(f"log {log.name!r} cannot be resumed ({exc}); it is set aside")
                self.put_aside(log)
                continue
            return Unfinished(log, referee.name)
        return None


    def _records_up_to(self, referee: Any, events: list[Any]) -> None:
        """A finished game's records, from its log (idempotent): a crash between its
        last events and the record write must not lose the record."""
        current = self.table.read(referee.name)
        updated = referee.table_update(current, events)
        if updated is not None and updated != current:
            self.table.write(referee.name, updated)


class _LobbyRules:
    """The little the listen loop (and the screens) ask of a referee, for the lobby."""

    name = "lobby"
    queries = QUERIES

    def runtime_lists(self, state: Any) -> RuntimeLists:
        return {}


class Lobby:
    """One table's lobby; ``chosen`` is the game to play next, once one is chosen."""

    def __init__(self, store: GameStore, settings: Settings | None = None, *, seed: int | None = None,
                 private_path: Path | None = None,
                 warn: Callable[[str], None] | None = None, quit_stops: bool = True,
                 screens: bool = False) -> None:
        """``quit_stops``: False in the table service, where "quit" in the lobby stops
        nothing (its owner stops the service).  ``screens``: the seat screens carry
        hidden information, so no game needs a private file."""
        self.store = store
        self.settings = settings or Settings()
        self.grammar = load_grammar("lobby")
        self.phrases = Phrasebook(self.grammar.responses)
        self.referee = _LobbyRules()
        self.state: Any = None
        self.seed = seed
        self.private_path = private_path
        self.screens = screens
        self.quit_stops = quit_stops
        self.warn = warn or (lambda message: None)
        self.chosen: Session | None = None
        #: the logs of the games played since this lobby opened (their lines were said here)
        self.played: set[Path] = set()
        self.closed = False
        self.last_public: list[str] = []
        self.offer = store.unfinished(self.warn)
        #: the offered log refused for changed decks: kept for when they are put back, so
        #: choosing a game (as the refusal advises) does not set it aside; "new game" does
        self.decks_changed: Path | None = None

    # -- what the loop and text play use -------------------------------------------
    @property
    def over(self) -> bool:
        return self.closed or self.chosen is not None

    def legal_intents(self) -> set[str]:
        return set(self.grammar.intents)

    def parse(self, text: str, *, typed: bool = True, narrow: bool = False) -> Command | NotRecognized:
        return self.grammar.parse(text, intents=self.legal_intents() if narrow else None, typed=typed)

    def handle(self, text: str) -> Reply:
        return handle_line(self, text)

    def changes_nothing(self, command: Command) -> bool:
        """Whether ``command`` only asks (a typed question may give it; see ``handle_line``)."""
        return command.intent in QUERIES

    def reject(self, text: str, key: str, reason: str, command: Command | None = None,
               **fields: Any) -> Reply:
        """Say why; the lobby has no log, so nothing is written."""
        return self._say(Reply(command=command), [self.phrases.say(key, **fields)])

    def acceptable(self, command: Command) -> bool:
        """Whether a consequential voice command would do something now (then it is confirmed)."""
        if command.intent == "new game":
            return self.offer is not None
        return command.intent == "quit" and self.quit_stops

    def execute(self, command: Command) -> Reply:
        intent = command.intent
        reply = Reply(command=command)
        if intent == "repeat":
            return Reply(public=list(self.last_public or [self.phrases.say("nothing-to-repeat")]),
                         command=command)
        if intent == "quit":
            if not self.quit_stops:
                return self._say(reply, [self.phrases.say("lobby-stays")])
            self.closed = True
            reply.quit = True
            return self._say(reply, [self.phrases.say("goodbye")])
        if intent == "help":
            return self._say(reply, [self.phrases.say("lobby-help")])
        if intent == "read rules":
            return self._say(reply, [self.phrases.say("lobby-no-rules")])
        if intent == "status":
            return self._say(reply, [self.prompt()])
        if intent == "resume":
            return self._resume(reply)
        if intent == "new game":
            if self.offer is not None:
                game = self.spoken(self.offer.game)
                self.store.put_aside(self.offer.log)
                self.offer = None
                return self._say(reply, [self.phrases.say("lobby-set-aside", game=game)])
            return self._say(reply, [self.phrases.say("lobby-welcome")])
        if intent == "choose game":
            players = int(command.slots["players"]) if "players" in command.slots else None
            return self._start(reply, command.slots["game"], players)
        if intent in CONFIRMATIONS:   # nothing is asked in the lobby but "resume or new game?"
            if self.offer is not None:
                return self.reject(command.text, "lobby-answer-offer", "nothing to confirm", command,
                                   game=self.spoken(self.offer.game))
            return self.reject(command.text, "lobby-nothing-to-confirm", "nothing to confirm", command)
        return self.reject(command.text, "not-now", f"{intent!r} is for a game", command)

    # -- the lobby's own -------------------------------------------------------------
    def opening(self) -> Reply:
        return self._say(Reply(accepted=True), [self.prompt()])

    def prompt(self) -> str:
        if self.offer is not None:
            return self.phrases.say("lobby-unfinished", game=self.spoken(self.offer.game))
        return self.phrases.say("lobby-welcome")

    def spoken(self, game: str) -> str:
        """The game's name as the lobby grammar says it ("compass code")."""
        phrases = self.grammar.lists["game"].spoken.get(game)
        return phrases[0] if phrases else game

    def take(self) -> Session:
        """Hand the chosen game to the driver; the lobby is open again."""
        session, self.chosen = self.chosen, None
        if session is None:
            raise OptionsError("no game was chosen")
        if session.log.path is not None:
            self.played.add(session.log.path)
        session.leaving = "quit-to-lobby"   # "quit" leaves the game, not the assistant
        return session

    def back(self, session: Session) -> Reply:
        """A game ended or was left with "quit": say so, and offer it again if unfinished."""
        session.log.close()
        if session.over:
            self.offer = None
            return self._say(Reply(accepted=True), [self.phrases.say("lobby-back")])
        path = session.log.path
        self.offer = Unfinished(path, session.referee.name) if path is not None else None
        return self._say(Reply(accepted=True),
                         [self.phrases.say("lobby-kept", game=self.spoken(session.referee.name))])

    def _resume(self, reply: Reply) -> Reply:
        if self.offer is None:
            # look again: a game kept for its decks may be resumable now they are back
            self.offer = self.store.unfinished(self.warn)
            if self.offer is not None:
                return self._say(reply, [self.prompt()])
            return self._say(reply, [self.phrases.say("lobby-none-unfinished")])
        offer = self.offer
        try:
            session, opening, notes = Session.resume(offer.log, self.private_path, table=self.store.table,
                                                     screens=self.screens)
        except (InUseError, WriteError) as exc:   # kept for later: another copy has it, or the disk failed
            self.warn(str(exc))
            return self._say(reply, [self.phrases.say("lobby-cannot-start", game=_cap(self.spoken(offer.game)))])
        except DecksChangedError as exc:   # the log is sound: still offered, here and after a restart
            self.warn(str(exc))
            self.decks_changed = offer.log
            return self._say(reply, [self.phrases.say("lobby-decks-changed", game=self.spoken(offer.game))])
        except LogError as exc:
            self.warn(str(exc))
            self.store.put_aside(offer.log)
            self.offer = None
            return self._say(reply, [self.phrases.say("lobby-cannot-resume", game=self.spoken(offer.game))])
        for note in notes:
            self.warn(note)
        self.offer = None
        self.chosen = session
        reply.accepted = True
        if offer.log not in self.played:   # said before this lobby opened: the screens show it first
            reply.history = list(opening.history)
        return self._say(reply, list(opening.public))

    def _start(self, reply: Reply, game: str, players: int | None) -> Reply:
        referee = find_game(game)
        name = self.spoken(referee.name)
        preset = self.settings.game_defaults(referee.name)
        count = players if players is not None else int(preset.get("players", referee.default_players))
        if not referee.min_players <= count <= referee.max_players:
            return self._say(reply, [self.phrases.say("lobby-players", game=_cap(name),
                                                      low=referee.min_players, high=referee.max_players)])
        flags = {k: v for k, v in preset.items() if k != "players"}
        try:
            options = referee.parse_options(flags)
            check_private(referee.name, options, self.private_path, screens=self.screens)
        except OptionsError:
            return self._say(reply, [self.phrases.say("lobby-needs-private", game=_cap(name))])
        log = self.store.new_log(referee.name)
        try:
            session, opening = Session.start(referee.name, players=count, seed=self.seed, options=options,
                                             log_path=log, private_path=self.private_path,
                                             table=self.store.table, screens=self.screens)
        except FacilitatorError as exc:
            self.warn(str(exc))
            return self._say(reply, [self.phrases.say("lobby-cannot-start", game=_cap(name))])
        self.seed = None   # a given seed makes the first game reproducible, not every game
        if self.offer is not None:   # a new game was chosen over the offered one
            if self.offer.log != self.decks_changed:
                self.store.put_aside(self.offer.log)
            self.offer = None
        self.chosen = session
        reply.accepted = True
        starting = self.phrases.say("lobby-starting", game=name, players=count)
        return self._say(reply, [starting, *opening.public])

    def failed(self, session: Session, error: Exception) -> Reply:
        """A game stopped by a write fault (a full or read-only disk): say so aloud, keep
        what was logged, and offer the game again (resuming redoes what followed the log)."""
        self.warn(str(error))
        session.log.close()
        path = session.log.path
        self.offer = Unfinished(path, session.referee.name) if path is not None and not session.over else None
        reason = str(error).split(": ")[-1].split(";")[0]
        return self._say(Reply(accepted=True), [self.phrases.say("lobby-write-failed", reason=reason.lower())])

    def _say(self, reply: Reply, lines: list[str]) -> Reply:
        reply.public.extend(lines)
        self.last_public = list(reply.public)
        return reply


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]

