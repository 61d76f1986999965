"""The understand stage of the listen loop: what was heard -> what it means.

The hearing path is a chain of stages, each taking a value and giving one::

    Segment --admit--> Segment --hear (ears.py)--> Heard --understand (here)--> Understood
        --decide (policy.take)--> Take --act (the loop: ask, hold, apply, answer, silence)

``Heard`` is one utterance as the recognizers gave it: the words of the grammar they
chose (after a wake phrase), what a free transcriber wrote (Whisper's n-best), whether
the table addressed the referee and what the fast engine heard first.  ``Understanding``
turns it into ``meaning.Understood``: the grammar's command for the words when they
parse (``by = "grammar"``), else the meaning stage's placing of the free words among the
commands the rules would take now (``by = "meaning"``: asked, never applied as heard),
else nothing, with the meaning stage's word on whether the line was near a command.

Two rules of hearing live here because they are about words, not about what to do:

* a meaning-found command the table already declined ("no", or no answer) is not asked
  again from an unaddressed line for ``DECLINED_SECONDS``: table talk that lands near a
  command is asked at most once;
* the words of the grammar and the free words read as two different commands: the free
  words' command, not sure (the closed set's nearest phrase took "card one" for "card two"
  while the free words said one: Clover applied the wrong card);
* a voice control (``VOICE_CONTROLS``) is *heard sure* only when the recognizer is sure
  and the free words, where there are any, say that control too: "okay so submit south
  west east north" decoded to "softer" by the closed grammar is not softer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...command import Command
from ...meaning import TAKEN_BY_MEANING, Understood, understand
from ..base import Hypothesis, Segment

#: the controls of the referee's voice and ears that a misheard line must never change
VOICE_CONTROLS = frozenset({"louder", "softer", "slower", "faster", "stop listening"})
#: how long a declined meaning question is not asked again from table talk
DECLINED_SECONDS = 60.0
#: the free transcriber's hypotheses read by the meaning stage, best first
FREE_READ = 2


@dataclass(frozen=True)
class Heard:
    """One utterance as heard while listening (the hear stage's value)."""

    segment: Segment | None
    hypothesis: Hypothesis | None
    #: the recognized words after a wake phrase (a phrase of the grammar, or Whisper's text)
    words: str
    #: the table addressed the referee (wake phrase heard sure, push-to-talk, a phone)
    addressed: bool
    #: the intent of the fast engine's first hearing (two engines), if it had one
    first_intent: str | None = None

    @property
    def free(self) -> tuple[str, ...]:
        return self.hypothesis.free if self.hypothesis is not None else ()

    @property
    def sure(self) -> bool:
        return self.hypothesis is not None and self.hypothesis.sure


class Understanding:
    """The understand stage for one session (its grammar, its meaning stage, its rules)."""

    def __init__(self, session: Any, command: Callable[[str], Command | None],
                 acceptable: Callable[[Command], bool], split_wake: Callable[[str], str],
                 now: Callable[[], float]) -> None:
        self.session = session
        self._command = command
        self._acceptable = acceptable
        self._split_wake = split_wake
        self._now = now
        self._declined: dict[str, float] = {}

    @property
    def meaning(self) -> Any:
        return getattr(self.session, "meaning", None)

    def of(self, heard: Heard) -> Understood:
        """``heard`` understood (see the module docstring)."""
        if heard.words.strip():
            command = self._command(heard.words)
            if command is not None:
                other = self._free_command(heard)
                if other is not None and other.canonical.lower() != command.canonical.lower():
                    return Understood(other, "grammar", verdict="contradicted")
                return Understood(command, "grammar")
        found = Understood(None)
        stage = self.meaning
        if stage is None or not heard.free:
            return found
        game = self.session.referee
        for text in heard.free[:FREE_READ]:
            said = self._split_wake(text)
            if not said.strip():
                continue
            got = understand(said, grammar=self.session.grammar, meaning=stage, typed=False,
                             intents=self.session.legal_intents(), lists=game.runtime_lists(self.session.state),
                             acceptable=self._acceptable, addressed=heard.addressed)
            if got.command is not None:
                if got.by == "meaning" and not heard.addressed and self._was_declined(got.command):
                    return Understood(None, None, got.score, got.margin, "talk")
                return got
            if found.verdict != "near":
                found = got
        return found

    def answer(self, free: tuple[str, ...], answers: frozenset[str]) -> Command | None:
        """An answer to the open question that only meaning found in the free words: taken
        when it changes nothing in the game (no, cancel, repeat: ``TAKEN_BY_MEANING``); a
        "yes" must be the grammar's, so none is given for it."""
        stage = self.meaning
        if stage is None:
            return None
        for text in free[:FREE_READ]:
            said = self._split_wake(text)
            if not said.strip():
                continue
            got = understand(said, grammar=self.session.grammar, meaning=stage, typed=False, answers=True,
                             intents=answers, lists=self.session.referee.runtime_lists(self.session.state))
            if got.command is not None:
                return got.command if got.command.intent in TAKEN_BY_MEANING else None
        return None

    def _free_command(self, heard: Heard) -> Command | None:
        """The command the best free words say by the grammar, if any."""
        for text in heard.free[:1]:
            said = self._split_wake(text)
            if said.strip():
                return self._command(said)
        return None

    def sure_of(self, command: Command, heard: Heard) -> bool:
        """Whether ``command``, found by the grammar in ``heard``, is heard sure: the
        recognizer is sure, and a voice control is also what the free words say."""
        return heard.sure and (command.intent not in VOICE_CONTROLS or self.said_freely(command, heard))

    def said_freely(self, command: Command, heard: Heard) -> bool:
        """Whether the free words (where there are any) say ``command`` when it is a voice
        control: one they do not say was the closed grammar's nearest phrase for other
        words ("okay so submit south west east north" -> "softer"), never the player's."""
        if command.intent not in VOICE_CONTROLS or not heard.free:
            return True
        for text in heard.free[:FREE_READ]:
            said = self._command(self._split_wake(text))
            if said is not None and said.intent == command.intent:
                return True
        return False

    def declined(self, command: Command) -> None:
        """A meaning question about ``command`` was answered no or not at all."""
        self._declined[command.canonical.lower()] = self._now()

    def _was_declined(self, command: Command) -> bool:
        at = self._declined.get(command.canonical.lower())
        return at is not None and self._now() - at <= DECLINED_SECONDS
