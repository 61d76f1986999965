"""The listen loop: utterances in, commands confirmed and applied, sentences spoken.

An explicit state machine behind the small interfaces of ``speech/base.py``::

    DORMANT ──wake phrase / push-to-talk──> LISTENING
    LISTENING ──consequential command──> CONFIRMING ──yes──> (applied) LISTENING
                                            └──no / cancel / timeout──> LISTENING
    LISTENING ──"stop listening"──> PAUSED ──"start listening"──> LISTENING
    any ──while the assistant talks──> SPEAKING ──> back
    any ──game over / quit confirmed──> DONE

Time is *stream time* (seconds into the audio) for a file, and wall-clock time
mapped onto the stream for a microphone (``wall_clock=time.monotonic``).  Half
duplex: a segment that overlaps the assistant's speech or the deaf window after
it (``VoiceSettings.deaf_after_speech_seconds``) is discarded unheard.

What is logged (see the project's voice-loop notes): a hypothesis that does not
parse is a ``command-rejected`` (reason ``not understood``), exactly as a typed
line would be; silence or noise with no words, gated or half-duplex segments,
answers to a confirmation question and cancelled commands log nothing.
"""

from __future__ import annotations

import queue
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import IO, Protocol

from ..errors import FacilitatorError, IllegalCommandError
from ..command import Command, NotRecognized, RuntimeLists
from ..session import CONFIRMATIONS, CONTROLS, LOBBY, Reply, Session
from .base import (
    AudioSource,
    Frame,
    Hypothesis,
    RecognitionGrammar,
    Recognizer,
    Segment,
    Speaker,
    VoiceSettings,
)

#: what can be said while a consequential command waits for its answer
CONFIRM_INTENTS = frozenset({"yes", "no", "cancel", "repeat"})
PAUSED_INTENTS = frozenset({"start listening"})
WAKE_LIST = "wake"


class LoopState(str, Enum):
    DORMANT = "dormant"        # gated: waiting for the wake phrase or push-to-talk
    LISTENING = "listening"
    CONFIRMING = "confirming"
    SPEAKING = "speaking"
    PAUSED = "paused"
    DONE = "done"


@dataclass(frozen=True)
class LoopSettings:
    """How the loop gates and paces the table (times in seconds)."""

    wake_phrase: bool = False
    push_to_talk: bool = False
    #: after the wake phrase or a key press, a command must start within this window
    armed_window_seconds: float = 6.0
    #: a command may start this long before the key press (people press while talking)
    press_slack_seconds: float = 0.5
    #: earcons count as assistant sound for half duplex
    earcon_seconds: float = 0.3
    volume_step: float = 0.15
    min_volume: float = 0.1
    rate_step_wpm: int = 25
    min_rate_wpm: int = 90
    max_rate_wpm: int = 280


@dataclass(frozen=True)
class Tick:
    """The stream reached ``t`` seconds with no utterance ending (drives timeouts)."""

    t: float


@dataclass(frozen=True)
class Discarded:
    segment: Segment
    reason: str  # "half-duplex", "not-armed", "paused"


class Captions(Protocol):
    def said(self, text: str) -> None:
        """A sentence the assistant speaks."""
        ...

    def heard(self, text: str) -> None:
        """What the recognizer heard."""
        ...


class StreamCaptions:
    """Captions on a text stream: sentences as they are, heard words after ``> ``."""

    def __init__(self, out: IO[str], show_heard: bool = True) -> None:
        self.out = out
        self.show_heard = show_heard

    def said(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def heard(self, text: str) -> None:
        if self.show_heard:
            self.out.write(f"> {text}\n")
            self.out.flush()


GrammarBuilder = Callable[..., RecognitionGrammar]


def _default_builder() -> GrammarBuilder:
    from .grammar_build import recognition_grammar

    return recognition_grammar


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
        self.captions = captions or _NoCaptions()
        self.settings = settings or LoopSettings()
        self.state = LoopState.DORMANT if self.gated else LoopState.LISTENING
        self.pending: Command | None = None
        self.last_said: list[str] = []
        self.discarded: list[Discarded] = []
        self.heard_segments = 0
        self.current: Segment | None = None   # the utterance being heard now
        self._build = grammar_builder or _default_builder()
        self._grammars: dict[tuple[object, ...], RecognitionGrammar] = {}
        # wall mode: the clock reading at stream time 0 (the source starts with the loop)
        self._wall_origin: float | None = wall_clock() if wall_clock is not None else None
        self._clock = wall_clock
        self._wall = wall_clock is not None
        self._stream_now = 0.0
        self._speech: list[tuple[float, float]] = []   # (start, deaf until), recent first
        self._deadline: float | None = None            # confirmation timeout
        self._armed: tuple[float, float] | None = None  # (from, until)
        self._held = False
        self._typed: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._warn = warn or (lambda message: None)
        self.speaker_failed = False

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
        self._armed = (t - self.settings.press_slack_seconds, float("inf"))

    def release(self, t: float | None = None) -> None:
        """Push-to-talk released: a command may still start within the armed window."""
        t = self.now() if t is None else t
        self._held = False
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

    # -- one utterance -----------------------------------------------------------
    def hear(self, segment: Segment) -> None:
        """One endpointed utterance."""
        if self.state is LoopState.DONE:
            return
        self.tick(segment.start)  # a timeout due before the utterance began fires first
        self._stream_now = max(self._stream_now, segment.end)
        self.heard_segments += 1
        self.current = segment
        if self._overlaps_speech(segment):
            self.discarded.append(Discarded(segment, "half-duplex"))
            return
        if self.state is LoopState.CONFIRMING:
            self._hear_answer(segment)
            return
        if self.state is LoopState.PAUSED:
            hyp = self._decode(segment, PAUSED_INTENTS)
            command = self._parse(hyp, PAUSED_INTENTS)
            if command is None:
                self.discarded.append(Discarded(segment, "paused"))
                return
            self._control(command.intent)
            return
        if self.gated and not self._is_armed(segment):
            if self.settings.wake_phrase and self._is_wake(segment):
                self._earcon("listening")
                self._rearm()
            else:
                self.discarded.append(Discarded(segment, "not-armed"))
            return
        self._disarm()
        if self.state is LoopState.DORMANT:
            self.state = LoopState.LISTENING
        hyp = self._decode(segment, None)
        if hyp is None or not hyp.text.strip():
            self._not_understood()
            return
        self.captions.heard(hyp.text)
        parsed = self.session.parse(hyp.text, typed=False, narrow=True)
        if isinstance(parsed, NotRecognized):
            self._earcon("not-understood")
            self._speak_reply(self.session.reject(hyp.text, "say-again", "not understood"), remember=False)
            self._rearm()
            return
        self._command(parsed)

    def _command(self, command: Command) -> None:
        intent = command.intent
        self._earcon("understood")
        if intent == "repeat":
            self._speak(self.last_said or [self.session.phrases.say("nothing-to-repeat")], remember=False)
        elif intent in CONTROLS:
            self._control(intent)
        elif intent in self.session.grammar.confirmed and self._acceptable(command):
            self.pending = command
            self._ask()
        else:
            self._apply(command)

    def _ask(self) -> None:
        assert self.pending is not None
        said = self.session.grammar.render(self.pending.canonical,
                                           lists=self.session.referee.runtime_lists(self.session.state))
        said = said or self.pending.canonical
        self.state = LoopState.CONFIRMING
        end = self._speak([self.session.phrases.say("confirm-ask", command=said[:1].upper() + said[1:])],
                          remember=False)
        self._deadline = end + self.voice.confirm_timeout_seconds

    def _hear_answer(self, segment: Segment) -> None:
        hyp = self._decode(segment, CONFIRM_INTENTS)
        command = self._parse(hyp, CONFIRM_INTENTS)
        if command is None:
            self._earcon("not-understood")
            end = self._speak([self.session.phrases.say("say-again")], remember=False)
            self._deadline = end + self.voice.confirm_timeout_seconds
            return
        self._earcon("understood")
        pending, intent = self.pending, command.intent
        if intent == "repeat":
            self._ask()
            return
        self.pending = None
        self._deadline = None
        self.state = LoopState.LISTENING
        if intent == "yes" and pending is not None:
            self._apply(pending)
        else:
            self._speak([self.session.phrases.say("confirm-cancelled")], remember=False)
        self._after_command()

    def _timeout(self, at: float | None = None) -> None:
        self.pending = None
        self._deadline = None
        self.state = LoopState.LISTENING
        self._speak([self.session.phrases.say("confirm-timeout")], remember=False, at=at)
        self._after_command()

    def _apply(self, command: Command) -> None:
        reply = self.session.execute(command)
        self._speak_reply(reply)
        if reply.quit or self.session.over:
            self.state = LoopState.DONE
        else:
            self._after_command()

    def _typed_line(self, line: str) -> None:
        text = line.strip()
        if not text or text.startswith("#"):
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
        v, s = self.voice, self.settings
        if intent == "louder":
            v.volume = round(min(1.0, v.volume + s.volume_step), 3)
        elif intent == "softer":
            v.volume = round(max(s.min_volume, v.volume - s.volume_step), 3)
        elif intent == "faster":
            v.rate_wpm = min(s.max_rate_wpm, v.rate_wpm + s.rate_step_wpm)
        elif intent == "slower":
            v.rate_wpm = max(s.min_rate_wpm, v.rate_wpm - s.rate_step_wpm)
        key = "voice-" + intent.replace(" ", "-")
        if intent == "stop listening":
            self._speak([self.session.phrases.say(key)], remember=False)
            self.state = LoopState.PAUSED
            return
        if intent == "start listening":
            self.state = LoopState.LISTENING
            self._speak([self.session.phrases.say(key)], remember=False)
            self._after_command()
            return
        self._speak([self.session.phrases.say(key)], remember=False)
        self._after_command()

    # -- recognition ---------------------------------------------------------------
    def _lists(self) -> RuntimeLists:
        return self.session.referee.runtime_lists(self.session.state)

    def recognition_grammar(self, intents: Iterable[str] | None) -> RecognitionGrammar:
        """The decoding grammar for ``intents`` (None: what is legal now), cached."""
        wanted = frozenset(intents) if intents is not None else frozenset(self.session.legal_intents())
        lists = self._lists()
        key = (wanted, repr(sorted((n, sorted((v, tuple(p)) for v, p in vals.items()))
                                   for n, vals in lists.items())))
        if key not in self._grammars:
            if len(self._grammars) > 32:
                self._grammars.clear()
            self._grammars[key] = self._build(self.session.grammar, intents=sorted(wanted),
                                              lists=lists or None)
        return self._grammars[key]

    def wake_phrases(self) -> tuple[str, ...]:
        """The wake phrases: ``[lists.wake]`` in grammars/common.toml."""
        return tuple(sorted({p for ps in self.session.grammar.lists[WAKE_LIST].spoken.values() for p in ps}))

    def wake_grammar(self) -> RecognitionGrammar:
        """The wake phrases *and*, as competitors, the commands legal now.

        Under the wake phrase alone the decoder forces any speech onto it ("yes
        please" became "hey referee"); with the commands beside it, a command said
        without the wake phrase decodes as that command, which does not wake the
        loop.  Only a hypothesis that is a wake phrase wakes it.
        """
        listening = self.recognition_grammar(None)
        key: tuple[object, ...] = ("wake", listening.key, listening.jsgf)
        if key not in self._grammars:
            phrases = self.wake_phrases()
            alternatives = " | ".join(f"( {p} )" for p in phrases)
            head = "public <command> = "
            if head in listening.jsgf:
                jsgf = listening.jsgf.replace(head, f"{head}{alternatives} | ", 1)
                competitors = listening.phrases
            else:  # a grammar of another shape: the wake phrases alone still work
                jsgf = f"#JSGF V1.0;\ngrammar wake;\n{head}{alternatives};\n"
                competitors = ()
            self._grammars[key] = RecognitionGrammar(
                jsgf=jsgf, phrases=tuple(sorted({*phrases, *competitors})),
                words=frozenset(w for p in (*phrases, *competitors) for w in p.split()),
                key=f"wake-{listening.key}")
        return self._grammars[key]

    def next_grammar(self) -> RecognitionGrammar | None:
        """The grammar the next utterance will be decoded with (None: it will not be decoded)."""
        if self.state is LoopState.DONE:
            return None
        if self.state is LoopState.CONFIRMING:
            return self.recognition_grammar(CONFIRM_INTENTS)
        if self.state is LoopState.PAUSED:
            return self.recognition_grammar(PAUSED_INTENTS)
        if self.gated and not self._held and self._armed is None:
            return self.wake_grammar() if self.settings.wake_phrase else None
        return self.recognition_grammar(None)

    def complete(self, pcm: bytes) -> bool:
        """Whether ``pcm`` already holds a whole phrase of the next grammar, so the
        endpointer may end the utterance after a short pause (lower latency)."""
        check = getattr(self.recognizer, "is_complete", None)
        grammar = self.next_grammar()
        if check is None or grammar is None:
            return False
        try:
            return bool(check(pcm, grammar))
        except FacilitatorError:
            return False

    def _decode(self, segment: Segment, intents: Iterable[str] | None) -> Hypothesis | None:
        try:
            return self.recognizer.decode(segment.pcm, self.recognition_grammar(intents))
        except FacilitatorError:
            return None  # a recognizer failure on one utterance is a "say again", not a crash

    def _is_wake(self, segment: Segment) -> bool:
        try:
            hyp = self.recognizer.decode(segment.pcm, self.wake_grammar())
        except FacilitatorError:
            return False
        if hyp is None or " ".join(hyp.text.lower().split()) not in self.wake_phrases():
            return False
        self.captions.heard(hyp.text)
        return True

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
        if not self._held:
            self._armed = None

    def _not_understood(self) -> None:
        self._earcon("not-understood")
        self._speak([self.session.phrases.say("say-again")], remember=False)
        self._rearm()

    def _rearm(self) -> None:
        """Gated: the next utterance may follow without a new wake phrase or press."""
        if self.gated and self.state is not LoopState.DONE:
            self._armed = (self.now(), self.now() + self.settings.armed_window_seconds)
            self.state = LoopState.LISTENING

    # -- half duplex ---------------------------------------------------------------
    def _overlaps_speech(self, segment: Segment) -> bool:
        return any(segment.start < until and segment.end > start for start, until in self._speech)

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


class _NoCaptions:
    def said(self, text: str) -> None:
        pass

    def heard(self, text: str) -> None:
        pass
