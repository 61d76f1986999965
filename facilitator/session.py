"""One game at one table: parse a line, apply it, log it, then announce it.

The same session serves typed lines, the voice loop and (later) screen buttons.
Order of work for every accepted command (invariant 3): decide the events, append
and fsync them to the log, fold them into the state, and only then announce.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from . import unapplied
from .command import Command, NotRecognized
from .content import version as content_version
from .errors import DecksChangedError, FacilitatorError, IllegalCommandError, LogError, OptionsError
from .events import Event, rejected
from .games import Referee, find_game
from .grammar import Grammar, character_kind, load_grammar, untyped_character
from .locks import held_data_dir
from .log import EventLog, LogContents, delivered_seqs, read_log, write_private
from .log_schema import check as check_fields
from .phrases import PRIVATE_FILE, Phrasebook
from .table_data import TableData

MAX_UTTERANCE = 300
#: intents the session answers itself, whatever the game
CONTROLS = frozenset({"louder", "softer", "slower", "faster", "stop listening", "start listening"})
CONFIRMATIONS = frozenset({"yes", "no", "cancel"})
LOBBY = frozenset({"new game", "resume"})
#: "enrol N": ask seat N to say its enrollment line again (voice turns, voice play only)
ENROL = "enrol"
#: says the next sentence of the last paged answer
PAGE = "go on"


class LineTaker(Protocol):
    """What takes typed lines: a game's session, or the lobby."""

    def parse(self, text: str) -> Command | NotRecognized: ...

    def execute(self, command: Command) -> Reply: ...

    def reject(self, text: str, key: str, reason: str, command: Command | None = None,
               **fields: Any) -> Reply: ...


class Shown(LineTaker, Protocol):
    """What the screens show and drive: a game's session, or the table service's lobby
    (whose referee stands in for a game's and whose state is None)."""

    referee: Any
    state: Any
    phrases: Phrasebook
    last_public: list[str]

    @property
    def over(self) -> bool: ...

    def handle(self, text: str) -> Reply: ...


@dataclass(frozen=True)
class Refusal:
    """Why a typed line is refused before it is applied: the response ``key`` (with its
    ``fields``) and the logged ``reason``."""

    key: str
    reason: str
    fields: dict[str, Any] = field(default_factory=dict)


def unfit_line(text: str) -> Refusal | None:
    """A typed line that is too long, or holds what a player does not type
    (``grammar.untyped_character``: a stray symbol, an invisible character), is
    refused before it is parsed, never folded into a command."""
    if len(text) > MAX_UTTERANCE:
        return Refusal("too-long", "utterance too long")
    odd = untyped_character(text)
    if odd is not None:
        kind = character_kind(odd)
        if kind == "visible":
            return Refusal("not-typed-text", f"character {odd!r} is not typed text", {"char": odd})
        return Refusal("not-typed-" + kind, f"character {odd!r} is not typed text")
    return None


def asked_not_told(taker: Any, text: str, command: Command) -> Refusal | None:
    """A typed line with a question mark asks: a query answers it, but a command that
    changes the game ("finish?") is refused, since typed commands are not confirmed."""
    asks = getattr(taker, "changes_nothing", None)
    if "?" in text and not (asks is not None and asks(command)):
        return Refusal("typed-question", "a command typed as a question")
    return None


def handle_line(taker: LineTaker, text: str) -> Reply:
    """A typed line: unfit (``unfit_line``), not understood, or a question that would
    act (``asked_not_told``) is refused with one ``command-rejected``; anything else
    is applied."""
    unfit = unfit_line(text)
    if unfit is not None:
        return taker.reject(text, unfit.key, unfit.reason, **unfit.fields)
    command = taker.parse(text)
    if isinstance(command, NotRecognized) and getattr(taker, "meaning", None) is not None:
        found = taker.understand(text)   # type: ignore[attr-defined]
        if found.command is not None and found.by == "meaning":
            taker.suggested = found.command   # type: ignore[attr-defined]
            said = taker.grammar.render(found.command.canonical,   # type: ignore[attr-defined]
                                        lists=taker.referee.runtime_lists(taker.state)) or found.command.canonical  # type: ignore[attr-defined]
            return taker.reject(text, "meaning-did-you-mean", f"not understood; asked {found.command.canonical!r}",
                                command=None, asked=said)
    if isinstance(command, NotRecognized):
        usage = getattr(taker, "usage_key", None)
        key = usage(text) if usage is not None else None
        if key is not None:
            return taker.reject(text, key[0], "not understood", **key[1])
        return taker.reject(text, "say-again", "not understood")
    question = asked_not_told(taker, text, command)
    if question is not None:
        return taker.reject(text, question.key, question.reason, command)
    return taker.execute(command)


def leading_words(source: str) -> list[str]:
    """The literal words a grammar template starts with, up to its first slot, option or
    alternative (``report b [sends] {fact}`` -> ``["report", "b"]``)."""
    match = re.match(r"\s*((?:[A-Za-z][\w'-]*\s*)+)", source)
    return match.group(1).lower().split() if match else []


def usage_key(grammar: Grammar, phrases: Phrasebook, text: str) -> tuple[str, dict[str, Any]] | None:
    """See ``Session.usage_key``."""
    words = text.lower().replace(",", " ").split()
    if not words:
        return None
    best, matched = None, 0
    for form in grammar.forms:   # the form that shares the most leading words ("report b" is b's)
        lead = leading_words(form.source)
        if not lead or lead[0] != words[0]:
            continue
        same = next((n for n, (a, b) in enumerate(zip(lead, words)) if a != b), min(len(lead), len(words)))
        if best is None or same > matched:
            best, matched = form, same
    if best is None:
        return None
    key = "usage-" + best.intent.replace(" ", "-")
    if key in phrases:
        return key, {}
    return "usage-fallback", {"intent": best.intent}


@dataclass
class Reply:
    """What one line produced: public sentences, private lines, logged lines."""

    public: list[str] = field(default_factory=list)
    private: list[dict[str, Any]] = field(default_factory=list)
    logged: list[dict[str, Any]] = field(default_factory=list)
    command: Command | None = None
    accepted: bool = False
    quit: bool = False
    #: a resumed game's announcements from before this reply (from its log), for the
    #: screens' log to show ahead of "Resuming the game."; not said again (after a crash
    #: the last command's are, in ``public``: they may never have been heard)
    history: list[str] = field(default_factory=list)


class Session:
    def __init__(self, referee: Referee[Any], grammar: Grammar, log: EventLog, state: Any,
                 seed: int, private_path: Path | None = None, table: TableData | None = None,
                 screens: bool = False) -> None:
        """``screens``: private messages go to the seat screens (else, with ``private_path``,
        to that file, and the sentences that say where a board went say so)."""
        self.referee = referee
        self.grammar = grammar
        self.phrases = _phrases(grammar, private_path, screens)
        self.log = log
        self.state = state
        self.seed = seed
        self.private_path = private_path
        self.last_public: list[str] = []
        self.table = table or TableData()
        self.game_id = ""
        #: what "quit" says: goodbye, or (a game the lobby started) back to the lobby
        self.leaving = "goodbye"
        self.pages: list[str] = []          # the rest of the last paged answer
        #: the queries whose "say go on" cue was given: once a table for each kind of answer
        self._cued: set[str] = set()
        #: voice turns (speech/voices/voice_turns.py): (a voice command, the seat heard or None),
        #: logged as ``heard`` on the first event of a voice command's batch
        self.heard: Callable[[], tuple[bool, int | None]] | None = None
        #: voice turns are on: a seat may be asked to say its line (its screen offers it)
        self.learns_voices = False
        #: a typed line's command found by meaning, asked ("Did you mean ...?"): the next
        #: line's yes applies it, anything else drops it
        self.suggested: Command | None = None
        #: whether the meaning stage places typed lines the grammar does not parse
        self.understands = True
        #: at a microphone array, where each seat speaks from (voice turns set it): (seat, name,
        #: degrees or None) for the table screen; None without an array
        self.seat_map: Callable[[], tuple[tuple[int, str, int | None], ...]] | None = None

    # -- starting ----------------------------------------------------------------
    @classmethod
    def start(cls, game: str, *, players: int | None = None, names: list[str] | None = None,
              seed: int | None = None, options: dict[str, Any] | None = None,
              log_path: Path | None = None, private_path: Path | None = None,
              table: TableData | None = None,
              check: Callable[[str, dict[str, Any]], None] | None = None,
              resumable: bool = True, screens: bool = False) -> tuple[Session, Reply]:
        """Start a game; ``check(game, options)`` may refuse it (``OptionsError``) once its
        options are known and before anything is written (log, records).  ``resumable``:
        the caller offers ``--resume`` (the demo does not), so a refused log may say so."""
        referee = find_game(game)
        grammar = load_grammar(referee.name)
        phrases = _phrases(grammar, private_path, screens)
        if names and players is not None and players != len(names):
            raise OptionsError(f"--players {players} conflicts with {len(names)} names")
        count = len(names) if names else (players if players is not None else referee.default_players)
        if not referee.min_players <= count <= referee.max_players:
            raise OptionsError(
                f"{referee.name} takes {referee.min_players} to {referee.max_players} players, not {count}")
        names = names or [phrases.say("seat-name", seat=s) for s in range(1, count + 1)]
        table = table or TableData()
        options = referee.prepare_options(dict(options or {}), table.read(referee.name))
        referee.check_options(options, count)
        if check is not None:
            check(referee.name, options)
        seed = seed if seed is not None else secrets.randbelow(2**31)
        started = Event("game-started", {"game": referee.name, "seed": seed, "players": count,
                                         "names": names, "options": options,
                                         "content": content_version(referee.name)})
        log = EventLog(log_path)      # locked: no second copy can start into it now
        try:
            if log_path is not None:
                _refuse_a_second_game(log_path, log, resumable)
        except BaseException:
            log.close()
            raise
        session = cls(referee, grammar, log, referee.initial(started), seed, private_path, table, screens)
        session.game_id = game_id(started)
        session._clean_table()
        try:
            events = [started] + referee.setup(session.state, session._rng())
            reply = Reply(accepted=True)
            session._commit(events[1:], reply, first=started)
        except BaseException:
            log.close()
            raise
        return session, reply

    @classmethod
    def resume(cls, log_path: Path, private_path: Path | None = None, game: str | None = None,
               table: TableData | None = None, screens: bool = False) -> tuple[Session, Reply, list[str]]:
        """Continue the game logged in ``log_path``.

        The log's complete commands are replayed; after a crash (the log was not closed)
        the last one, which may have been in flight, is announced again; every private message the
        log says a reader is owed and ``private_path`` lacks is delivered; the table's
        records are brought up to the log.  A finished game is not refused: its end
        is announced again and its records written (``over`` is then true)."""
        log, contents = EventLog.resume(log_path)
        try:
            referee = _referee_of(log_path, contents.events, game)
            _check_fields(log_path, referee.name, contents)
            _check_content(log_path, referee.name, contents.events[0])
            session = cls(referee, load_grammar(referee.name), log, None,
                          int(contents.events[0]["seed"]), private_path, table, screens)
            session.game_id = game_id(contents.events[0])
            session._clean_table()
            in_flight, owed, said = session._replay(log_path, contents)
            session._deliver_owed(owed)
            session._update_table(contents.events)
        except BaseException:
            log.close()
            raise
        if session.over:
            reply = Reply(public=[*in_flight], accepted=True)
        else:
            status = referee.query(session.state, Command("status", "status"), session.phrases)
            if not log.crashed:
                in_flight = []     # the last command was said before a clean stop
            # a voice command echoed (or asked) and not yet applied when the game stopped
            waiting = unapplied.take(log_path, contents.last_seq)
            dropped = [session.phrases.say("resume-unapplied", command=waiting[:1].upper() + waiting[1:])] \
                if waiting else []
            reply = Reply(public=[session.phrases.say("game-resumed"), *in_flight, *status, *dropped],
                          accepted=True, history=said)
        session.last_public = reply.public
        return session, reply, contents.notes

    def _replay(self, log_path: Path, contents: LogContents
                ) -> tuple[list[str], list[dict[str, Any]], list[str]]:
        """Fold the log into the state; return the last command's public sentences,
        every private message the log holds (with the text its reader sees) and every
        public sentence the log holds (the last command's too)."""
        events = contents.events
        referee = self.referee
        batches = contents.batches or [(0, len(events))]
        last_start = batches[-1][0]
        in_flight: list[str] = []
        said: list[str] = []
        owed: list[dict[str, Any]] = []
        index = 0
        try:
            state = referee.initial(events[0])
            for index, event in enumerate(events[1:], 1):
                state = referee.evolve(state, event)
                if event.public:
                    lines = referee.announce(state, event, self.phrases)
                    said.extend(lines)
                    if index >= last_start:
                        in_flight.extend(lines)
                    continue
                text = referee.private_text(state, event, self.phrases)
                if text is not None:
                    owed.append({**event.to_json(index + 1), "game_id": self.game_id, "text": text})
            self.state = state
        except Exception as exc:  # noqa: BLE001 - a log no referee wrote: refuse it, never a traceback
            # a referee's refusal (ValueError) gives its reason; Python's own (KeyError('route'))
            # means nothing at a table, so the event is named in words instead
            reason = str(exc) if type(exc) is ValueError or isinstance(exc, FacilitatorError) else \
                f"its {events[index].type} does not follow from the game before it; the log was changed " \
                "outside the game"
            raise LogError(f"log {str(log_path)!r} cannot be replayed: line {_line_of(contents, index)} "
                           f"(seq {index + 1}): {reason}") from None
        return in_flight, owed, said

    def _deliver_owed(self, owed: list[dict[str, Any]]) -> None:
        if self.private_path is None or not owed:
            return
        have = delivered_seqs(self.private_path, self.game_id)
        write_private(self.private_path, [line for line in owed if line["seq"] not in have])

    def _clean_table(self) -> None:
        if held_data_dir(self.table.directory):
            self.table.clean_stale()

    # -- one line ------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return bool(self.referee.is_over(self.state))

    def parse(self, text: str, *, typed: bool = True, narrow: bool = False) -> Command | NotRecognized:
        """Parse ``text``; ``narrow`` keeps only what is legal now plus the table controls."""
        return self.grammar.parse(text, lists=self.referee.runtime_lists(self.state),
                                  intents=self.legal_intents() if narrow else None, typed=typed)

    def legal_intents(self) -> set[str]:
        """The game's commands that could be legal now, plus every common one."""
        return self.referee.legal_intents(self.state) | self.grammar.common_intents

    def handle(self, text: str) -> Reply:
        """A typed line: parse it and apply it (typed commands are not confirmed).  A line
        the grammar does not parse may be placed by meaning: it is asked ("Did you mean:
        turn card one?"), logged as refused, and applied when the next line says yes."""
        suggested, self.suggested = self.suggested, None
        if suggested is not None:
            answer = self.grammar.parse(text, intents=CONFIRMATIONS, answers=True)
            if isinstance(answer, Command) and answer.intent == "yes":
                return self.execute(suggested)
            if not isinstance(answer, Command) and self.meaning is not None:
                from .meaning import TAKEN_BY_MEANING, understand

                found = understand(text, grammar=self.grammar, meaning=self.meaning, answers=True,
                                   intents=CONFIRMATIONS)   # a "no" in other words drops it; a yes must be plain
                answer = found.command if found.command is not None and \
                    found.command.intent in TAKEN_BY_MEANING else answer
            if isinstance(answer, Command):
                return self._answer(answer, [self.phrases.say("confirm-cancelled")])
        return handle_line(self, text)

    @property
    def meaning(self) -> Any:
        """This game's meaning stage (None: typed lines are not placed by meaning)."""
        if not self.understands:
            return None
        from .meaning import stage_for

        return stage_for(self.referee.name)

    def understand(self, text: str, *, typed: bool = True, narrow: bool = True) -> Any:
        """``text`` understood: by the grammar (narrowed to what could be legal now), else by
        the meaning stage among the commands the rules would take now (``meaning.understand``)."""
        from .meaning import understand

        return understand(text, grammar=self.grammar, meaning=self.meaning, typed=typed,
                          intents=self.legal_intents() if narrow else None,
                          lists=self.referee.runtime_lists(self.state), acceptable=self.acceptable_now)

    def acceptable_now(self, command: Command) -> bool:
        """Whether the rules would take ``command`` now (a query or a control always; nothing
        is logged): what meaning offers must be something a yes can apply."""
        intent = command.intent
        if intent in CONFIRMATIONS or intent in LOBBY:
            return False
        if self.changes_nothing(command) or intent == "quit":
            return True
        try:
            self.referee.decide(self.state, command, random.Random(0))
        except IllegalCommandError:
            return False
        return True

    def changes_nothing(self, command: Command) -> bool:
        """Whether ``command`` only asks or answers (a query, a control): a typed line
        with a question mark may give it, never a command that changes the game."""
        intent = command.intent
        return (intent in ("repeat", PAGE) or intent in CONTROLS or intent in CONFIRMATIONS
                or intent in LOBBY or intent in self.referee.queries or intent in self.referee.private_queries)

    def execute(self, command: Command) -> Reply:
        """Apply a parsed (and, by voice, confirmed) command."""
        intent = command.intent
        if intent == "repeat":
            lines = self.last_public or [self.phrases.say("nothing-to-repeat")]
            return Reply(public=list(lines), command=command)
        if intent in CONTROLS:
            return self._answer(command, [self.phrases.say("voice-only")])
        if intent == ENROL:   # voice turns take "enrol N" where they are on (speech/voices)
            return self._answer(command, [self.phrases.say("voices-not-on")])
        if intent == PAGE:
            if not self.pages:
                return self._answer(command, [self.phrases.say("page-end")])
            return self._answer(command, [self.pages.pop(0)])
        if intent == "quit":
            self.log.check_kept()     # a log taken away is written back, not left on no path
            return Reply(public=[self.phrases.say(self.leaving)], command=command, quit=True)
        if intent in CONFIRMATIONS:
            return self.reject(command.text, "nothing-to-confirm", "nothing to confirm", command)
        if intent in LOBBY:   # "new game" says how (quit first); "resume", that the game goes on
            key = "new-game-in-game" if intent == "new game" else "resume-in-game"
            return self.reject(command.text, key, f"{intent!r} is for the lobby", command)
        if intent in self.referee.private_queries:
            try:
                return self._tell(command, self.referee.private_query(self.state, command, self.phrases))
            except IllegalCommandError as exc:
                return self.reject(command.text, exc.key, str(exc), command, **exc.fields)
        if intent in self.referee.queries:
            try:
                return self._paged(command, self.referee.query(self.state, command, self.phrases))
            except IllegalCommandError as exc:
                return self.reject(command.text, exc.key, str(exc), command, **exc.fields)
        # the decision sees the table's record as it is now, not as it was at the start (the
        # state itself stays the fold of the log: what the decision took is in its events)
        deciding = self.state
        if self.referee.keeps_table:
            deciding = self.referee.with_table(self.state, self.table.read(self.referee.name))
        try:
            events = self.referee.decide(deciding, command, self._rng())
        except IllegalCommandError as exc:
            return self.reject(command.text, exc.key, str(exc), command, **exc.fields)
        reply = Reply(command=command, accepted=True)
        self._commit(events, reply)
        return reply

    def reject(self, text: str, key: str, reason: str, command: Command | None = None,
               **fields: Any) -> Reply:
        """Log one ``command-rejected`` and say why; nothing else changes."""
        shown = text if len(text) <= MAX_UTTERANCE else text[:MAX_UTTERANCE] + "…"
        sentence = self.phrases.say(key, **fields)
        reply = Reply(command=command)
        event = rejected(shown, reason)
        if self.referee.typed_words_private(self.state):
            # the event is public; a mistyped clue must not put the clue in it
            event = Event("command-rejected", {"utterance": "", "reason": reason, "withheld": True})
        reply.logged = self.log.append(self._with_heard([event]))
        reply.public = [sentence]
        self.last_public = reply.public
        return reply

    def usage_key(self, text: str) -> tuple[str, dict[str, Any]] | None:
        """The usage line for a line that starts like a command but does not parse.

        The line's leading word is matched to the intents whose templates start with
        it (``check W 5`` -> check); the game's ``usage-<intent>`` response says how
        to say it, else a common fallback.  None when no intent starts that way.
        """
        return usage_key(self.grammar, self.phrases, text)

    def usage_line(self, intent: str) -> str:
        """How to say ``intent``: its ``usage-<intent>`` response, else the fallback."""
        key = "usage-" + intent.replace(" ", "-")
        if key in self.phrases:
            return self.phrases.say(key)
        return self.phrases.say("usage-fallback", intent=intent)

    # -- internals -----------------------------------------------------------------
    def _paged(self, command: Command, lines: list[str]) -> Reply:
        """A query's answer: its first sentence now, the rest on "go on" (text and voice).

        The first time each kind of answer (each query intent) has more, the table is told
        to say go on, unless the answer's first sentence says so itself (the referee's
        ``cued_queries``): one cue, never two in a row."""
        lines = [line for line in lines if line]
        self.pages = lines[1:]
        first = lines[:1]
        intent = command.intent
        if self.pages and intent not in self._cued and intent not in self.referee.cued_queries:
            self._cued.add(intent)
            first = [*first, self.phrases.say("page-more")]
        return self._answer(command, first)

    def _answer(self, command: Command, lines: list[str]) -> Reply:
        self.last_public = lines
        return Reply(public=lines, command=command)

    def _tell(self, command: Command, answers: list[tuple[Any, str]]) -> Reply:
        """A private query's answer: each line to its audience only, like a private event, with
        the seq of the last logged event (nothing is logged); ``"public"`` lines are said."""
        seq = self.log.next_seq - 1
        private = [{"type": "private-answer", "seq": seq, "audience": audience, "text": text}
                   for audience, text in answers if audience != "public"]
        if self.private_path is not None:
            write_private(self.private_path, private)
        reply = self._answer(command, [text for audience, text in answers if audience == "public"])
        reply.private = private
        return reply

    def _with_heard(self, events: list[Event]) -> list[Event]:
        """A voice command's first event carries ``heard``: the seat whose voice said it
        (null when not sure).  Typed and clicked commands, and tables without voice
        turns, log no such field."""
        voice, seat = self.heard() if self.heard is not None else (False, None)
        if not voice or not events or "heard" in events[0].data:
            return events
        head = events[0]
        return [Event(head.type, {**head.data, "heard": seat}, head.audience), *events[1:]]

    def _rng(self) -> random.Random:
        # a fresh generator per decision, derived from the seed and the log position,
        # so a resumed game draws exactly what the uninterrupted one would have
        return random.Random(f"{self.seed}:{self.log.next_seq}")

    def _update_table(self, events: list[Event]) -> None:
        """Bring the table's document up to ``events`` (idempotent, so a resumed game may
        apply the same events again)."""
        current = self.table.read(self.referee.name)
        updated = self.referee.table_update(current, events)
        if updated is not None and updated != current:
            self.table.write(self.referee.name, updated)

    def _commit(self, events: list[Event], reply: Reply, first: Event | None = None) -> None:
        batch = ([first] if first else []) + self._with_heard(events)
        reply.logged = self.log.append(batch)            # fsynced before anything is said
        for event, line in zip(batch, reply.logged):
            if event is first:
                continue
            self.state = self.referee.evolve(self.state, event)
            if event.public:
                reply.public.extend(self.referee.announce(self.state, event, self.phrases))
            else:
                text = self.referee.private_text(self.state, event, self.phrases)
                if text is not None:
                    reply.private.append({**line, "game_id": self.game_id, "text": text})
        if self.private_path is not None:
            write_private(self.private_path, reply.private)
        self._update_table(batch)
        if reply.public:
            self.last_public = list(reply.public)


def _phrases(grammar: Grammar, private_path: Path | None, screens: bool) -> Phrasebook:
    """The game's sentences, naming the private file where hidden information goes there."""
    return Phrasebook(grammar.responses, PRIVATE_FILE if private_path is not None and not screens else None)


def game_id(started: Event) -> str:
    """A short name of one game (a digest of its ``game-started``): private messages carry
    it, so a file that also holds another game's messages is read right on resume."""
    return hashlib.sha256(json.dumps(started.to_json(1), sort_keys=True).encode("utf-8")).hexdigest()[:12]


def _refuse_a_second_game(log_path: Path, log: EventLog, resumable: bool = True) -> None:
    """Never append a second game to a log: the first could never be resumed.

    A log whose opening batch never got whole onto the disk holds no game: it is
    emptied and the game starts in it.  The refusal suggests ``--resume`` only where it
    would work: the game is not over and the caller has the flag."""
    try:
        size = log_path.stat().st_size
    except OSError:
        return
    if size == 0:
        return
    try:
        events = read_log(log_path).events
    except LogError as exc:
        if not _torn_opening(log_path):
            raise LogError(f"{str(log_path)!r} is not a game log and is not empty: it is left as it is; "
                           "choose another --log") from None
        if "holds no events" not in str(exc):
            raise LogError(f"{str(log_path)!r} is neither empty nor a game log that can go on ({exc}); "
                           "choose another --log") from None
        log.discard()
        return
    if _finished(events):
        raise LogError(f"{str(log_path)!r} already holds a finished game; choose another --log")
    if not resumable:
        raise LogError(f"{str(log_path)!r} already holds a game; choose another --log")
    raise LogError(f"{str(log_path)!r} already holds a game; continue it with --resume {log_path} "
                   "or choose another --log")


def _finished(events: list[Event]) -> bool:
    """Whether a log's game is over (a log no referee can fold counts as not over)."""
    try:
        referee = find_game(str(events[0].get("game")))
        return bool(referee.is_over(referee.replay(events)))
    except Exception:  # noqa: BLE001 - only the wording of a refusal depends on it
        return False


#: how every log begins (the game-started line): a file that does not is no log of a game
LOG_OPENING = b'{"type":"game-started",'
#: how the opening line goes on after it, as the referee writes it
OPENING_ENVELOPE = LOG_OPENING + b'"seq":1,"audience":"public","game":"'


def _torn_opening(log_path: Path) -> bool:
    """Whether the file holds the start of a log's opening batch, cut short (a power cut):
    it reads as a torn ``game-started`` event: its type is written whole, and the envelope
    after it agrees as far as it goes.  Anything else (a user's one-line note, a lone
    ``{``, a head too short to name the event) is not a log and must never be emptied."""
    try:
        with open(log_path, "rb") as f:
            head = f.read(len(OPENING_ENVELOPE))
    except OSError:
        return False
    return head.startswith(LOG_OPENING) and OPENING_ENVELOPE.startswith(head)


def _referee_of(log_path: Path, events: list[Event], game: str | None) -> Referee[Any]:
    name = events[0].get("game")
    try:
        referee = find_game(str(name))
    except ValueError:
        raise LogError(f"log {str(log_path)!r} is of an unknown game {name!r}") from None
    if game is not None and find_game(game).name != referee.name:
        raise LogError(f"log {str(log_path)!r} is a {referee.name} game, not {game}")
    return referee


def _check_fields(log_path: Path, game: str, contents: LogContents) -> None:
    for seq, event in enumerate(contents.events, 1):
        problem = check_fields(game, event)
        if problem is not None:
            raise LogError(f"log {str(log_path)!r} cannot be replayed: line {_line_of(contents, seq - 1)} "
                           f"(seq {seq}): {problem}")


def _line_of(contents: LogContents, index: int) -> int:
    """The file's line number of event ``index`` (its seq less one)."""
    numbers = contents.line_numbers
    return numbers[index] if 0 <= index < len(numbers) else index + 1


def _check_content(log_path: Path, game: str, started: Event) -> None:
    logged = started.get("content")
    if logged is None:
        return            # a log from before content versions
    now = content_version(game)
    if logged != now:
        raise DecksChangedError(f"the {game} decks changed since the game in {str(log_path)!r} started "
                       f"(content version {logged}, now {now}); put the decks back to resume it")
