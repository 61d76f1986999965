"""The listen loop: utterances in, commands confirmed and applied, sentences spoken.

An explicit state machine behind the small interfaces of ``speech/base.py``::

    DORMANT ──wake phrase / push-to-talk──> LISTENING
    LISTENING ──asked command──> CONFIRMING ──yes──> (applied) LISTENING
                                    └──no / cancel / timeout──> LISTENING
    LISTENING ──sure, undoable command──> HOLDING ──window closes / yes──> (applied)
                                             └──no / cancel / undo that──> LISTENING
    LISTENING ──"stop listening"──> PAUSED ──"start listening"──> LISTENING
    any ──while the assistant talks──> SPEAKING ──> back
    any ──game over / quit confirmed──> DONE

Time is *stream time* (seconds into the audio) for a file, and wall-clock time
mapped onto the stream for a microphone (``wall_clock=time.monotonic``).  Half
duplex: a segment that overlaps the assistant's speech or the deaf window after
it (``VoiceSettings.deaf_after_speech_seconds``) is discarded unheard.

Half duplex trims the assistant's own sound off the front of a quick reply
instead of dropping it.  How a command is confirmed depends on how sure the
recognizer is and on the grammar's ``confirm`` marking (``_route``); chatter
(not understood, or an aside heard unsure, and not addressed to the referee)
gets silence.  What is logged (see the project's voice-loop notes): words
addressed to the referee that do not parse are a ``command-rejected`` (reason
``not understood``), exactly as a typed line would be; chatter, silence or
noise with no words, gated or half-duplex segments, answers to a question and
cancelled or undone commands log nothing.
"""

from __future__ import annotations

import queue
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from ...command import Command, NotRecognized, RuntimeLists
from ...errors import FacilitatorError, IllegalCommandError
from ...session import CONFIRMATIONS, CONTROLS, LOBBY, Reply, Session
from ..base import (
    AudioSource,
    Frame,
    Hypothesis,
    RecognitionGrammar,
    Recognizer,
    Segment,
    Speaker,
    VoiceSettings,
)
from ..engines.grammar_build import split_wake
from .captions import Captions, NoCaptions, StreamCaptions
from .grammars import GrammarBuilder, LoopGrammars
from .half_duplex import admit
from .policy import Hearing, HoldTake, Take, addressed, during_hold, late_repeat, take
from .settings import LoopSettings
from .voice_controls import step

if TYPE_CHECKING:
    from ..voices.voice_turns import VoiceTurns

__all__ = ["CONFIRM_INTENTS", "Captions", "Discarded", "ListenLoop", "LoopSettings", "LoopState",
           "StreamCaptions", "Tick"]

#: the answers to "... Is that right?"
CONFIRM_INTENTS = frozenset({"yes", "no", "cancel", "repeat"})
#: answered while a question is open, which stays open (the game's queries too)
QUESTION_ASIDES = frozenset({"repeat", "help", "go on"})
#: what takes back (or applies at once) an implicitly echoed command in its window
HOLD_ANSWERS = frozenset({"yes", "no", "cancel", "repeat"})
#: answers aloud without changing the game (with CONTROLS and the game's queries)
ASIDES = frozenset({"repeat", "help", "go on", "status", "read rules"})
PAUSED_INTENTS = frozenset({"start listening"})


class LoopState(str, Enum):
    DORMANT = "dormant"        # gated: waiting for the wake phrase or push-to-talk
    LISTENING = "listening"
    CONFIRMING = "confirming"  # "... Is that right?" is open
    HOLDING = "holding"        # an implicitly echoed command waits out its undo window
    SPEAKING = "speaking"
    PAUSED = "paused"
    DONE = "done"


@dataclass(frozen=True)
class Tick:
    """The stream reached ``t`` seconds with no utterance ending (drives timeouts)."""

    t: float


@dataclass(frozen=True)
class Discarded:
    segment: Segment
    reason: str  # "half-duplex", "not-armed", "paused"


class ListenLoop:
    """One table's listen loop around a ``Session``."""

    def __init__(self, session: Session, recognizer: Recognizer, speaker: Speaker,
                 voice: VoiceSettings | None = None, captions: Captions | None = None,
                 settings: LoopSettings | None = None, *,
                 wall_clock: Callable[[], float] | None = None,
                 grammar_builder: GrammarBuilder | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        self.session = session
        self.recognizer = recognizer
        self.speaker = speaker
        self.voice = voice or VoiceSettings()
        self.captions = captions or NoCaptions()
        self.settings = settings or LoopSettings()
        self.state = LoopState.DORMANT if self.gated else LoopState.LISTENING
        self.pending: Command | None = None
        #: the utterance a pending command was heard in (its echo or question answers it)
        self.pending_from: Segment | None = None
        #: while a command is applied: the utterance it was heard in (None: typed)
        self.applying_from: Segment | None = None
        self.last_said: list[str] = []
        self.discarded: list[Discarded] = []
        self.heard_segments = 0
        self.current: Segment | None = None   # the utterance being heard now
        self.grammars = LoopGrammars(session, grammar_builder)
        # wall mode: the clock reading at stream time 0 (the source starts with the loop)
        self._wall_origin: float | None = wall_clock() if wall_clock is not None else None
        self._clock = wall_clock
        self._wall = wall_clock is not None
        self._stream_now = 0.0
        self._speech: list[tuple[float, float]] = []   # (start, deaf until), recent first
        self._deadline: float | None = None            # confirmation timeout
        self._armed: tuple[float, float] | None = None  # (from, until)
        self._held = False
        self._press_heard = False   # the line said while push-to-talk is held was heard
        self._typed: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._warn = warn or (lambda message: None)
        self.speaker_failed = False
        # figures for the docs and the scripted game night
        self.asked = 0      # "... Is that right?" questions
        self.held = 0       # implicit echoes with an undo window
        self.undone = 0     # implicit echoes taken back
        self.released = 0   # implicit echoes applied when their window closed
        self.repeated = 0   # implicit echoes confirmed by the same command said again
        self.corrected = 0  # implicit echoes replaced by another command of the same kind
        self.trimmed = 0    # utterances kept after trimming the assistant's sound off their front
        self.chatter = 0    # utterances met with silence as chatter
        self.failures = 0   # addressed failures in a row
        self._hinted = False
        self._unanswered: tuple[str, float] | None = None   # an aside met with silence, and when
        self._released: tuple[str, float] | None = None     # a held command applied as its window closed
        self._prompts = 0   # "Please say yes or no." said for the open question
        self.voices: VoiceTurns | None = None   # who is speaking (speech/voices/voice_turns.py)

    @property
    def done(self) -> bool:
        """The game ended or was quit: nothing more is heard."""
        return self.state is LoopState.DONE

    # -- time --------------------------------------------------------------------
    @property
    def gated(self) -> bool:
        return self.settings.wake_phrase or self.settings.push_to_talk

    @property
    def quiet_from(self) -> float:
        """Loop time when the assistant's last sound and its deaf window end."""
        return max((until for _, until in self._speech), default=0.0)

    def now(self) -> float:
        """Loop time: stream seconds (a file), or wall clock mapped onto the stream (a mic)."""
        if self._clock is not None and self._wall_origin is not None:
            return self._clock() - self._wall_origin
        return self._stream_now

    def tick(self, t: float) -> None:
        """The stream has reached ``t``: fire a due timeout, run typed lines."""
        if self._clock is not None:
            # a frame is never consumed before it was captured, so the smallest
            # clock-minus-stream-time seen is the best estimate of the origin
            seen = self._clock() - t
            if self._wall_origin is None or seen < self._wall_origin:
                self._wall_origin = seen
        self._stream_now = max(self._stream_now, t)
        if self.state is LoopState.CONFIRMING and self._deadline is not None and self.now() > self._deadline:
            # in stream time the answer "came" when the deadline passed, not when we noticed
            self._timeout(at=None if self._wall else self._deadline)
        if self.state is LoopState.HOLDING and self._deadline is not None and self.now() > self._deadline:
            self._release_hold(at=None if self._wall else self._deadline)
        while self.state is not LoopState.DONE:
            try:
                line = self._typed.get_nowait()
            except queue.Empty:
                break
            self._typed_line(line)

    # -- gating (thread-safe enough: single writes of floats and bools) ---------------
    def press(self, t: float | None = None) -> None:
        """Push-to-talk pressed (a key, a button)."""
        t = self.now() if t is None else t
        self._held = True
        self._press_heard = False
        self._armed = (t - self.settings.press_slack_seconds, float("inf"))

    def release(self, t: float | None = None) -> None:
        """Push-to-talk released: a command may still start within the armed window (a tap),
        unless the line said while the button was held was already heard."""
        t = self.now() if t is None else t
        self._held = False
        if self._press_heard:
            self._armed = None
            return
        start = self._armed[0] if self._armed else t - self.settings.press_slack_seconds
        self._armed = (start, t + self.settings.armed_window_seconds)

    def submit_text(self, line: str) -> None:
        """A typed line (the non-voice equivalent); run at the next tick, unconfirmed."""
        self._typed.put(line)

    # -- running -----------------------------------------------------------------
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

        try:
            return self.run(endpointer.segments(tapped()))
        finally:
            source.close()

    def continue_from(self, previous: ListenLoop) -> None:
        """Take over the stream of a loop that ended (the lobby hands over to a game and
        back): its time, its deaf windows after speech, and what it said last."""
        self._stream_now = max(self._stream_now, previous._stream_now)
        if previous._wall_origin is not None:
            self._wall_origin = previous._wall_origin
        self._speech = list(previous._speech)
        self.last_said = list(previous.last_said)

    def announce(self, sentences: list[str]) -> None:
        """Say sentences that came from elsewhere (the opening of the game)."""
        if sentences:
            self._speak(list(sentences))

    def start(self) -> None:
        if self.session.over:
            self.state = LoopState.DONE
            return
        self._earcon("listening")

    def finish(self) -> None:
        """The input ended: a question still open times out (nothing was answered)."""
        if self.state is LoopState.CONFIRMING:
            self._timeout()
        elif self.state is LoopState.HOLDING:
            self._release_hold()   # the window closes with the input: nothing took it back

    # -- one utterance -----------------------------------------------------------
    def hear(self, segment: Segment) -> None:
        """One endpointed utterance."""
        if self.state is LoopState.DONE:
            return
        self.tick(segment.start)  # a timeout due before the utterance began fires first
        if self.done:
            return
        self._stream_now = max(self._stream_now, segment.end)
        self.heard_segments += 1
        self.current = segment
        admitted, beyond = self._admit(segment)
        if admitted is None:
            self.discarded.append(Discarded(segment, "half-duplex"))
            if beyond and self._expecting(segment):
                self._earcon("not-understood")   # someone spoke to us: never silence
            return
        self.current = segment = admitted
        if self.voices is not None and self.voices.enrolling(segment):
            return
        if self.state is LoopState.CONFIRMING:
            self._hear_answer(segment)
            return
        if self.state is LoopState.HOLDING:
            self._hear_during_hold(segment)
            return
        if self.state is LoopState.PAUSED:
            hyp = self._decode(segment, PAUSED_INTENTS)
            command = self._parse(hyp, PAUSED_INTENTS)
            if command is None:
                self.discarded.append(Discarded(segment, "paused"))
                return
            self._control(command.intent)
            return
        armed = self._is_armed(segment)
        if self.gated and not armed:
            hyp = self._decode_with(segment, self.wake_grammar())
            woke, rest = self._split_wake(hyp)
            if not woke:
                self.discarded.append(Discarded(segment, "not-armed"))
                return
            assert hyp is not None
            self.captions.heard(hyp.text)
            if not rest:
                self._earcon("listening")
                self._rearm()
                return
            self._disarm()
            self.state = LoopState.LISTENING
            # the wake phrase in the same breath counts only from a sure hearing: chatter
            # forced onto "hello facilitator what is the score" must not be answered
            self._understand(rest, hyp, addressed=hyp.sure)
            self._after_command()
            return
        self._disarm()
        if self.state is LoopState.DORMANT:
            self.state = LoopState.LISTENING
        hyp = self._decode_with(segment, self.listening_grammar())
        woke, rest = self._split_wake(hyp)
        if woke and not rest:
            assert hyp is not None
            self.captions.heard(hyp.text)
            self._earcon("listening")
            self._arm_once()
            return
        if hyp is not None and hyp.text.strip():
            self.captions.heard(hyp.text)
        self._understand(rest, hyp, addressed=addressed(woke=woke, sure=hyp is not None and hyp.sure,
                                                        armed=armed))

    def _understand(self, text: str, hyp: Hypothesis | None, addressed: bool) -> None:
        """Words heard while listening: chatter is met with silence, commands by how
        sure the hearing was and how costly a mistake would be (see ``_route``)."""
        if hyp is None or not text.strip():
            if addressed:
                self._not_understood()
            else:
                self._chatter()
            return
        parsed = self.session.parse(text, typed=False, narrow=True)
        if isinstance(parsed, NotRecognized):
            if not addressed:
                self._chatter()
                return
            self._earcon("not-understood")
            reply = self.session.reject(text, "say-again", "not understood")
            self._failed(reply.public, self._usage_for(text))
            self._rearm()
            return
        self._route(parsed, Hearing(sure=hyp.sure, addressed=addressed, repeated=self._repeated(parsed)))

    def _route(self, command: Command, hearing: Hearing) -> None:
        """Take a heard command as ``policy.take`` says: silence, an answer, a question,
        an implicit echo, or at once.  Whether the rules accept it now is asked of the
        pure referee only when the rule needs it.  With voice turns on, a role's command in
        another seat's voice, or a stranger's voice, stops here (``voice_turns``)."""
        if self.voices is not None and self.voices.stops(command):
            return
        if self._released is not None and self.current is not None and late_repeat(
                heard=command.canonical, started=self.current.start, released=self._released):
            self.repeated += 1   # said again inside the window, heard after it closed: applied once
            self._released = None
            return
        grammar = self.session.grammar
        intent = command.intent
        aside = intent in self._asides()
        confirm = ("always" if intent in grammar.always_confirmed
                   else "true" if intent in grammar.confirmed else None)
        quiet_refusal = getattr(self.session, "acceptable", None) is None
        needs_check = not aside and (confirm is not None or
                                     (quiet_refusal and not (hearing.sure or hearing.addressed)))
        acceptable = self._acceptable(command) if needs_check else True
        verdict = take(hearing, aside=aside, confirm=confirm, acceptable=acceptable,
                       quiet_refusal=quiet_refusal)
        if verdict is Take.CHATTER:
            if aside:   # remembered: said again soon, it is answered (``policy.Hearing.repeated``)
                self._unanswered = (command.canonical.lower(), self.now())
            self._chatter()   # an aside heard unsure; "yes" with nothing asked; an illegal route
            return
        self._unanswered = None
        if verdict in (Take.ASK, Take.HOLD):
            self._earcon("understood")
            self.pending, self.pending_from = command, self.current
            if verdict is Take.ASK:
                self.asked += 1
                self._ask()
            else:
                self.held += 1
                self._hold()
        else:
            self._command(command)

    def _repeated(self, command: Command) -> bool:
        """Whether ``command`` is an aside said again soon after it met silence."""
        if self._unanswered is None:
            return False
        canonical, at = self._unanswered
        return (canonical == command.canonical.lower()
                and self.now() - at <= self.settings.repeat_window_seconds)

    def _asides(self) -> frozenset[str]:
        """What answers aloud without changing the game."""
        queries: frozenset[str] = getattr(self.session.referee, "queries", frozenset())
        return ASIDES | CONTROLS | frozenset(queries)

    def _command(self, command: Command) -> None:
        intent = command.intent
        self._earcon("understood")
        if intent == "repeat":
            self._speak(self.last_said or [self.session.phrases.say("nothing-to-repeat")], remember=False)
        elif intent in CONTROLS:
            self._control(intent)
        else:
            self._apply(command, source=self.current)

    def _said_form(self) -> str:
        assert self.pending is not None
        said = self.session.grammar.render(self.pending.canonical, lists=self._lists())
        said = said or self.pending.canonical
        return said[:1].upper() + said[1:]

    def _ask(self) -> None:
        self.state = LoopState.CONFIRMING
        self._prompts = 0
        end = self._speak([self.session.phrases.say("confirm-ask", command=self._said_form())],
                          remember=False)
        self._deadline = end + self.voice.confirm_timeout_seconds

    def _hold(self) -> None:
        """The implicit echo: nothing is applied or logged until the window closes."""
        self.state = LoopState.HOLDING
        end = self._speak([self.session.phrases.say("confirm-echo", command=self._said_form())],
                          remember=False)
        self._deadline = end + self.settings.implicit_window_seconds

    def question_intents(self) -> frozenset[str]:
        """What can be said while a question is open: the answers, and asides that
        leave it open (repeat, help, paging, the game's queries)."""
        queries: frozenset[str] = getattr(self.session.referee, "queries", frozenset())
        legal = self.session.legal_intents()
        return CONFIRM_INTENTS | QUESTION_ASIDES | (frozenset(queries) & legal)

    def _hear_answer(self, segment: Segment) -> None:
        intents = self.question_intents()
        hyp = self._decode(segment, intents)
        command = self._parse(hyp, intents)
        if command is None:
            self._prompts += 1
            if self._prompts > self.settings.max_yes_or_no_prompts:
                self._timeout()   # talk that is no answer, again and again: the question closes
                return
            self._earcon("not-understood")
            end = self._speak([self.session.phrases.say("confirm-yes-or-no")], remember=False)
            # the prompt takes its own time, but does not start the timeout afresh
            self._deadline = max(self._deadline or end, end + self.settings.answer_seconds)
            return
        self._earcon("understood")
        pending, intent = self.pending, command.intent
        if intent == "repeat":
            self._ask()
            return
        if intent == "help":
            end = self._speak([self.session.phrases.say("confirm-help", command=self._said_form())],
                              remember=False)
            self._deadline = end + self.voice.confirm_timeout_seconds
            return
        if intent not in CONFIRM_INTENTS:   # a query: answered, the question stays open
            self.applying_from = segment
            try:
                reply = self.session.execute(command)
            finally:
                self.applying_from = None
            end = self._speak(reply.public, remember=False) if reply.public else self.now()
            self._deadline = end + self.voice.confirm_timeout_seconds
            return
        source = self.pending_from
        self.pending, self.pending_from = None, None
        self._deadline = None
        self.state = LoopState.LISTENING
        if intent == "yes" and pending is not None:
            self._apply(pending, source=source)
        else:
            self._speak([self.session.phrases.say("confirm-cancelled")], remember=False)
        self._after_command()

    def _hear_during_hold(self, segment: Segment) -> None:
        """While an echoed command waits: no / undo / cancel takes it back, yes applies
        it now, repeat says the echo again.  The same command said again confirms it
        (a player who heard nothing applied yet says it again): it is applied once,
        now.  Another command of the same kind (another route) is the player's
        correction: the held one is dropped, never applied, and the new one is taken
        as usual.  Any other command closes the window first (the held command is
        applied) and is then heard as usual; chatter changes nothing."""
        hyp = self._decode_with(segment, self.listening_grammar(None))
        woke, rest = self._split_wake(hyp)
        if hyp is None or not rest.strip():
            return
        self.captions.heard(hyp.text)
        answer = self.session.grammar.parse(rest, intents=HOLD_ANSWERS, typed=False, lists=self._lists())
        if not isinstance(answer, NotRecognized) and self.pending is not None:
            self._earcon("understood")
            verdict = during_hold(answer=answer.intent, heard=None, heard_intent=None,
                                  held=self.pending.canonical, held_intent=self.pending.intent,
                                  acceptable=False)
            if verdict is HoldTake.ECHO_AGAIN:
                self._hold()
            else:
                self._end_hold(apply=verdict is HoldTake.APPLY_NOW)
            return
        parsed = self.session.parse(rest, typed=False, narrow=True)
        command = None if isinstance(parsed, NotRecognized) else parsed
        pending = self.pending
        if pending is None:
            return
        verdict = during_hold(
            answer=None, heard=command.canonical if command else None,
            heard_intent=command.intent if command else None, held=pending.canonical,
            held_intent=pending.intent,
            acceptable=command is not None and command.intent == pending.intent and self._acceptable(command))
        if command is None or verdict is HoldTake.KEEP:
            return   # chatter, or a correction the rules refuse: the held command keeps waiting
        hearing = Hearing(sure=hyp.sure, addressed=woke, repeated=self._repeated(command))
        if verdict is HoldTake.APPLY_NOW:
            self.repeated += 1
            self._earcon("understood")
            self._end_hold(apply=True)
        elif verdict is HoldTake.REPLACE:
            self.corrected += 1
            self.pending, self.pending_from, self._deadline = None, None, None
            self.state = LoopState.LISTENING
            self._route(command, hearing)
        else:
            self._release_hold()
            if self.state is not LoopState.DONE:
                self._route(command, hearing)

    def _end_hold(self, *, apply: bool) -> None:
        """Close the undo window at once: apply the held command, or take it back."""
        pending, source = self.pending, self.pending_from
        self.pending, self.pending_from, self._deadline = None, None, None
        self.state = LoopState.LISTENING
        if apply and pending is not None:
            self._apply(pending, source=source)
        else:
            self.undone += 1
            self._speak([self.session.phrases.say("confirm-cancelled")], remember=False)
            self._after_command()

    def _release_hold(self, at: float | None = None) -> None:
        pending, source, closed = self.pending, self.pending_from, self._deadline
        self.pending, self.pending_from, self._deadline = None, None, None
        if pending is not None and closed is not None:
            self._released = (pending.canonical, closed)
        self.state = LoopState.LISTENING
        if pending is not None:
            self.released += 1
            self._apply(pending, at=at, source=source)

    def _timeout(self, at: float | None = None) -> None:
        self.pending, self.pending_from = None, None
        self._deadline = None
        self.state = LoopState.LISTENING
        self._speak([self.session.phrases.say("confirm-timeout")], remember=False, at=at)
        self._after_command()

    def _apply(self, command: Command, at: float | None = None, source: Segment | None = None) -> None:
        """Apply ``command``, heard in ``source`` (None: typed); ``applying_from`` says so meanwhile."""
        self.applying_from = source
        try:
            reply = self.session.execute(command)
        finally:
            self.applying_from = None
        extra: list[str] = []
        if reply.accepted:
            self.failures, self._hinted = 0, False
        elif reply.logged:   # refused by the rules: a failure too
            usage = getattr(self.session, "usage_line", None)
            extra = self._count_failure(usage(command.intent) if usage is not None else None)
        if reply.public or extra:
            self._speak(reply.public + extra, remember=True, at=at)
            if extra:
                self.last_said = list(reply.public)
        if reply.quit or self.session.over:
            self.state = LoopState.DONE
        else:
            self._after_command()

    def _failed(self, said: list[str], usage: str | None) -> None:
        """A command addressed to the referee was not understood: say so, with a hint
        after two failures in a row."""
        self._speak(said + self._count_failure(usage), remember=False)

    def _count_failure(self, usage: str | None) -> list[str]:
        """Count a failure; after ``hint_after_failures`` in a row the right form is
        offered once (the intent's usage line, else the moment's help)."""
        self.failures += 1
        if self.failures >= self.settings.hint_after_failures and not self._hinted:
            self._hinted = True
            return [usage or self._moment_help()]
        return []

    def _moment_help(self) -> str:
        reply = self.session.execute(Command("help", "help", {}, "help"))
        return reply.public[0] if reply.public else self.session.phrases.say("usage-help")

    def _usage_for(self, text: str) -> str | None:
        find = getattr(self.session, "usage_key", None)
        key = find(text) if find is not None else None
        return self.session.phrases.say(key[0], **key[1]) if key is not None else None

    def _typed_line(self, line: str) -> None:
        text = line.strip()
        if not text or text.startswith("#"):
            return
        if self.voices is not None and self.voices.typed(text):
            return
        if self.state is LoopState.HOLDING:
            self._release_hold()   # a typed line closes the window: the held command first
            if self.done:
                return
        reply = self.session.handle(text)
        self._speak_reply(reply)
        if reply.quit or self.session.over:
            self.state = LoopState.DONE

    def _after_command(self) -> None:
        if self.state is LoopState.LISTENING and self.gated:
            self.state = LoopState.DORMANT

    def _acceptable(self, command: Command) -> bool:
        """Whether the session would accept ``command`` now: an illegal command is
        refused at once rather than echoed.  Uses the pure referee; nothing is logged."""
        session = self.session
        own = getattr(session, "acceptable", None)
        if own is not None:   # the lobby says itself what a confirmation would do
            return bool(own(command))
        if command.intent in LOBBY or command.intent in CONFIRMATIONS:
            return False
        if command.intent == "quit" or command.intent in session.referee.queries:
            return True
        try:
            session.referee.decide(session.state, command, random.Random(0))
        except IllegalCommandError:
            return False
        return True

    # -- voice controls ------------------------------------------------------------
    def _control(self, intent: str) -> None:
        """A voice control: volume and rate as ``voice_controls.step`` says; pausing."""
        self.voice.volume, self.voice.rate_wpm, key = step(intent, self.voice.volume, self.voice.rate_wpm,
                                                           self.settings)
        if intent == "stop listening":
            self._speak([self.session.phrases.say(key)], remember=False)
            self.state = LoopState.PAUSED
            return
        if intent == "start listening":
            self.state = LoopState.LISTENING
        self._speak([self.session.phrases.say(key)], remember=False)
        self._after_command()

    # -- recognition ---------------------------------------------------------------
    def _lists(self) -> RuntimeLists:
        return self.session.referee.runtime_lists(self.session.state)

    def recognition_grammar(self, intents: Iterable[str] | None) -> RecognitionGrammar:
        """The decoding grammar for ``intents`` (None: what is legal now), cached."""
        return self.grammars.recognition(intents)

    def wake_phrases(self) -> tuple[str, ...]:
        """The wake phrases: ``[lists.wake]`` in grammars/common.toml."""
        return self.grammars.wake_phrases()

    def listening_grammar(self, intents: Iterable[str] | None = None, *,
                          bare_wake: bool = True) -> RecognitionGrammar:
        """The commands of ``intents`` (None: legal now) with an optional wake phrase before them."""
        return self.grammars.listening(intents, bare_wake=bare_wake)

    def wake_grammar(self) -> RecognitionGrammar:
        """While dormant: the wake phrase alone or before a command, and the commands
        legal now as competitors (a command without the wake phrase does not wake)."""
        return self.grammars.listening(None)

    def next_grammar(self, *, for_completion: bool = False) -> RecognitionGrammar | None:
        """The grammar the next utterance will be decoded with (None: it will not be
        decoded).  ``for_completion``: the wake phrase alone is not a whole utterance
        (the command may follow in the same breath)."""
        if self.state is LoopState.DONE:
            return None
        if self.state is LoopState.CONFIRMING:
            return self.recognition_grammar(self.question_intents())
        if self.state is LoopState.PAUSED:
            return self.recognition_grammar(PAUSED_INTENTS)
        if self.gated and not self._held and self._armed is None and not self.settings.wake_phrase:
            return None
        return self.listening_grammar(None, bare_wake=not for_completion)

    def complete(self, pcm: bytes) -> bool:
        """Whether ``pcm`` already holds a whole phrase of the next grammar, so the
        endpointer may end the utterance after a short pause (lower latency)."""
        check = getattr(self.recognizer, "is_complete", None)
        grammar = self.next_grammar(for_completion=True)
        if check is None or grammar is None:
            return False
        try:
            return bool(check(pcm, grammar))
        except FacilitatorError:
            return False

    def _decode(self, segment: Segment, intents: Iterable[str] | None) -> Hypothesis | None:
        return self._decode_with(segment, self.recognition_grammar(intents))

    def _decode_with(self, segment: Segment, grammar: RecognitionGrammar) -> Hypothesis | None:
        if not segment.pcm:
            return None
        try:
            return self.recognizer.decode(segment.pcm, grammar)
        except FacilitatorError:
            return None  # a recognizer failure on one utterance is a "say again", not a crash

    def _split_wake(self, hyp: Hypothesis | None) -> tuple[bool, str]:
        """(whether the words start with a wake phrase, the words after it)."""
        if hyp is None:
            return False, ""
        woke, rest = split_wake(hyp.text, self.wake_phrases())
        return woke, rest if woke else hyp.text

    def _parse(self, hyp: Hypothesis | None, intents: frozenset[str]) -> Command | None:
        if hyp is None or not hyp.text.strip():
            return None
        self.captions.heard(hyp.text)
        got = self.session.grammar.parse(hyp.text, intents=intents, typed=False, lists=self._lists())
        return None if isinstance(got, NotRecognized) else got

    def _is_armed(self, segment: Segment) -> bool:
        if self._held:
            return True
        return self._armed is not None and self._armed[0] <= segment.start <= self._armed[1]

    def _disarm(self) -> None:
        """An armed utterance was heard: the press or the wake phrase is used."""
        self._press_heard = True
        if not self._held:
            self._armed = None

    def _expecting(self, segment: Segment) -> bool:
        """Whether the table is talking to the referee now (a question or an echo is
        open, or the loop was woken or pressed), so a lost utterance gets a sound."""
        return self.state in (LoopState.CONFIRMING, LoopState.HOLDING) or self._is_armed(segment)

    def _not_understood(self) -> None:
        """Addressed, but no words were heard: a sound and "Say again?"."""
        self._earcon("not-understood")
        self._failed([self.session.phrases.say("say-again")], None)
        self._rearm()

    def _chatter(self) -> None:
        """Not understood and not addressed to the referee: silence (a soft sound when
        gated and armed is handled by the caller)."""
        self.chatter += 1
        if self.current is not None:
            self.discarded.append(Discarded(self.current, "chatter"))

    def _arm_once(self) -> None:
        """The wake phrase on its own, ungated: the next command is addressed."""
        self._armed = (self.now(), self.now() + self.settings.armed_window_seconds)

    def _rearm(self) -> None:
        """With the wake phrase: the next utterance may follow without a new wake phrase.
        With push-to-talk alone the player presses again (arming the loop after each
        "Say again?" let the next chatter line in)."""
        if self.settings.wake_phrase and self.state is not LoopState.DONE:
            self._armed = (self.now(), self.now() + self.settings.armed_window_seconds)
            self.state = LoopState.LISTENING

    # -- half duplex ---------------------------------------------------------------
    def _admit(self, segment: Segment) -> tuple[Segment | None, bool]:
        """Half duplex (invariant 6), as ``half_duplex.admit`` says."""
        kept, beyond = admit(segment, self._speech, self.settings.min_trimmed_seconds)
        if kept is not None and kept is not segment:
            self.trimmed += 1
        return kept, beyond

    def _speak_reply(self, reply: Reply, remember: bool = True) -> None:
        if reply.public:
            self._speak(reply.public, remember=remember)


    def _speak(self, sentences: list[str], remember: bool = True, at: float | None = None) -> float:
        """Say ``sentences`` with captions; return the loop time the deaf window ends."""
        before, self.state = self.state, LoopState.SPEAKING
        start = self.now() if at is None else at
        total = 0.0
        try:
            for sentence in sentences:
                self.captions.said(sentence)
                total += self._say_one(sentence)
        finally:
            self.state = before
        end = self.now() if self._wall else start + total
        if remember:
            self.last_said = list(sentences)
        return self._deaf(start, end)

    def _say_one(self, sentence: str) -> float:
        """Speak one sentence; a speaker that fails leaves the caption as the announcement."""
        if not self.speaker_failed:
            try:
                return self.speaker.speak(sentence)
            except FacilitatorError as exc:
                self.speaker_failed = True
                self._warn(f"{exc}; announcements are printed only from now on")
        return len(sentence.split()) * 60.0 / max(self.voice.rate_wpm, 1)

    def _earcon(self, name: str) -> None:
        start = self.now()
        if not self.speaker_failed:
            try:
                self.speaker.earcon(name)
            except FacilitatorError as exc:
                self.speaker_failed = True
                self._warn(f"{exc}; announcements are printed only from now on")
        end = self.now() if self._wall else start + self.settings.earcon_seconds
        self._deaf(start, end)

    def _deaf(self, start: float, end: float) -> float:
        until = end + self.voice.deaf_after_speech_seconds
        self._speech.insert(0, (start, until))
        del self._speech[16:]
        if not self._wall:
            self._stream_now = max(self._stream_now, end)  # the file keeps playing while we talk
        return until


class _Endpointer(Protocol):
    def segments(self, frames: Iterable[Frame]) -> Iterator[Segment]: ...
