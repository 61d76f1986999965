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

from ..command import Command
from ..events import Audience, Event
from ..log import read_log
from ..session import MAX_UTTERANCE, Reply, Session, Shown
from .seats import Seats
from .talk import PhoneListener, TalkRefused

#: the table control that frees a seat ("release seat 2"), by voice or typed
RELEASE = "release seat"

#: announcements kept for the table screen (the newest last)
KEPT_ANNOUNCEMENTS = 200
#: how long a clicked command waits for the voice loop to apply (and speak) it
VOICE_WAIT_SECONDS = 15.0


@dataclass(frozen=True)
class PrivateLine:
    """One private message: its log envelope (type, seq, audience), its text, and the
    seats it was addressed to: those reading its audience when it was written (a
    keeper's message stays with the seat that kept that leg, not with the role)."""

    audience: Audience
    seq: int
    type: str
    text: str
    seats: frozenset[int] = frozenset()


@dataclass(frozen=True)
class PhoneHeard:
    """What the listen loop made of a seat's latest phone utterance: the words it heard
    (None: nothing heard) and the sentences the referee said in answer.  ``number``
    counts a seat's reports, so a page knows a new one from the last."""

    heard: str | None
    said: tuple[str, ...]
    number: int


@dataclass
class _Ticket:
    """A clicked command handed to the voice loop, waiting for its reply."""

    text: str
    done: threading.Event = field(default_factory=threading.Event)
    reply: Reply | None = None


class Hub:
    """Announcements, private messages and a change counter the screens wait on."""

    def __init__(self, session: Shown, opening: Reply, seats: Seats) -> None:
        #: what the screens show now: a game's ``Session`` or the table service's lobby
        #: (``switch`` changes it); screen code reaches a game's own parts only after
        #: ``lobby_view.is_lobby`` says it is no lobby
        self.session: Any = session
        self.seats = seats
        self.lock = threading.RLock()
        self._changed = threading.Condition(self.lock)
        self.version = 0
        self.announcements: list[str] = []
        #: announcements ever made (numbers the kept ones for the screens' append-only logs)
        self.announced = 0
        #: the lines said now, without a resumed game's earlier ones (stdout prints these)
        self.spoken: list[str] = []
        self.spoken_count = 0
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
        # phones as microphones: who listens (None: text play), and what it made of each seat's last utterance
        self._listener: PhoneListener | None = None
        self._heard: dict[int, PhoneHeard] = {}
        #: the seat whose phone's question was open when the screens last looked (``notice_question``)
        self._asked: int | None = None
        #: the seat map as the screens last drew it (``notice_seat_map``)
        self._seat_map: tuple[tuple[int, str, int | None], ...] = ()
        #: the game that just ended, while the lobby shows (its result is shown there)
        self.finished: Any = None
        self._load_history(opening)

    # -- history -------------------------------------------------------------------
    def switch(self, session: Any, public: Sequence[str] = ()) -> None:
        """The table service moves from the lobby to a game or back: the screens show
        ``session`` from now on (its private messages rebuilt from its log), and
        ``public`` is announced.  Seats, links and the announcements so far stay.

        The game's own opening needs nothing here: the lobby's reply that chose or
        resumed it was recorded already (a resumed game's earlier announcements with it,
        as ``Reply.history``), so the screens' logs only ever grow at their end."""
        with self._changed:
            previous = self.session
            # the lobby after a finished game shows its result (a game left mid-way shows none)
            ended = getattr(previous, "over", False) and getattr(previous, "referee", None) is not None
            self.finished = previous if ended and session is not previous else None
            self.session = session
            self.quit_requested = False
            self.private = []
            events = _logged_events(session)
            if events:
                self.private = history(session, events)[1]
            names = getattr(getattr(session, "state", None), "names", None)
            if names:
                self.seats.ensure(len(names))
            self._announce([], public)
            self.touch()

    def _announce(self, before: Sequence[str], public: Sequence[str]) -> None:
        """Append to the screens' log (``before``, said earlier in a resumed game, then
        ``public``) and to what is said now (``public`` alone)."""
        self.announcements.extend([*before, *public])
        self.announced += len(before) + len(public)
        del self.announcements[:-KEPT_ANNOUNCEMENTS]
        self.spoken.extend(public)
        self.spoken_count += len(public)
        del self.spoken[:-KEPT_ANNOUNCEMENTS]

    def _load_history(self, opening: Reply) -> None:
        """Private messages since the game began: from the opening reply, or, for a
        resumed game, by folding the log again (pure referee calls, nothing written)."""
        events = _logged_events(self.session)
        said: list[str] = []
        if len(events) > 1 and not any(line.get("type") == "game-started" for line in opening.logged):
            said, self.private = history(self.session, events)   # a resumed game
        else:
            self._take_private(opening.private, getattr(self.session, "state", None), opening.logged)
        self._announce(said, opening.public)

    def _take_private(self, lines: Sequence[dict[str, Any]], before: Any,
                      logged: Sequence[dict[str, Any]]) -> None:
        """Keep a reply's private messages, each bound to the seats that read its
        audience at its event (found by folding the reply's events from ``before``)."""
        if not lines:
            return
        session = self.session
        referee = session.referee
        after = getattr(session, "state", None)
        at: dict[int, Any] = {}
        state = before
        if before is not None and before is not after:
            try:
                for line in logged:
                    event = Event.from_json(line)
                    if event.type == "game-started":
                        continue
                    state = referee.evolve(state, event)
                    at[int(line["seq"])] = state
            except Exception:  # noqa: BLE001  (a fold that fails falls back to the state now)
                at = {}
        for line in lines:
            seq = int(line["seq"])
            self.private.append(PrivateLine(line["audience"], seq, str(line["type"]), str(line["text"]),
                                            readers(referee, at.get(seq, after), line["audience"])))

    # -- recording -------------------------------------------------------------------
    def record(self, reply: Reply, before: Any = None) -> None:
        """Take one reply's public lines and private messages; wake the screens.
        ``before``: the game's state before the reply (to address its messages)."""
        with self._changed:
            self._announce(reply.history, reply.public)
            self._take_private(reply.private, before, reply.logged)
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

    def private_for(self, seat: int) -> list[PrivateLine]:
        """The private messages addressed to ``seat``, and only those."""
        with self.lock:
            return [line for line in self.private if seat in line.seats]

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
        with self.lock:
            self._heard.pop(seat, None)      # the next holder does not see the last one's words
        self.touch()
        return "seat-released"

    # -- phones as microphones ---------------------------------------------------------
    @property
    def listener(self) -> PhoneListener | None:
        """Who hears the phones' utterances: the listen loop in voice play, None in text
        play (nobody listens for voices; the talk controls say so).  Setting it redraws
        the seats' pages."""
        return self._listener

    @listener.setter
    def listener(self, listener: PhoneListener | None) -> None:
        with self._changed:
            self._listener = listener
            self.touch()

    def phone_heard(self, seat: int, heard: str | None, said: list[str]) -> None:
        """The listen loop's report on seat ``seat``'s latest phone utterance: what it heard
        (None: nothing) and what the referee said in answer.  Thread-safe; the seat's
        page shows it."""
        with self._changed:
            number = self._heard[seat].number + 1 if seat in self._heard else 1
            self._heard[seat] = PhoneHeard(heard, tuple(str(line) for line in said), number)
            self.touch()

    def asking_seat(self) -> int | None:
        """The seat whose phone spoke the command the referee's open question is about
        ("... Is that right?"): its page shows Yes and No to tap.  None: no such question."""
        listener = self._listener
        return None if listener is None else listener.asking_seat()

    def notice_question(self) -> None:
        """Redraw the screens when a phone's question opened or closed (the live streams
        call this as they poll: a question also closes by timeout, or by a voice at the
        table, which touch nothing else)."""
        seat = self.asking_seat()
        if seat != self._asked:
            self._asked = seat
            self.touch()

    def notice_seat_map(self) -> None:
        """Redraw the table screen when the seat map changed (a seat enrolled, or leaned a
        degree or more: voice turns change it on the loop's thread, touching nothing else)."""
        from .seat_map import seat_map_places

        places = seat_map_places(self.session)
        if places != self._seat_map:
            self._seat_map = places
            self.touch()

    def answer_tap(self, seat: int, yes: bool) -> None:
        """Seat ``seat`` tapped Yes or No: handed to the listen loop, which answers the open
        question as if that phone had said it.  ``TalkRefused`` when it answers nothing:
        ``no-question`` (none is open: it closed, or was never asked) or ``not-yours``
        (the open question is another seat's: only the phone that spoke answers it)."""
        listener = self._listener
        asking = None if listener is None else listener.asking_seat()
        if listener is None or asking is None:
            raise TalkRefused("no-question", 409)
        if asking != seat:
            with self.lock:
                names = getattr(getattr(self.session, "state", None), "names", None) or ()
            name = names[asking - 1] if 0 < asking <= len(names) else f"seat {asking}"
            raise TalkRefused("not-yours", 409, name=str(name))
        listener.seat_answer(seat, yes)

    def wait_answered(self, seat: int, seen: int, timeout: float) -> None:
        """Wait (up to ``timeout`` seconds) until seat ``seat``'s tapped answer has been
        taken: its question closed and the referee's answer reported (``heard_for``
        numbered past ``seen``).  For a page without its script, which shows the seat's
        page once, after the answer, instead of following live updates."""
        def answered() -> bool:
            heard = self._heard.get(seat)
            return self.asking_seat() != seat and heard is not None and heard.number > seen
        with self._changed:
            self._changed.wait_for(answered, timeout)

    def heard_for(self, seat: int) -> PhoneHeard | None:
        """The latest report on seat ``seat``'s phone utterances (None: none yet)."""
        with self.lock:
            return self._heard.get(seat)

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

    def __init__(self, session: Shown, hub: Hub) -> None:
        self._hub = hub

    @property
    def _session(self) -> Any:
        """Whatever the hub shows now (a game, or the table service's lobby)."""
        return self._hub.session

    def handle(self, text: str) -> Reply:
        with self._hub.lock:
            before = getattr(self._session, "state", None)
            command = self._session.parse(text) if len(text) <= MAX_UTTERANCE else None
            if isinstance(command, Command) and command.intent == RELEASE:
                reply = self._release(command)
            else:
                reply = self._session.handle(text)
            self._hub.quit_requested = self._hub.quit_requested or reply.quit
            self._hub.record(reply, before)
            self._hub.settle(text, reply)
        return reply

    def execute(self, command: Command) -> Reply:
        with self._hub.lock:
            before = getattr(self._session, "state", None)
            if command.intent == RELEASE:
                reply = self._release(command)
            else:
                reply = self._session.execute(command)
            self._hub.quit_requested = self._hub.quit_requested or reply.quit
            self._hub.record(reply, before)
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
        return bool(self._session.over)

    def attach_loop(self, loop: Any) -> None:
        """Voice play: clicked commands go through ``loop.submit_text`` from now on, and the
        seats' phones are heard by the loop (``Hub.listener``): what it made of each
        utterance comes back to the phone through ``Hub.phone_heard``."""
        self._hub.dispatch = loop.submit_text
        if hasattr(loop, "phone_utterance") and hasattr(loop, "phone_press"):
            loop.on_phone = self._hub.phone_heard
            self._hub.listener = loop
            seats = self._hub.seats
            loop.phone_seats = lambda: frozenset(n for n, s in seats.seats.items() if s.held)
            loop.phones_serve = lambda: True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def _logged_events(session: Any) -> list[Event]:
    log = getattr(session, "log", None)   # the lobby has none
    path = log.path if log is not None else None
    if path is None or not path.exists():
        return []
    return list(read_log(path).events)


def readers(referee: Any, state: Any, audience: Audience) -> frozenset[int]:
    """The seats reading ``audience`` in ``state``: a seat reads its own, a role's
    holder the role's."""
    if isinstance(audience, int):
        return frozenset({audience})
    names = getattr(state, "names", None) or ()
    try:
        return frozenset(n for n in range(1, len(names) + 1) if audience in referee.seat_audiences(state, n))
    except Exception:  # noqa: BLE001  (no seat reads what cannot be placed)
        return frozenset()


def history(session: Any, events: Sequence[Event]) -> tuple[list[str], list[PrivateLine]]:
    """A logged game's announcements and private messages, as the live game made them
    (pure referee calls: nothing is written)."""
    referee = session.referee
    state = referee.initial(events[0])
    said: list[str] = []
    out: list[PrivateLine] = []
    for seq, event in enumerate(events[1:], 2):
        state = referee.evolve(state, event)
        if event.public:
            said.extend(referee.announce(state, event, session.phrases))
            continue
        text = referee.private_text(state, event, session.phrases)
        if text is not None:
            out.append(PrivateLine(event.audience, seq, event.type, text,
                                   readers(referee, state, event.audience)))
    return said, out


def private_history(session: Session, events: Sequence[Event]) -> list[PrivateLine]:
    """Every private message of a logged game, as the live game showed it."""
    return history(session, events)[1]
