"""What every part of the listen loop shares: its states, its stages and its small acts.

``ListenLoop`` (``listen.py``) is one state machine; its work is split by concern:
``routing.py`` takes one utterance through the stages (admit, who spoke, hear,
decide), ``conversation.py`` holds the question, the echo and its window,
``applying.py`` applies commands.  The pending command is a value with one owner
(``pending.py``).  This base declares the state they share, the acts they all use
(speak, a sound, a caption, silence) and, as abstract methods, what each part
provides to the others: a part calls another only through those names.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ...command import Command
from ...session import CONTROLS, Reply, Session
from ..base import FirstHearing, Hypothesis, RecognitionGrammar, Recognizer, Segment, VoiceSettings
from .captions import Captions
from .clock import LoopClock
from .ears import Ears, answers_to
from .gate import Gate
from .hints import Hints
from .pending import Pending, Pendings
from .policy import Hearing
from .ports import PhoneHeard, VoiceRuling
from .settings import LoopSettings
from .speaking import Speaking
from .understanding import Understanding
from .verify import Verification

#: the answers to "... Is that right?"
CONFIRM_INTENTS = frozenset({"yes", "no", "cancel", "repeat"})
#: answered while a question is open, which stays open (the game's queries too)
QUESTION_ASIDES = frozenset({"repeat", "help", "go on"})
#: what takes back (or applies at once) an implicitly echoed command in its window
HOLD_ANSWERS = frozenset({"yes", "no", "cancel", "repeat"})
#: answers aloud without changing the game (with CONTROLS and the game's queries)
ASIDES = frozenset({"repeat", "help", "go on", "status", "read rules"})
PAUSED_INTENTS = frozenset({"start listening"})
#: questions a line that is no answer closes quietly (then heard as any line): what a
#: short answer asked back, and what the meaning stage found
LIGHT_QUESTIONS = ("confirm-did-you-ask", "meaning-did-you-mean")


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
    reason: str  # "half-duplex", "not-armed", "paused", "chatter"


_COUNTS = ("asked", "held", "undone", "released", "repeated", "corrected", "trimmed", "chatter",
           "verified", "withdrawn")


class LoopCore(ABC):
    """The loop's shared state (set by ``ListenLoop.__init__``) and shared acts."""

    session: Session
    recognizer: Recognizer
    voice: VoiceSettings
    settings: LoopSettings
    warn: Callable[[str], None]
    clock: LoopClock
    speaking: Speaking
    ears: Ears
    understanding: Understanding
    gate: Gate
    hints: Hints
    state: LoopState
    #: the owner of the pending command (its question or echo, seat, deadline, verdict)
    pendings: Pendings
    #: while a command is applied: the utterance it was heard in (None: typed)
    applying_from: Segment | None
    discarded: list[Discarded]
    heard_segments: int
    current: Segment | None
    voices: VoiceRuling | None
    on_phone: PhoneHeard | None
    _unanswered: tuple[str, float] | None
    _released: tuple[str, float] | None
    _heard_text: str | None
    #: the free words of the last decode (Whisper's), for the meaning stage
    free_heard: tuple[str, ...]
    #: the second engine's verdicts on echoes: (utterance, started, in at (stream time), CPU seconds)
    verdicts: list[tuple[Segment, float, float | None, float | None]]
    # figures for the docs, the game night and the session benchmark
    asked: int
    held: int
    undone: int
    released: int
    repeated: int
    corrected: int
    trimmed: int
    chatter: int
    verified: int
    withdrawn: int

    # -- what each part provides to the others (routing.py, conversation.py, applying.py,
    #    listen.py): an explicit interface, checked when ``ListenLoop`` is made
    @abstractmethod
    def _timers(self, t: float) -> None: ...
    @abstractmethod
    def _on_a_phone(self, segment: Segment) -> bool: ...
    @abstractmethod
    def _route(self, command: Command, hearing: Hearing) -> None: ...
    @abstractmethod
    def _stop_for_seat(self, command: Command, segment: Segment | None) -> bool: ...
    @abstractmethod
    def _decode_line(self, segment: Segment, grammar: RecognitionGrammar) -> Hypothesis | None: ...
    @abstractmethod
    def _refused_first(self, segment: Segment, first: FirstHearing | None) -> bool: ...
    @abstractmethod
    def _decode_as(self, segment: Segment, intents: frozenset[str], *,
                   answering: bool = False) -> Command | None: ...
    @abstractmethod
    def _rearm(self) -> None: ...
    @abstractmethod
    def _ask(self, key: str = "confirm-ask") -> None: ...
    @abstractmethod
    def _ask_by_name(self, command: Command) -> None: ...
    @abstractmethod
    def _hold(self) -> None: ...
    @abstractmethod
    def _release_hold(self, at: float | None = None) -> None: ...
    @abstractmethod
    def _settle_verdict(self) -> None: ...
    @abstractmethod
    def _hear_answer(self, segment: Segment) -> None: ...
    @abstractmethod
    def _hear_listening(self, segment: Segment) -> None: ...
    @abstractmethod
    def _hear_during_hold(self, segment: Segment) -> None: ...
    @abstractmethod
    def question_intents(self) -> frozenset[str]: ...
    @abstractmethod
    def _apply(self, command: Command, at: float | None = None, source: Segment | None = None) -> None: ...
    @abstractmethod
    def _execute(self, command: Command, source: Segment | None) -> Reply: ...
    @abstractmethod
    def _failed(self, said: list[str], usage: str | None) -> None: ...
    @abstractmethod
    def _usage_for(self, text: str) -> str | None: ...
    @abstractmethod
    def _control(self, intent: str) -> None: ...
    @abstractmethod
    def _apply_asked(self, pending: Pending) -> None: ...

    # -- the loop's parts, as every part sees them ---------------------------------------
    @property
    def captions(self) -> Captions:
        return self.speaking.captions

    @captions.setter
    def captions(self, captions: Captions) -> None:
        self.speaking.captions = captions

    @property
    def last_said(self) -> list[str]:
        return self.speaking.last_said

    @property
    def done(self) -> bool:
        """The game ended or was quit: nothing more is heard."""
        return self.state is LoopState.DONE

    @property
    def gated(self) -> bool:
        return self.gate.gated

    def now(self) -> float:
        """Loop time: stream seconds (a file), or wall clock mapped onto the stream (a mic)."""
        return self.clock.now()

    def recognition_grammar(self, intents: Iterable[str] | None) -> RecognitionGrammar:
        """The decoding grammar for ``intents`` (None: what is legal now), cached; with a yes
        or a no among them (a question's answers), the answer-only forms too."""
        return self.ears.recognition(intents, answers=answers_to(intents))

    def listening_grammar(self, intents: Iterable[str] | None = None, *,
                          bare_wake: bool = True) -> RecognitionGrammar:
        """The commands of ``intents`` (None: legal now) with an optional wake phrase before them.
        Never with the answer-only forms, even in an undo window: in the whole grammar of the
        moment, talk 20 dB below turned a "yes" into "that's not right" and took a guess back
        (a recorded session); a window's "yep" counts when the words are free text (Whisper,
        typed), and the window closes by itself anyway."""
        return self.ears.listening(intents, bare_wake=bare_wake)

    def wake_grammar(self) -> RecognitionGrammar:
        """While dormant: the wake phrase alone or before a command, and the commands
        legal now as competitors (a command without the wake phrase does not wake)."""
        return self.ears.listening(None)

    def _after_command(self) -> None:
        if self.state is LoopState.LISTENING and self.gated:
            self.state = LoopState.DORMANT

    @property
    def pending(self) -> Command | None:
        """The command waiting for its answer or its window (None: nothing pending)."""
        return self.pendings.command

    @property
    def pending_from(self) -> Segment | None:
        """The utterance the pending command was heard in."""
        current = self.pendings.current
        return current.segment if current is not None else None

    def _open(self, command: Command, segment: Segment | None,
              verification: Verification | None = None) -> Pending:
        """``command``, heard in ``segment``, is pending from now (its owner: that seat)."""
        return self.pendings.open(Pending(command, segment, heard=self._heard_text, verification=verification))

    def _tell_owner(self, pending: Pending | None, said: list[str]) -> None:
        """What the referee said about ``pending`` also goes to the phone of the seat that
        said it (``pending.py``), whoever spoke last."""
        if pending is not None and pending.seat is not None and said and self.on_phone is not None:
            self.on_phone(pending.seat, pending.heard, said)

    def _acting(self, command: Command) -> frozenset[int] | None:
        """The seats that may give ``command`` now (None: anyone; the lobby has no seats)."""
        acting = getattr(self.session.referee, "acting_seats", None)
        return acting(self.session.state, command) if acting is not None else None

    def _confirm(self, intent: str) -> str | None:
        grammar = self.session.grammar
        if intent in grammar.always_confirmed:
            return "always"
        if intent in grammar.confirmed:
            return "true"
        return "unsure" if intent in getattr(grammar, "echoed_unsure", ()) else None

    def _asides(self) -> frozenset[str]:
        """What answers aloud without changing the game."""
        queries: frozenset[str] = getattr(self.session.referee, "queries", frozenset())
        return ASIDES | CONTROLS | frozenset(queries)

    def _repeated(self, command: Command) -> bool:
        """Whether ``command`` was said again soon after it met silence."""
        if self._unanswered is None:
            return False
        canonical, at = self._unanswered
        return (canonical == command.canonical.lower()
                and self.now() - at <= self.settings.repeat_window_seconds)

    def _who(self, command: Command, segment: Segment | None) -> str:
        """Whose command this is, by the seat that said it: "take", "chatter" or "refuse"
        (nothing is said).  A phone's seat is certain; at the table the voiceprints say."""
        if segment is not None and segment.phone:
            acting = self._acting(command)
            return "take" if acting is None or segment.seat in acting else "refuse"
        if self.voices is not None and segment is not None:
            return self.voices.ruling(command, segment)
        return "take"

    def _caption(self, text: str) -> None:
        self._heard_text = text
        self.captions.heard(text)

    def _chatter(self) -> None:
        """Not understood and not addressed to the referee: silence."""
        self.chatter += 1
        if self.current is not None:
            self.discarded.append(Discarded(self.current, "chatter"))

    def _phrase(self, key: str, **fields: Any) -> str:
        return str(self.session.phrases.say(key, **fields))

    def _speak(self, sentences: list[str], remember: bool = True, at: float | None = None) -> float:
        """Say ``sentences`` with captions; return the loop time the deaf window ends."""
        before, self.state = self.state, LoopState.SPEAKING
        try:
            return self.speaking.say(sentences, remember=remember, at=at)
        finally:
            self.state = before

    def _earcon(self, name: str) -> None:
        self.speaking.earcon(name)
