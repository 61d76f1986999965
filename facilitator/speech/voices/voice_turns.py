"""Voice turns: the listen loop learns each seat's voice and holds a role's command to it.

``VoiceTurns.attach(loop, ...)`` (or the constructor) sets ``loop.voices``; the loop
then routes three things through it, and acts on what it returns:

* ``enrolling``/``line(segment, answer, sure)``: while a seat is asked "Ann, say:
  I'm ready to play", the next table utterance is that seat's enrollment (or the
  table's "no": voices off); ``line`` returns the sentences to say;
* ``ruling(command, segment)`` where a heard command is routed: the utterance's
  similarity to each enrolled voice gives a verdict (``speakers.identify``) and
  the referee's ``acting_seats`` who may give the command now (``speakers.rule``):
  ``"chatter"`` (a stranger's voice: silence), ``"refuse"`` (a sure match to
  another seat: ``refusal`` logs it and gives the words, said once until the game
  moves), ``"take"`` (an unsure one is taken as without voices), or at an array
  ``"ask"`` (the direction is unsure: the one seat that may give it is asked by
  name, "Ann, was that you?", and ``from_seat`` says whether a yes came from her
  place);
* ``typed(text)``: ``enrol N`` (typed, said as a command, or a phone's button) asks
  seat N to speak.

An enrollment line is that seat's only when it comes from no other enrolled seat's
place (``enrolment.place``): a line from another seat's bearing is that seat
speaking again, and the seat asked is asked again by name.  At an array the seat
map (``seat_map``) is shown on the table screen.

At a microphone array (``--array``, ``devices.array``) each utterance also has a
bearing (``direction.py``, from the raw microphones the segment carries), each
seat's enrollment line teaches where it sits beside how it sounds, and a
direction sure of its seat (``seats.seat_of``) decides first: the seat it names
gives the command or has it refused, by the same rules and words as a voice; a
voice no seat has (a stranger) is still chatter.  Where the direction is unsure
the voiceprint decides as without an array.  A seat's bearing follows the
player as they lean (every utterance sure to be theirs moves it a little), and
is kept beside the voiceprints for ``--resume``.  Without the speakers extra (or
in the light mode) an array alone still names the seats.

Typed and clicked commands are never checked, and a phone's utterance needs no
voiceprint (the loop knows its seat).  The loop's captions name a sure speaker
("> Ann: send north east south west"); ``heard_seat`` gives the session's log the
seat heard for each voice command.  Questions to the table are said through the
loop's public ``say``.  See ``docs/speakers.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from ...command import Command
from ...session import Reply
from ..base import Segment
from ..loop.ports import TableLoop
from . import seats as by_direction
from .direction import Bearing, Geometry, finder
from .enrolment import Clash, Placing, place
from .refusal import refuse, seat_name
from .seats import AskingRuling
from .speakers import (
    DEFAULT,
    UNKNOWN,
    Limits,
    Verdict,
    closest,
    identify,
    similarities,
    too_close,
)
from .voiceprints import Voiceprints

#: settings ``[listening] voices`` / ``--voices``
MODES = ("auto", "on", "off")
#: an enrollment line shorter than this (voiced seconds) is asked again
MIN_ENROLL_SECONDS = 0.7
#: a "no" to the enrollment question is short (a line to learn is longer)
MAX_NO_SECONDS = 0.9
_ENROL = re.compile(r"^\s*enrol{1,2}(?:\s+seat)?\s+(\d+)\s*$", re.IGNORECASE)

class Embeds(Protocol):
    def embed(self, pcm: bytes) -> np.ndarray: ...


class VoiceTurns:
    def __init__(self, loop: TableLoop, embedder: Embeds | None, prints: Voiceprints,
                 limits: Limits = DEFAULT, *, array: Geometry | None = None,
                 direction: by_direction.DirectionLimits = by_direction.DIRECTION) -> None:
        self.loop = loop
        self.embedder = embedder
        self.prints = prints
        self.limits = limits
        self.array = array
        self.direction = direction
        self._bearings: list[tuple[Segment, Bearing | None, int | None]] = []
        self.asking: int | None = None      # the seat asked to say its line
        self.queue: list[int] = []
        self._first_question = True
        self._replace = False               # an ``enrol N`` replaces the seat's lines
        self._heard: list[tuple[Segment, dict[int, float]]] = []
        self._routing: Segment | None = None
        self._told: set[tuple[str, frozenset[int], int]] = set()
        #: pairs of seats whose voices are too alike to tell apart (said once, at enrollment)
        self.alike: set[tuple[int, int]] = set()
        self.close_seats: set[tuple[int, int]] = set()
        #: the asked seat's last line that landed on another seat, and the pairs asked again
        self._clash: dict[int, Clash] = {}
        self.remapped: set[frozenset[int]] = set()
        # figures
        self.refused = 0
        self.strangers = 0
        self.embedded = 0
        loop.voices = self
        loop.captions = _NamingCaptions(loop.captions, self)
        loop.game_session.learns_voices = True   # the seats' screens offer "Learn my voice"
        if array is not None:                     # the table screen shows where each seat speaks from
            loop.game_session.seat_map = self.seat_map

    @classmethod
    def attach(cls, loop: TableLoop, mode: str, *, second_engine: str | None = None,
               warn: Callable[[str], None] | None = None,
               embedder: Embeds | None = None, array: Geometry | None = None) -> VoiceTurns | None:
        """Voice turns for ``loop`` under ``mode`` (``auto``: on when the speakers extra is
        installed and the second engine is not off, the light mode, or at a microphone
        array, whose directions cost little); None when off."""
        if mode == "off" or (mode == "auto" and second_engine == "off" and array is None):
            return None
        if embedder is None and not (array is not None and second_engine == "off"):
            from .speaker_embed import Embedder, EmbedderMissing

            try:
                embedder = Embedder()
            except EmbedderMissing as exc:
                if array is None:
                    if mode == "on" and warn is not None:
                        warn(f"{exc}; every voice may give every command")
                    return None
        session = loop.session
        log_path = getattr(session.log, "path", None)
        prints = Voiceprints(Voiceprints.beside(log_path), session.game_id)
        if prints.problem and warn is not None:
            warn(prints.problem)
        return cls(loop, embedder, prints, array=array)

    # -- names -------------------------------------------------------------------
    def _names(self) -> tuple[str, ...]:
        return tuple(getattr(self.loop.session.state, "names", ()) or ())

    def name(self, seat: int) -> str:
        return seat_name(self.loop.session, seat)

    def _line(self, key: str, **fields: Any) -> str:
        return str(self.loop.session.phrases.say(key, **fields))

    def _say(self, key: str, **fields: Any) -> None:
        self.loop.say([self._line(key, **fields)], remember=False)

    # -- enrollment --------------------------------------------------------------
    def begin(self) -> None:
        """At the start of a game: ask every seat not yet enrolled, by name, in turn
        (a resumed game asks only the ones missing; a table that said no is not asked)."""
        if self.prints.declined or self.loop.session.over:
            return
        phones = self.loop.phone_seats()   # a seat that talks through its phone needs no voiceprint
        self.queue = [s for s in range(1, len(self._names()) + 1)
                      if not self.prints.enrolled(s) and s not in phones]
        self._first_question = len(self.queue) == len(self._names())
        self._ask_next()

    def enrol(self, seat: int) -> None:
        """Ask ``seat`` to say its line now (``enrol N``, a phone's button)."""
        self.queue = [s for s in self.queue if s != seat]
        self.asking = seat
        self._replace = True
        self._say("voices-ask", name=self.name(seat))

    def _ask_next(self) -> None:
        if not self.queue:
            self.asking, self._replace = None, False
            return
        self.loop.say([self._next_question()], remember=False)

    def _next_question(self) -> str:
        self._replace = False
        self.asking = self.queue.pop(0)
        key = "voices-ask-first" if self._first_question else "voices-ask"
        self._first_question = False
        return self._line(key, name=self.name(self.asking))

    @property
    def enrolling(self) -> bool:
        """Whether a seat is asked to say its line (the next table utterance is it)."""
        return self.asking is not None

    def line(self, segment: Segment, answer: Command | None, sure: bool) -> list[str]:
        """Take ``segment`` as the asked seat's line (``answer``: it heard as yes/no/cancel/
        repeat, ``sure``: how surely); return the sentences to say."""
        seat = self.asking
        if seat is None:
            return []
        voiced = segment.end - segment.start
        if answer is not None and answer.intent in ("no", "cancel") and (sure or voiced <= MAX_NO_SECONDS):
            self.asking, self.queue = None, []
            self._save(self.prints.decline)
            return [self._line("voices-declined")]
        if voiced < MIN_ENROLL_SECONDS:
            return [self._line("voices-again", name=self.name(seat))]
        embedding = self._embed(segment)
        bearing = self.bearing(segment)
        if bearing is not None and bearing.clarity < self.direction.min_clarity:
            bearing = None
        if embedding is None and bearing is None and self.array is None:
            self.asking, self.queue = None, []
            return [self._line("voices-unavailable")]
        where = None if bearing is None else bearing.degrees
        placed = place(at_array=self.array is not None, bearing=where, voice_of=self._voice_of(embedding, seat),
                       others={s: b for s, b in self.prints.bearings.items() if s != seat},
                       clash=self._clash.get(seat), remapped=self.remapped, asked=seat, limits=self.direction)
        if placed.kind is Placing.AGAIN:    # no sure direction in this line: say it again
            return [self._line("voices-again", name=self.name(seat))]
        if placed.kind in (Placing.OTHER, Placing.NEAR):
            assert placed.clash is not None and placed.other is not None
            self._clash[seat] = placed.clash
            key = "voices-other-seat" if placed.kind is Placing.OTHER else "voices-near-seat"
            return [self._line(key, name=self.name(seat), other=self.name(placed.other))]
        self._clash.pop(seat, None)
        replace = self._replace
        self._save(lambda: self.prints.add(seat, embedding, replace=replace, bearing=where))
        said = [self._line("voices-thanks", name=self.name(seat))]
        if placed.kind is Placing.REMAP:     # twice from one seat's place: that seat's line is in doubt
            other = placed.other
            assert other is not None
            self.remapped.add(frozenset({seat, other}))
            self._save(lambda: self.prints.forget(other))
            self.queue = [other, *(s for s in self.queue if s != other)]
            said.append(self._line("voices-remap", name=self.name(other)))
        said += self._alike_now(seat)
        if placed.kind is Placing.CLOSE:
            said += self._close_now(seat)
        if self.queue:
            said.append(self._next_question())
        else:
            self.asking, self._replace = None, False
            if not replace:
                said.append(self._line("voices-done"))
        return said

    def _voice_of(self, embedding: np.ndarray | None, asked: int) -> int | None:
        """Without an array: the other enrolled seat whose voice ``embedding`` surely is (at
        least as alike as two voices the table's microphone cannot tell apart), or None."""
        if embedding is None or self.array is not None:
            return None
        scores = similarities(embedding, {s: v for s, v in self.prints.seats.items() if s != asked})
        verdict = identify(scores, self.limits) if scores else UNKNOWN
        if verdict.sure and verdict.seat is not None and verdict.similarity >= self.limits.too_close:
            return verdict.seat
        return None

    def _save(self, write: Callable[[], None]) -> None:
        try:
            write()
        except OSError as exc:   # the voices stay in memory; the game goes on
            self.loop.warn(f"cannot keep the enrolled voices: {exc.strerror or exc}")

    def _alike_now(self, seat: int) -> list[str]:
        """Say once, by name, that ``seat``'s voice cannot be told from another's, and offer the
        phones when the table has them."""
        said = []
        for a, b, _ in too_close(self.prints.seats, self.limits):
            if seat in (a, b) and (a, b) not in self.alike:
                self.alike.add((a, b))
                key = "voices-too-close-phones" if self.loop.phones_serve() else "voices-too-close"
                said.append(self._line(key, first=self.name(a), second=self.name(b)))
        return said

    def _close_now(self, seat: int) -> list[str]:
        """Say once, by name, that ``seat`` sits closer to another than the array separates
        (after both were asked again: ``enrolment.place``), so the referee will ask which spoke."""
        said = []
        for a, b, _ in by_direction.too_close(self.prints.bearings, self.direction):
            if seat in (a, b) and (a, b) not in self.close_seats:
                self.close_seats.add((a, b))
                said.append(self._line("voices-seats-close", first=self.name(a), second=self.name(b)))
        return said

    def seat_map(self) -> tuple[tuple[int, str, int | None], ...]:
        """Where each seat speaks from at the array, for the table screen: (seat, name, bearing
        in whole degrees, or None while the seat has no place yet)."""
        return tuple((seat, self.name(seat), None if (b := self.prints.bearings.get(seat)) is None
                      else round(b) % 360) for seat in range(1, len(self._names()) + 1))

    def typed(self, text: str) -> bool:
        """``enrol N`` (also ``enroll seat N``): ask seat N to speak to the table's microphone."""
        m = _ENROL.match(text)
        if m is None:
            return False
        seat = int(m.group(1))
        if not 1 <= seat <= len(self._names()):
            self._say("voices-no-seat", seat=seat)
            return True
        if self.prints.declined:
            self.prints.declined = False
        self.enrol(seat)
        return True

    # -- hearing -----------------------------------------------------------------
    def _embed(self, segment: Segment) -> np.ndarray | None:
        if self.embedder is None:
            return None
        try:
            self.embedded += 1
            vector = np.asarray(self.embedder.embed(segment.pcm), dtype=np.float64)
        except Exception:  # noqa: BLE001 -- an embedder failing on one utterance: unsure, no traceback
            return None
        # a vector with no direction (NaN, infinite, all zeros) says nothing of the voice, and
        # kept as a seat's line it would spoil the seat's voiceprint: as if the embedder failed
        if vector.ndim != 1 or not np.all(np.isfinite(vector)) or not np.any(vector):
            return None
        return vector

    def bearing(self, segment: Segment | None) -> Bearing | None:
        """Where ``segment`` came from at the array (None: no array, no raw channels, silence)."""
        if segment is None or self.array is None or not segment.raw:
            return None
        for seen, bearing, _ in self._bearings:
            if seen is segment:
                return bearing
        count = len(self.array.channels)
        if segment.microphones != count:
            return None
        samples = np.frombuffer(segment.raw[: len(segment.raw) // (2 * count) * 2 * count], dtype="<i2")
        return finder(self.array).bearing(samples.reshape(-1, count).T)

    def seat_by_direction(self, segment: Segment | None) -> int | None:
        """The seat ``segment`` surely came from by its bearing (None: unsure, or no array).
        A sure utterance moves that seat's bearing a little toward it (a player leans);
        once an utterance, whatever asks."""
        if segment is None or self.array is None or not self.prints.bearings or self.prints.declined:
            return None
        for seen, _, seat in self._bearings:
            if seen is segment:
                return seat
        bearing = self.bearing(segment)
        seat = by_direction.seat_of(bearing, self.prints.bearings, self.direction)
        self._bearings = [(segment, bearing, seat), *self._bearings[:7]]
        if seat is not None and bearing is not None:
            old = self.prints.bearings[seat]
            new = by_direction.adapted(old, bearing, self.direction)
            self.prints.bearings[seat] = new
            if abs(new - old) >= 1.0:
                self._save(lambda: self.prints.move(seat, new))
        return seat

    def scores(self, segment: Segment | None) -> dict[int, float]:
        """``segment``'s similarity to each enrolled seat (cached per utterance; empty when
        nothing is enrolled, voices were declined, or the embedder failed)."""
        if segment is None or not self.prints.seats or self.prints.declined or self.embedder is None:
            return {}
        for seen, scores in self._heard:
            if seen is segment:
                return scores
        embedding = self._embed(segment)
        scores = {} if embedding is None else similarities(embedding, self.prints.seats)
        self._heard = [(segment, scores), *self._heard[:7]]
        return scores

    def verdict(self, segment: Segment | None) -> Verdict:
        """Who said ``segment``: a sure seat (by direction first, then voice), unsure, or a
        stranger (a voice no seat has)."""
        scores = self.scores(segment)
        voice = identify(scores, self.limits) if scores else UNKNOWN
        seat = self.seat_by_direction(segment)
        if seat is not None and voice.kind != "stranger":
            return Verdict("seat", seat, scores.get(seat, 0.0))
        return voice

    def ruling(self, command: Command, segment: Segment | None) -> AskingRuling:
        """What the voice in ``segment`` makes of ``command`` (nothing is said or logged):
        take it, chatter (a stranger), refuse it (another seat's command), or at an array
        whose direction is unsure, ask its one owner by name (``seats.combined_rule``)."""
        scores = self.scores(segment)
        seat = self.seat_by_direction(segment)
        session = self.loop.session
        acting = session.referee.acting_seats(session.state, command)
        # alike seats are ruled as any others: the right seat was refused in none of the
        # speaker benchmark's rows, similar pairs included, so a refusal is still worth having
        return by_direction.combined_rule(seat, scores, acting, self.prints.bearings, self.limits)

    def from_seat(self, seat: int, segment: Segment | None) -> bool:
        """Whether an answer heard in ``segment`` came from ``seat``'s place at the array (the
        seat asked "Ann, was that you?": ``seats.answer_from``)."""
        return by_direction.answer_from(self.bearing(segment), seat, self.prints.bearings, self.direction)

    def refusal(self, command: Command, segment: Segment | None) -> Reply | None:
        """Refuse a role's command said in another seat's voice: logged, and the words to
        say; None when it was said once already and the game has not moved since (then
        it is chatter).  A stranger's voice is counted here too (None)."""
        session = self.loop.session
        acting = session.referee.acting_seats(session.state, command)
        scores = self.scores(segment)
        if identify(scores, self.limits).kind == "stranger" or acting is None:
            self.strangers += 1
            return None
        if (command.intent, acting, session.log.next_seq) in self._told:
            return None
        self.refused += 1
        seat = self.seat_by_direction(segment)
        heard = seat if seat is not None else (closest(scores, frozenset(scores) - acting) or 0)
        self._routing = segment
        try:
            reply = refuse(session, command, acting, heard, "another seat's voice")
        finally:
            self._routing = None
        # the game has not moved while the log's next number is the one after this refusal
        self._told.add((command.intent, acting, session.log.next_seq))
        return reply

    def heard_seat(self, segment: Segment | None) -> tuple[bool, int | None]:
        """For the session's log: (a voice command, the sure seat heard or None)."""
        segment = segment or self._routing
        if segment is None:
            return False, None
        verdict = self.verdict(segment)
        return True, verdict.seat if verdict.sure else None


class _NamingCaptions:
    """The loop's captions with a sure speaker's name before what was heard."""

    def __init__(self, inner: Any, turns: VoiceTurns) -> None:
        self.inner = inner
        self.turns = turns

    def said(self, text: str) -> None:
        self.inner.said(text)

    def heard(self, text: str) -> None:
        turns = self.turns
        verdict = turns.verdict(turns.loop.current) if turns.asking is None else UNKNOWN
        self.inner.heard(f"{turns.name(verdict.seat)}: {text}" if verdict.sure and verdict.seat else text)
