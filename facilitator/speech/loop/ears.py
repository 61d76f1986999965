"""The hearing stage: an utterance decoded under the grammar of the moment, and its words parsed.

A recognizer failure on one utterance is a "say again", never a crash.  A
``TwoStage`` recognizer (pocketsphinx with Whisper) can also hear in two steps:
``first`` is the fast engine alone, ``verify`` the two engines' verdict on it (the
loop may compute that beside the echo, see ``verify.py``).  ``acceptable`` asks the
pure referee whether the rules would take a command now (nothing is logged).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from ...command import Command, NotRecognized, RuntimeLists
from ...errors import FacilitatorError, IllegalCommandError
from ...session import CONFIRMATIONS, ENROL, LOBBY
from ..base import FirstHearing, Hypothesis, RecognitionGrammar, Recognizer, Segment
from ..engines.grammar_build import split_wake
from .grammars import GrammarBuilder, LoopGrammars

#: the intents whose answer-only forms are heard while a question or window is open
ANSWER_INTENTS = frozenset({"yes", "no"})


def answers_to(intents: Iterable[str] | None) -> bool:
    """Whether ``intents`` answer a question (a yes or a no among them), so the answer-only
    forms ("yep", "sure", "that's right") are heard with them."""
    return intents is not None and bool(ANSWER_INTENTS & frozenset(intents))


class Ears:
    def __init__(self, session: Any, recognizer: Recognizer, builder: GrammarBuilder | None = None) -> None:
        self.session = session
        self.recognizer = recognizer
        self.grammars = LoopGrammars(session, builder)

    @property
    def can_be_sure(self) -> bool:
        """Whether the recognizer is ever sure (pocketsphinx alone, the light mode, never is)."""
        return bool(getattr(self.recognizer, "can_be_sure", True))

    @property
    def transcribes(self) -> bool:
        """Whether the recognizer's hearings carry free words (Whisper beside pocketsphinx)."""
        return bool(getattr(self.recognizer, "transcribes", False))

    @property
    def two_stage(self) -> bool:
        """Whether the recognizer can hear first and verify later."""
        return hasattr(self.recognizer, "hear_first") and hasattr(self.recognizer, "verify")

    # -- grammars ------------------------------------------------------------------
    def lists(self) -> RuntimeLists:
        return self.session.referee.runtime_lists(self.session.state)  # type: ignore[no-any-return]

    def recognition(self, intents: Iterable[str] | None, *, answers: bool = False) -> RecognitionGrammar:
        return self.grammars.recognition(intents, answers=answers)

    def listening(self, intents: Iterable[str] | None = None, *, bare_wake: bool = True,
                  answers: bool = False) -> RecognitionGrammar:
        return self.grammars.listening(intents, bare_wake=bare_wake, answers=answers)

    def wake_phrases(self) -> tuple[str, ...]:
        return self.grammars.wake_phrases()

    # -- decoding ------------------------------------------------------------------
    def decode(self, segment: Segment, grammar: RecognitionGrammar) -> Hypothesis | None:
        if not segment.pcm:
            return None
        try:
            return self.recognizer.decode(segment.pcm, grammar)
        except FacilitatorError:
            return None

    def first(self, segment: Segment, grammar: RecognitionGrammar) -> FirstHearing | None:
        """The fast engine's hearing (None: the recognizer has one stage, or it failed)."""
        if not segment.pcm or not self.two_stage:
            return None
        try:
            return self.recognizer.hear_first(segment.pcm, grammar)  # type: ignore[attr-defined, no-any-return]
        except FacilitatorError:
            return None

    def verify(self, segment: Segment, grammar: RecognitionGrammar, first: FirstHearing) -> Hypothesis | None:
        try:
            return self.recognizer.verify(segment.pcm, grammar, first)  # type: ignore[attr-defined, no-any-return]
        except FacilitatorError:
            return None

    def complete(self, pcm: bytes, grammar: RecognitionGrammar | None) -> bool:
        check = getattr(self.recognizer, "is_complete", None)
        if check is None or grammar is None:
            return False
        try:
            return bool(check(pcm, grammar))
        except FacilitatorError:
            return False

    # -- words ---------------------------------------------------------------------
    def split_wake(self, hyp: Hypothesis | None) -> tuple[bool, str]:
        """(whether the words start with a wake phrase, the words after it)."""
        if hyp is None:
            return False, ""
        woke, rest = split_wake(hyp.text, self.wake_phrases())
        return woke, rest if woke else hyp.text

    def words_after_wake(self, text: str) -> str:
        """``text`` without a wake phrase before it (the whole text when it has none)."""
        woke, rest = split_wake(text, self.wake_phrases())
        return rest if woke else text

    def answer(self, text: str, intents: frozenset[str], *, typed: bool = False) -> Command | None:
        """``text`` as one of ``intents`` (an answer to a question, a control while paused).
        When ``intents`` hold a yes or a no, the answer-only forms count too ("yep", "that's
        right"): they are answers only while a question or an undo window is open."""
        if not text.strip():
            return None
        got = self.session.grammar.parse(text, intents=intents, typed=typed, lists=self.lists(),
                                         answers=answers_to(intents))
        return None if isinstance(got, NotRecognized) else got

    def command(self, text: str) -> Command | None:
        """``text`` as a command legal now (the state-narrowed grammar)."""
        parsed = self.session.parse(text, typed=False, narrow=True)
        return None if isinstance(parsed, NotRecognized) else parsed

    def acceptable(self, command: Command) -> bool:
        """Whether the session would accept ``command`` now: an illegal command is refused
        at once rather than echoed.  Uses the pure referee; nothing is logged."""
        session = self.session
        own = getattr(session, "acceptable", None)
        if own is not None:   # the lobby says itself what a confirmation would do
            return bool(own(command))
        if command.intent in LOBBY or command.intent in CONFIRMATIONS:
            return False
        if command.intent == "quit" or command.intent in session.referee.queries:
            return True
        if command.intent == ENROL:   # asked first, where voice turns can take it
            return bool(getattr(session, "learns_voices", False))
        try:
            session.referee.decide(session.state, command, random.Random(0))
        except IllegalCommandError:
            return False
        return True
