"""The listen loop: utterances in from every microphone, commands confirmed and applied.

An explicit state machine that only routes: each utterance passes the stages in
turn, and each stage hands the next a value::

    admit (half duplex, gating)  ->  who spoke (a phone's seat, a voiceprint)
      ->  hear (``Ears``: decode, and with two engines a fast first hearing)
      ->  decide (``policy``: chatter, answer, ask, hold, apply)  ->  act (speak, apply)

    DORMANT ──wake phrase / push-to-talk──> LISTENING
    LISTENING ──asked command──> CONFIRMING ──yes──> (applied) LISTENING
                                    └──no / cancel / timeout──> LISTENING
    LISTENING ──sure, undoable command──> HOLDING ──window closes / yes──> (applied)
                                             └──no / cancel / undo that──> LISTENING
    LISTENING ──"stop listening"──> PAUSED ──"start listening"──> LISTENING
    any ──while the assistant talks──> SPEAKING ──> back
    any ──game over / quit confirmed──> DONE

Every microphone gives the same ``Segment`` with its source named: the table's
(endpointed frames), a second push-to-talk microphone, or a seat's phone (its
press gave the edges; ``phone_utterance``).  A phone's utterance is addressed,
its seat is certain, and its press stops the assistant (``phone_press``).

With two engines, an undoable command the fast engine heard is echoed at once
and the second engine's verdict is computed meanwhile (``verify.py``); nothing
is applied before the verdict, which keeps, asks or withdraws the echo
(``policy.after_verify``).  Time, half duplex and what is logged: see
``clock.py``, ``half_duplex.py`` and the project's voice-loop notes.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from ... import unapplied
from ...meaning import warm
from ...session import Session
from ..base import (
    AudioSource,
    Frame,
    RecognitionGrammar,
    Recognizer,
    Segment,
    Speaker,
    VoiceSettings,
)
from .answer_window import waits
from .applying import Applying
from .captions import Captions, NoCaptions, StreamCaptions
from .clock import LoopClock
from .conversation import Conversation
from .core import (
    _COUNTS,
    ASIDES,
    CONFIRM_INTENTS,
    PAUSED_INTENTS,
    Discarded,
    LoopState,
    Tick,
)
from .ears import Ears
from .gate import Gate
from .grammars import GrammarBuilder
from .hints import Hints
from .pending import Pendings
from .ports import PhoneHeard, VoiceRuling
from .routing import Routing
from .settings import LoopSettings
from .speaking import Speaking
from .understanding import Understanding

__all__ = ["ASIDES", "CONFIRM_INTENTS", "Captions", "Discarded", "ListenLoop", "LoopSettings", "LoopState",
           "StreamCaptions", "Tick"]


#: what ``end_input`` queues
_END = "\0end"


@dataclass(frozen=True)
class _Tapped:
    """Yes or No tapped on a seat's phone (``seat_answer``)."""

    seat: int
    answer: str


class ListenLoop(Routing, Conversation, Applying):
    """One table's listen loop around a ``Session``."""

    def __init__(self, session: Session, recognizer: Recognizer, speaker: Speaker,
                 voice: VoiceSettings | None = None, captions: Captions | None = None,
                 settings: LoopSettings | None = None, *,
                 wall_clock: Callable[[], float] | None = None,
                 grammar_builder: GrammarBuilder | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        self.session = session
        self.recognizer = recognizer
        self.voice = voice or VoiceSettings()
        self.settings = settings or LoopSettings()
        self.warn: Callable[[str], None] = warn or (lambda message: None)
        self.clock = LoopClock(wall_clock)
        self.speaking = Speaking(speaker, captions or NoCaptions(), self.clock, self.voice,
                                 self.settings.earcon_seconds, self.warn)
        self.ears = Ears(session, recognizer, grammar_builder)
        self.understanding = Understanding(session, self.ears.command, self.ears.acceptable,
                                           self.ears.words_after_wake, self.now)
        self.gate = Gate(self.settings)
        self.hints = Hints(self.settings.hint_after_failures)
        self.state = LoopState.DORMANT if self.gated else LoopState.LISTENING
        #: the pending command's one owner (its question or echo, seat, deadline, verdict)
        self.pendings = Pendings(keep=unapplied.keeper(session, lambda command: self._said_form(command)))
        #: while a command is applied: the utterance it was heard in (None: typed)
        self.applying_from: Segment | None = None
        self.discarded: list[Discarded] = []
        self.heard_segments = 0
        self.current: Segment | None = None   # the utterance being heard now
        self.voices: VoiceRuling | None = None   # who is speaking (speech/voices/voice_turns.py)
        #: a phone's utterance answered (voice play shows it on that phone)
        self.on_phone: PhoneHeard | None = None
        #: the seats holding a phone on the screens now (none without screens), and whether
        #: the screens serve phones at all (set by the screens when they attach)
        self.phone_seats: Callable[[], frozenset[int]] = frozenset
        self.phones_serve: Callable[[], bool] = lambda: False
        self._unanswered: tuple[str, float] | None = None   # met with silence, and when
        self._released: tuple[str, float] | None = None     # a held command applied as its window closed
        self._heard_text: str | None = None
        self.free_heard: tuple[str, ...] = ()
        self.verdicts: list[tuple[Segment, float, float | None, float | None]] = []
        self._inbox: queue.SimpleQueue[str | Segment | _Tapped] = queue.SimpleQueue()
        #: a phone's or the second microphone's button down since: "phone:N" or "ptt" -> loop time
        self._pressed: dict[str, float] = {}
        self._held_spans: list[tuple[float, float]] = []     # recent held utterances (press, release)
        #: the endpointer cutting the table's stream (``run_audio``): an open utterance holds a
        #: question's window open (``answer_window.waits``)
        self._listening: _Endpointer | None = None
        for name in _COUNTS:   # figures for the docs, the game night and the session benchmark
            setattr(self, name, 0)
        #: the game's own session (behind the screens' shared one, when there is one)
        self.game_session: Any = getattr(session, "_session", session)
        if hasattr(self.game_session, "heard"):
            self.game_session.heard = self._heard_seat

    # -- what the loop is made of, as its callers see it --------------------------------
    @property
    def speaker(self) -> Speaker:
        return self.speaking.speaker

    @property
    def failures(self) -> int:
        return self.hints.failures

    @property
    def quiet_from(self) -> float:
        """Loop time when the assistant's last sound and its deaf window end."""
        return self.clock.quiet_from

    # -- inputs from other threads --------------------------------------------------------
    def press(self, t: float | None = None) -> None:
        """Push-to-talk pressed (a key, a button)."""
        self.gate.press(self.now() if t is None else t)

    def release(self, t: float | None = None) -> None:
        """Push-to-talk released: a command may still start within the armed window (a tap),
        unless the line said while the button was held was already heard."""
        self.gate.release(self.now() if t is None else t)

    def submit_text(self, line: str) -> None:
        """A typed line (the non-voice equivalent); run at the next tick, unconfirmed."""
        self._inbox.put(line)

    def end_input(self) -> None:
        """The input ended (stdin closed, at a table whose only microphones are phones):
        the loop stops at its next tick, the game resumable."""
        self._inbox.put(_END)

    def submit_segment(self, segment: Segment) -> None:
        """An utterance from another microphone (a phone); heard at the next tick."""
        self._inbox.put(segment)

    def phone_press(self, seat: int, at: float | None = None) -> None:
        """A seat's talk button pressed: the assistant stops talking (barge-in), and the
        table's microphone leaves what it hears meanwhile to the phone."""
        self._pressed[f"phone:{seat}"] = self.now() if at is None else at
        self.speaking.stop()

    def phone_utterance(self, seat: int, pcm: bytes, end: float | None = None) -> None:
        """A seat's phone heard ``pcm`` between its press and its release (16 kHz int16),
        the release at ``end`` (loop time; None: now)."""
        self._held_utterance(f"phone:{seat}", pcm, end, "phone", seat)

    def seat_answer(self, seat: int, yes: bool) -> None:
        """Seat ``seat`` tapped Yes or No on its phone (thread-safe; taken at the next
        tick): the open question it spoke is answered as if that phone had said it."""
        self._inbox.put(_Tapped(seat, "yes" if yes else "no"))

    def asking_seat(self) -> int | None:
        """The seat whose phone spoke the command the open question asks about, or the seat
        it asks by name ("Ann, was that you?"); None: no question is open, or it was not
        spoken from a phone nor asked by name."""
        pending = self.pendings.current
        if self.state is not LoopState.CONFIRMING or pending is None:
            return None
        return pending.seat   # the phone that spoke it, or the seat asked by name

    def _tapped(self, tap: _Tapped) -> None:
        """A tapped answer, taken only while the question it answers is still open."""
        pending = self.pendings.current
        if self.asking_seat() != tap.seat or pending is None or pending.segment is None:
            return
        command = self.ears.answer(tap.answer, CONFIRM_INTENTS)
        if command is None:
            return
        self._heard_text = tap.answer
        self.speaking.collect()
        try:
            self._answered(pending, command, tap.answer, pending.segment)
        finally:
            said = self.speaking.collected_since()
            if self.on_phone is not None:
                self.on_phone(tap.seat, tap.answer, said)

    def held_press(self, at: float | None = None) -> None:
        """The push-to-talk button of a second microphone (``devices.ptt_input``) went down."""
        self._pressed["ptt"] = self.now() if at is None else at
        self.press(at)

    def held_utterance(self, pcm: bytes, end: float | None = None) -> None:
        """What the second microphone heard while its button was held (16 kHz int16)."""
        self._held_utterance("ptt", pcm, end, "ptt", None)
        self.release(end)

    def _held_utterance(self, key: str, pcm: bytes, end: float | None, source: str, seat: int | None) -> None:
        end = self.now() if end is None else end
        start = max(0.0, end - len(pcm) / 32_000)
        pressed = min(start, self._pressed.pop(key, start))
        self._held_spans = [(pressed, end), *self._held_spans[:15]]
        self.submit_segment(Segment(pcm, start, end, start, source, seat))

    def _on_a_phone(self, segment: Segment) -> bool:
        """Whether a table utterance overlaps a press of a phone or of the second microphone
        (that microphone has it, heard closer)."""
        spans = self._held_spans + [(at, float("inf")) for at in self._pressed.values()]
        return any(segment.start < end and segment.end > start for start, end in spans)

    # -- time -----------------------------------------------------------------------------
    def tick(self, t: float) -> None:
        """The stream has reached ``t``: a verdict in, a due timeout, queued lines and phones."""
        self._timers(t)
        while self.state is not LoopState.DONE:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, Segment):
                self.hear(item)
            elif isinstance(item, _Tapped):
                self._tapped(item)
            elif item is _END:
                self.finish()
                self.state = LoopState.DONE
            else:
                self._typed_line(item)

    def _timers(self, t: float) -> None:
        self.clock.reached(t)
        self._verdict_if_ready()
        self._deadline_if_due()

    def _deadline_if_due(self) -> None:
        pending = self.pendings.current
        if pending is None or pending.deadline is None or self.now() <= pending.deadline:
            return
        # in stream time the window closed (or the answer "came") at the deadline
        at = None if self.clock.wall else pending.deadline
        if self.state is LoopState.CONFIRMING and self._listening is not None and waits(
                deadline=pending.deadline, now=self.now(), speech_since=self._listening.speech_since,
                longest=self._listening.max_seconds):
            return   # an answer said inside the window is still coming in: it is heard first
        if self.state is LoopState.CONFIRMING:
            with self.speaking.aside() as said:
                self._timeout(at=at)
            self._tell_owner(pending, said)
        elif self.state is LoopState.HOLDING and pending.verification is None:
            self._release_hold(at=at)

    # -- running --------------------------------------------------------------------------
    def run(self, items: Iterable[Segment | Tick]) -> LoopState:
        """Hear every segment (ticks advance time) until the game ends or the input does."""
        self.start()
        for item in items:
            if isinstance(item, Tick):
                self.tick(item.t)
            else:
                self.hear(item)
            if self.state is LoopState.DONE:
                break
        self.finish()
        return self.state

    def run_audio(self, source: AudioSource, endpointer: _Endpointer) -> LoopState:
        """Run on live frames: every frame ticks the clock, the endpointer cuts utterances."""
        def tapped() -> Iterator[Frame]:
            for frame in source.frames():
                self.tick(frame.t)
                if self.state is LoopState.DONE:
                    return
                yield frame

        self._listening = endpointer if hasattr(endpointer, "speech_since") else None
        try:
            return self.run(endpointer.segments(tapped()))
        finally:
            self._listening = None
            source.close()

    def continue_from(self, previous: ListenLoop) -> None:
        """Take over the stream of a loop that ended (the lobby hands over to a game and
        back): its time, its deaf windows after speech, and what it said last."""
        self.clock.continue_from(previous.clock)
        self.speaking.last_said = list(previous.last_said)

    def say(self, sentences: list[str], *, remember: bool = True) -> None:
        """Say sentences that came from elsewhere (the opening of the game, voice turns)."""
        if sentences:
            self._speak(list(sentences), remember=remember)

    announce = say

    def start(self) -> None:
        if self.session.over:
            self.state = LoopState.DONE
            return
        if self.ears.transcribes:   # the light mode has no free words: meaning waits for a typed line
            warm(self.understanding.meaning)
        self._earcon("listening")

    def finish(self) -> None:
        """The input ended: a question still open times out (nothing was answered); an echo's
        window closes (its verdict first)."""
        self._settle_verdict()
        if self.state is LoopState.CONFIRMING:
            self._timeout(final=True)
        elif self.state is LoopState.HOLDING:
            self._release_hold()


    # -- recognition -----------------------------------------------------------------------
    def wake_phrases(self) -> tuple[str, ...]:
        """The wake phrases: ``[lists.wake]`` in grammars/common.toml."""
        return self.ears.wake_phrases()

    def next_grammar(self, *, for_completion: bool = False) -> RecognitionGrammar | None:
        """The grammar the next table utterance will be decoded with (None: it will not be
        decoded).  ``for_completion``: the wake phrase alone is not a whole utterance
        (the command may follow in the same breath)."""
        if self.state is LoopState.DONE:
            return None
        if self.state is LoopState.CONFIRMING:
            return self.recognition_grammar(self.question_intents())
        if self.state is LoopState.PAUSED:
            return self.recognition_grammar(PAUSED_INTENTS)
        if self.gate.waiting_for_press:
            return None
        return self.listening_grammar(None, bare_wake=not for_completion)

    def complete(self, pcm: bytes) -> bool:
        """Whether ``pcm`` already holds a whole phrase of the next grammar, so the
        endpointer may end the utterance after a short pause (lower latency)."""
        return self.ears.complete(pcm, self.next_grammar(for_completion=True))





class _Endpointer(Protocol):
    #: when the utterance held open now began (None: none is open)
    speech_since: float | None
    #: the longest an utterance runs (seconds)
    max_seconds: float

    def segments(self, frames: Iterable[Frame]) -> Iterator[Segment]: ...
