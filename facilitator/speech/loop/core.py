"""What every part of the listen loop shares: its states, its stages and its small acts.

``ListenLoop`` (``listen.py``) is one state machine; its work is split by concern:
``routing.py`` takes one utterance through the stages (admit, who spoke, hear,
decide), ``conversation.py`` holds the pending command (the question, the echo,
its undo window and the second engine's verdict) and applies commands.  This base
declares the state they share and the acts they all use (speak, a sound, a caption,
silence); each part calls the others only through the names declared here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from ...command import Command
from ...session import CONTROLS, Reply, Session
from ..base import Recognizer, Segment, VoiceSettings
from .captions import Captions
from .clock import LoopClock
from .ears import Ears
from .gate import Gate
from .hints import Hints
from .policy import Hearing
from .settings import LoopSettings
from .speaking import Speaking
from .verify import Verification

if TYPE_CHECKING:
    from ..voices.voice_turns import VoiceTurns

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
    reason: str  # "half-duplex", "not-armed", "paused", "chatter"


#: a phone's utterance answered: (seat, what was heard or None, what the referee said)
PhoneHeard = Callable[[int, str | None, list[str]], None]

_COUNTS = ("asked", "held", "undone", "released", "repeated", "corrected", "trimmed", "chatter",
           "verified", "withdrawn")


class LoopCore:
    """The loop's shared state (set by ``ListenLoop.__init__``) and shared acts."""

    session: Session
    recognizer: Recognizer
    voice: VoiceSettings
    settings: LoopSettings
    warn: Callable[[str], None]
    clock: LoopClock
    speaking: Speaking
    ears: Ears
    gate: Gate
    hints: Hints
    state: LoopState
    pending: Command | None
    #: the utterance a pending command was heard in (its echo or question answers it)
    pending_from: Segment | None
    #: while a command is applied: the utterance it was heard in (None: typed)
    applying_from: Segment | None
    discarded: list[Discarded]
    heard_segments: int
    current: Segment | None
    voices: VoiceTurns | None
    on_phone: PhoneHeard | None
    _deadline: float | None
    _verification: Verification | None
    _prompts: int
    _unanswered: tuple[str, float] | None
    _released: tuple[str, float] | None
    _heard_text: str | None
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

    if TYPE_CHECKING:   # the parts' names for each other (defined in routing.py and conversation.py)
        @property
        def captions(self) -> Captions: ...
        @property
        def gated(self) -> bool: ...
        @property
        def done(self) -> bool: ...
        @property
        def last_said(self) -> list[str]: ...
        def now(self) -> float: ...
        def _timers(self, t: float) -> None: ...
        def _on_a_phone(self, segment: Segment) -> bool: ...
        def listening_grammar(self, intents: Any = None, *, bare_wake: bool = True) -> Any: ...
        def wake_grammar(self) -> Any: ...
        def recognition_grammar(self, intents: Any) -> Any: ...
        def _route(self, command: Command, hearing: Hearing) -> None: ...
        def _rearm(self) -> None: ...
        def _decode_as(self, segment: Segment, intents: frozenset[str], *,
                       answering: bool = False) -> Command | None: ...
        def _ask(self, key: str = "confirm-ask") -> None: ...
        def _hold(self) -> None: ...
        def _apply(self, command: Command, at: float | None = None, source: Segment | None = None) -> None: ...
        def _execute(self, command: Command, source: Segment | None) -> Reply: ...
        def _failed(self, said: list[str], usage: str | None) -> None: ...
        def _usage_for(self, text: str) -> str | None: ...
        def _control(self, intent: str) -> None: ...
        def _settle_verdict(self) -> None: ...
        def _hear_answer(self, segment: Segment) -> None: ...
        def _hear_during_hold(self, segment: Segment) -> None: ...
        def _after_command(self) -> None: ...
        def question_intents(self) -> frozenset[str]: ...

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
