"""The one place screens meet the session: a lock, what was announced, and each
audience's private messages.

Every caller of the session (stdin, the voice loop, web buttons) goes through
``SharedSession``: one ``threading.RLock`` serialises them, and every reply is
recorded for the screens after the session has logged it (invariant 3 holds: the
session still appends and fsyncs before anything is shown).  The hub only reads
replies; the session stays the only writer of the log.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..events import Audience, Event
from ..command import Command
from ..log import read_log
from ..session import MAX_UTTERANCE, Reply, Session
from .seats import Seats

#: the table control that frees a seat ("release seat 2"), by voice or typed
RELEASE = "release seat"

#: announcements kept for the table screen (the newest last)
KEPT_ANNOUNCEMENTS = 200
#: how long a clicked command waits for the voice loop to apply (and speak) it
VOICE_WAIT_SECONDS = 15.0


@dataclass(frozen=True)
class PrivateLine:
    """One private message: its log envelope (type, seq, audience, fields) and text."""

    audience: Audience
    seq: int
    type: str
    text: str


@dataclass
class _Ticket:
    """A clicked command handed to the voice loop, waiting for its reply."""

    text: str
    done: threading.Event = field(default_factory=threading.Event)
    reply: Reply | None = None


class Hub:
    """Announcements, private messages and a change counter the screens wait on."""

    def __init__(self, session: Session, opening: Reply, seats: Seats) -> None:
        self.session = session
        self.seats = seats
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self.version = 0
        self.announcements: list[str] = []
        #: announcements ever made (numbers the kept ones for the screens' append-only logs)
        self.announced = 0
        self.private: list[PrivateLine] = []
        self.shared = SharedSession(session, self)
        #: in voice play, the listen loop's thread-safe ``submit_text``: a clicked command
        #: is applied by the loop, which speaks its reply like any typed line
        self.dispatch: Callable[[str], None] | None = None
        self._tickets: list[_Ticket] = []
        #: in text play, where a clicked command's reply is printed (stdout), like a typed one's
        self.echo: Callable[[Reply], None] | None = None
        #: a "quit" was applied (by any caller): the table service goes back to the lobby
        self.quit_requested = False
        self._load_history(opening)

    # -- history -------------------------------------------------------------------
    def switch(self, session: Any, public: Sequence[str] = ()) -> None:
        """The table service moves from the lobby to a game or back: the screens show
        ``session`` from now on (its private messages rebuilt from its log), and
        ``public`` is announced.  Seats, links and the announcements so far stay."""
        with self._changed:
            self.session = session
            self.quit_requested = False
            self.private = []
            log = getattr(session, "log", None)
            path = log.path if log is not None else None
            if path is not None and path.exists():
                events = read_log(path).events
                if events:
                    self.private = private_history(session, events)
            names = getattr(getattr(session, "state", None), "names", None)
            if names:
                self.seats.ensure(len(names))
            self.announcements.extend(public)
            self.announced += len(public)
            del self.announcements[:-KEPT_ANNOUNCEMENTS]
            self.touch()

    def _load_history(self, opening: Reply) -> None:
        """Private messages since the game began: from the opening reply, or, for a
        resumed game, by folding the log again (pure referee calls, nothing written)."""
        log = getattr(self.session, "log", None)   # the lobby has none
        path = log.path if log is not None else None
        events: list[Event] = []
        if path is not None and path.exists():
            events = read_log(path).events
        if len(events) > 1 and not any(line.get("type") == "game-started" for line in opening.logged):
            self.private = private_history(self.session, events)
        else:
            self._take_private(opening.private)
        self.announcements = list(opening.public)
        self.announced = len(self.announcements)

    def _take_private(self, lines: Sequence[dict[str, Any]]) -> None:
        for line in lines:
            self.private.append(PrivateLine(line["audience"], int(line["seq"]), str(line["type"]),
                                            str(line["text"])))

    # -- recording -------------------------------------------------------------------
    def record(self, reply: Reply) -> None:
        """Take one reply's public lines and private messages; wake the screens."""
        with self._changed:
            self.announcements.extend(reply.public)
            self.announced += len(reply.public)
            del self.announcements[:-KEPT_ANNOUNCEMENTS]
            self._take_private(reply.private)
            self.touch()

    def touch(self) -> None:
        """Something the screens show changed (a reply, a seat joined or released)."""
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        """Block until ``version`` passes ``seen`` or ``timeout`` seconds go by."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen, timeout)
            return self.version

    def private_for(self, audiences: frozenset[Audience]) -> list[PrivateLine]:
        with self.lock:
            return [line for line in self.private if line.audience in audiences]

    def numbered_announcements(self, count: int) -> list[tuple[int, str]]:
        """The last ``count`` announcements with their running numbers (1 = the first)."""
        with self.lock:
            kept = self.announcements[-count:]
            first = self.announced - len(kept) + 1
            return list(enumerate(kept, first))

    def release(self, seat: int) -> str:
        """Free ``seat`` for another device; the response key that says what happened."""
        if seat not in self.seats.seats:
            return "seat-unknown"
        if not self.seats.release(seat):
            return "seat-not-held"
        self.touch()
        return "seat-released"

    def submit(self, text: str, wait: float = VOICE_WAIT_SECONDS) -> Reply | None:
        """A clicked command: the same canonical text a player would type.

        In text play it is applied here, under the lock.  In voice play it goes to the
        listen loop (so its announcements are spoken too) and this waits up to ``wait``
        seconds for the reply; None when the loop has not applied it yet (it still will).
        Never call this holding the lock in voice play: the loop needs it."""
        dispatch = self.dispatch
        if dispatch is None:
            reply = self.shared.handle(text)
            if self.echo is not None:
                self.echo(reply)
            return reply
        ticket = _Ticket(text)
        with self.lock:
            self._tickets.append(ticket)
        dispatch(text)
        ticket.done.wait(wait)
        with self.lock:
            if ticket in self._tickets:
                self._tickets.remove(ticket)
        return ticket.reply

    def settle(self, text: str, reply: Reply) -> None:
        """The reply to ``text`` arrived: hand it to the oldest click waiting for it."""
        with self.lock:
            for ticket in self._tickets:
                if ticket.text == text:
                    self._tickets.remove(ticket)
                    ticket.reply = reply
                    ticket.done.set()
                    return


class SharedSession:
    """The session behind one lock; replies are recorded for the screens.

    It forwards everything else to the session, so the text and voice loops take it
    in the session's place."""

    def __init__(self, session: Session, hub: Hub) -> None:
        self._hub = hub

    @property
    def _session(self) -> Any:
        """Whatever the hub shows now (a game, or the table service's lobby)."""
        return self._hub.session

    def handle(self, text: str) -> Reply:
        with self._hub.lock:
            command = self._session.parse(text) if len(text) <= MAX_UTTERANCE else None
            if isinstance(command, Command) and command.intent == RELEASE:
                reply = self._release(command)
            else:
                reply = self._session.handle(text)
            self._hub.quit_requested = self._hub.quit_requested or reply.quit
            self._hub.record(reply)
            self._hub.settle(text, reply)
        return reply

    def execute(self, command: Command) -> Reply:
        with self._hub.lock:
            if command.intent == RELEASE:
                reply = self._release(command)
            else:
                reply = self._session.execute(command)
            self._hub.quit_requested = self._hub.quit_requested or reply.quit
            self._hub.record(reply)
        return reply

    def _release(self, command: Command) -> Reply:
        """A table control, like a query: it changes no game state and logs nothing."""
        seat = int(command.slots["number"])
        reply = Reply(public=[self._session.phrases.say(self._hub.release(seat), seat=seat)],
                      command=command)
        self._session.last_public = list(reply.public)
        return reply

    @property
    def over(self) -> bool:
        return self._session.over

    def attach_loop(self, loop: Any) -> None:
        """Voice play: clicked commands go through ``loop.submit_text`` from now on."""
        self._hub.dispatch = loop.submit_text

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def private_history(session: Session, events: Sequence[Event]) -> list[PrivateLine]:
    """Every private message of a logged game, as the live game showed it."""
    referee = session.referee
    state = referee.initial(events[0])
    out: list[PrivateLine] = []
    for seq, event in enumerate(events[1:], 2):
        state = referee.evolve(state, event)
        if event.public:
            continue
        text = referee.private_text(state, event, session.phrases)
        if text is not None:
            out.append(PrivateLine(event.audience, seq, event.type, text))
    return out
