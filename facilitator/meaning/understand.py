"""A line understood: by the grammar, or by meaning, or not at all (``understand``).

The grammar comes first and is the only way to a command applied as heard: its forms
were written to be said.  A line it does not parse goes to the meaning stage, whose
command is marked ``by = "meaning"``: the caller asks it ("Did you mean: turn card
one?") and applies it only on yes.  What the meaning stage could not place but found
clearly said to this game is ``near`` (a short answer when the table addressed the
referee); the rest is talk (silence).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from ..command import Command, NotRecognized, RuntimeLists
from ..grammar import Grammar
from .stage import MeaningStage

By = Literal["grammar", "meaning"]

#: the answers to an open question meaning may place a line among
ANSWERED = frozenset({"yes", "no", "cancel", "repeat"})
#: what a question does with an answer found by meaning: "no", "cancel" and "repeat" change
#: nothing in the game (the command is dropped, or asked again), so they are taken; a "yes"
#: found by meaning would apply a command on words no form holds, so it is not: the table
#: is asked for a plain yes or no
TAKEN_BY_MEANING = frozenset({"no", "cancel", "repeat"})


@dataclass(frozen=True)
class Understood:
    """How one line was understood."""

    command: Command | None
    #: how the command was found (None: no command)
    by: By | None = None
    #: the meaning stage's share for its intent, and its margin to the next (None: grammar)
    score: float | None = None
    margin: float | None = None
    #: the meaning stage's word on a line it did not place: "near" (clearly this game's),
    #: "talk", or None (the grammar parsed it, or meaning was not asked)
    verdict: str | None = None

    @property
    def asked(self) -> bool:
        """Found by meaning: it is asked, never applied as it stands."""
        return self.by == "meaning"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"command": self.command.canonical if self.command is not None else None,
                               "by": self.by}
        if self.score is not None:
            out["score"] = round(self.score, 3)
            out["margin"] = round(self.margin or 0.0, 3)
        if self.verdict is not None:
            out["verdict"] = self.verdict
        return out


def understand(text: str, *, grammar: Grammar, meaning: MeaningStage | None,
               intents: Iterable[str] | None = None, lists: RuntimeLists | None = None,
               typed: bool = True, answers: bool = False,
               acceptable: Callable[[Command], bool] | None = None, addressed: bool = True) -> Understood:
    """``text`` by the grammar, else by the meaning stage (see the module docstring).

    ``intents``: the commands legal now (None: all); ``answers``: a question is open
    (its answer-only forms count, and meaning places the line among the answers; only
    those of ``TAKEN_BY_MEANING`` may be taken); ``addressed``: said to the referee (``Limits.unaddressed``
    otherwise)."""
    allowed = frozenset(intents) if intents is not None else None
    parsed = grammar.parse(text, lists=lists, intents=allowed, typed=typed, answers=answers)
    if not isinstance(parsed, NotRecognized):
        return Understood(parsed, "grammar")
    if meaning is None:
        return Understood(None)
    if answers:   # a question's answers: placed among them only (taken: TAKEN_BY_MEANING)
        allowed = frozenset(allowed or ()) & ANSWERED
    placed = meaning.place(text, intents=allowed, lists=lists, typed=typed, acceptable=acceptable,
                           addressed=addressed, answering=answers)
    if placed.command is not None and placed.verdict == "ask":
        return Understood(placed.command, "meaning", placed.score, placed.margin)
    return Understood(None, None, placed.score, placed.margin, placed.verdict)
