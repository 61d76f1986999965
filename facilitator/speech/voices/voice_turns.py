"""Voice turns: the listen loop learns each seat's voice and holds a role's command to it.

``VoiceTurns.attach(loop, ...)`` hooks into three places of ``ListenLoop``:

* ``enrolling(segment)``: while a seat is asked "Ann, say: I'm ready to play",
  the next utterance is that seat's enrollment (or the table's "no": voices off);
* ``stops(command)``: where a heard command is routed.  The utterance's
  similarity to each enrolled voice gives a verdict (``speakers.identify``) and
  the referee's ``acting_seats`` who may give the command now
  (``speakers.rule``): a stranger's voice is chatter, a sure match to another
  seat is refused once ("That is Cat's guess to send", a ``command-rejected``),
  an unsure one is taken as without voices;
* ``typed(text)``: ``enrol N`` (typed, or a phone's button) asks seat N to speak.

Typed and clicked commands are never checked.  The loop's captions name a
sure speaker ("> Ann: send north east south west"), and the session logs the
seat heard for each voice command (``heard``: a seat, or null when unsure) on
the first event of its batch.  See ``docs/speakers.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ...command import Command
from ..base import Segment
from .speakers import DEFAULT, UNKNOWN, Limits, Verdict, closest, identify, rule, similarities
from .voiceprints import Voiceprints

if TYPE_CHECKING:
    from ..loop.listen import ListenLoop

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
    def __init__(self, loop: ListenLoop, embedder: Embeds, prints: Voiceprints,
                 limits: Limits = DEFAULT) -> None:
        self.loop = loop
        self.embedder = embedder
        self.prints = prints
        self.limits = limits
        self.asking: int | None = None      # the seat asked to say its line
        self.queue: list[int] = []
        self._first_question = True
        self._replace = False               # an ``enrol N`` replaces the seat's lines
        self._heard: list[tuple[Segment, dict[int, float]]] = []
        self._routing: Segment | None = None
        self._told: set[tuple[str, frozenset[int], int]] = set()
        # figures
        self.refused = 0
        self.strangers = 0
        self.embedded = 0
        loop.voices = self
        loop.captions = _NamingCaptions(loop.captions, self)
        # the game's own session (behind the screens' shared one, when there is one) logs it
        getattr(loop.session, "_session", loop.session).heard = self._heard_seat

    @classmethod
    def attach(cls, loop: ListenLoop, mode: str, *, second_engine: str | None = None,
               warn: Callable[[str], None] | None = None,
               embedder: Embeds | None = None) -> VoiceTurns | None:
        """Voice turns for ``loop`` under ``mode`` (``auto``: on when the speakers extra is
        installed and the second engine is not off, the light mode); None when off."""
        if mode == "off" or (mode == "auto" and second_engine == "off"):
            return None
        if embedder is None:
            from .speaker_embed import Embedder, EmbedderMissing

            try:
                embedder = Embedder()
            except EmbedderMissing as exc:
                if mode == "on" and warn is not None:
                    warn(f"{exc}; every voice may give every command")
                return None
        session = loop.session
        log_path = getattr(session.log, "path", None)
        prints = Voiceprints(Voiceprints.beside(log_path), session.game_id)
        if prints.problem and warn is not None:
            warn(prints.problem)
        return cls(loop, embedder, prints)

    # -- names -------------------------------------------------------------------
    def _names(self) -> tuple[str, ...]:
        return tuple(getattr(self.loop.session.state, "names", ()) or ())

    def name(self, seat: int) -> str:
        names = self._names()
        return names[seat - 1] if 0 < seat <= len(names) else self.loop.session.phrases.say("seat-name", seat=seat)

    def _say(self, key: str, **fields: Any) -> None:
        self.loop._speak([self.loop.session.phrases.say(key, **fields)], remember=False)

    # -- enrollment --------------------------------------------------------------
    def begin(self) -> None:
        """At the start of a game: ask every seat not yet enrolled, by name, in turn
        (a resumed game asks only the ones missing; a table that said no is not asked)."""
        if self.prints.declined or self.loop.session.over:
            return
        self.queue = [s for s in range(1, len(self._names()) + 1) if not self.prints.enrolled(s)]
        self._first_question = len(self.queue) == len(self._names())
        self._ask_next()

    def enrol(self, seat: int) -> None:
        """Ask ``seat`` to say its line now (``enrol N``, a phone's button)."""
        self.queue = [s for s in self.queue if s != seat]
        self.asking = seat
        self._replace = True
        self._say("voices-ask", name=self.name(seat))

    def _ask_next(self) -> None:
        self._replace = False
        if not self.queue:
            self.asking = None
            return
        self.asking = self.queue.pop(0)
        key = "voices-ask-first" if self._first_question else "voices-ask"
        self._first_question = False
        self._say(key, name=self.name(self.asking))

    def enrolling(self, segment: Segment) -> bool:
        """Take ``segment`` as the asked seat's line; False when no seat is asked."""
        from ..loop.listen import CONFIRM_INTENTS, LoopState

        seat = self.asking
        if seat is None or self.loop.state not in (LoopState.LISTENING, LoopState.DORMANT):
            return False
        voiced = segment.end - segment.start
        hyp = self.loop._decode(segment, CONFIRM_INTENTS)
        answer = self.loop.session.grammar.parse(hyp.text, intents=CONFIRM_INTENTS, typed=False) \
            if hyp is not None and hyp.text.strip() else None
        if isinstance(answer, Command) and answer.intent in ("no", "cancel") \
                and (hyp is not None and hyp.sure or voiced <= MAX_NO_SECONDS):
            self.loop.captions.heard(hyp.text if hyp is not None else "no")
            self.asking, self.queue = None, []
            self._save(self.prints.decline)
            self._say("voices-declined")
            return True
        if voiced < MIN_ENROLL_SECONDS:
            self._say("voices-again", name=self.name(seat))
            return True
        embedding = self._embed(segment)
        if embedding is None:
            self.asking, self.queue = None, []
            self._say("voices-unavailable")
            return True
        replace = self._replace
        self._save(lambda: self.prints.add(seat, embedding, replace=replace))
        self._say("voices-thanks", name=self.name(seat))
        if self.queue:
            self._ask_next()
        else:
            self.asking, self._replace = None, False
            if not replace:
                self._say("voices-done")
        return True

    def _save(self, write: Callable[[], None]) -> None:
        try:
            write()
        except OSError as exc:   # the voices stay in memory; the game goes on
            self.loop._warn(f"cannot keep the enrolled voices: {exc.strerror or exc}")

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
        try:
            self.embedded += 1
            return self.embedder.embed(segment.pcm)
        except Exception:  # noqa: BLE001 -- an embedder failing on one utterance: unsure, no traceback
            return None

    def scores(self, segment: Segment | None) -> dict[int, float]:
        """``segment``'s similarity to each enrolled seat (cached per utterance; empty when
        nothing is enrolled, voices were declined, or the embedder failed)."""
        if segment is None or not self.prints.seats or self.prints.declined:
            return {}
        for seen, scores in self._heard:
            if seen is segment:
                return scores
        embedding = self._embed(segment)
        scores = {} if embedding is None else similarities(embedding, self.prints.seats)
        self._heard = [(segment, scores), *self._heard[:7]]
        return scores

    def verdict(self, segment: Segment | None) -> Verdict:
        """Who said ``segment``: a sure seat, unsure, or a stranger."""
        scores = self.scores(segment)
        return identify(scores, self.limits) if scores else UNKNOWN

    def stops(self, command: Command) -> bool:
        """Whether a heard ``command`` stops here: a stranger's (chatter, silence) or a
        role's command in another enrolled seat's sure voice (refused once, logged)."""
        loop = self.loop
        segment = loop.current
        scores = self.scores(segment)
        if not scores:
            return False
        referee, state = loop.session.referee, loop.session.state
        acting = referee.acting_seats(state, command)
        ruling = rule(scores, acting, self.limits)
        if ruling == "take":
            return False
        if ruling == "chatter":
            self.strangers += 1
            loop._chatter()
            return True
        assert acting is not None
        if (command.intent, acting, loop.session.log.next_seq) in self._told:
            loop._chatter()     # said once already: the game has not moved since
            return True
        self.refused += 1
        if len(acting) == 1:
            owner = next(iter(acting))
            key = "speaker-not-yours-" + command.intent.replace(" ", "-")
            if key not in loop.session.phrases:
                key = "speaker-not-yours"
            fields = {"name": self.name(owner)}
        else:
            heard = closest(scores, frozenset(scores) - acting) or 0
            key, fields = "speaker-spectator", {"name": self.name(heard)}
        self._routing = segment
        try:
            reply = loop.session.reject(command.text, key, "another seat's voice", command, **fields)
        finally:
            self._routing = None
        self._told.add((command.intent, acting, loop.session.log.next_seq))
        loop._earcon("not-understood")
        loop._speak_reply(reply, remember=False)
        loop._after_command()
        return True

    def _heard_seat(self) -> tuple[bool, int | None]:
        """For the session's log: (a voice command, the sure seat heard or None)."""
        segment = self.loop.applying_from or self._routing
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
