"""The meaning stage: a line the grammar does not parse, placed among the commands legal now.

``MeaningStage.place(text, ...)`` gives a ``Placed``: the command most likely meant
among the intents allowed (legal now), with the values the line said (``slots.py``),
its intent's share against the other intents and against table talk (``model.py``),
and the margin to the next.  It never decides what to do: the caller (the listen loop's
policy, the typed session) asks what meaning found and applies it only on yes.

How sure is sure enough (``Limits``), chosen on the tuning lines by cross-validation:

* ``ask``: a placed command whose intent has at least this share is asked ("Did you
  mean: turn card one?") when the table addressed the referee (a typed line, a phone, the
  wake phrase, push-to-talk); ``unaddressed``: the same from the table's microphone
  with no word to the referee, where most lines are table talk;
* ``near``: a line whose best intent (not talk) has at least this share but could not
  be placed (no values for its slots, refused by the rules, below ``ask``) was clearly
  said to this game: it gets a short answer when the table addressed the referee;
* below: table talk, left alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..command import Command, RuntimeLists
from ..grammar import Grammar
from .examples import TALK, Example, grammar_examples, tuning_examples
from .model import IntentModel, row_of, sentence_text, train
from .slots import Lexicon, fill, nearness

Verdict = Literal["ask", "near", "talk"]
#: the intents placed in turn before a line is given up (the next may fill where one cannot)
TRIED = 3
#: the answers to a question: the model knows them (a "yeah go on" is no other command), but
#: they are the grammar's alone, never offered by meaning ("Did you mean: yes?")
ANSWERS = frozenset({"yes", "no", "cancel"})


@dataclass(frozen=True)
class Limits:
    ask: float = 0.5
    unaddressed: float = 0.8
    near: float = 0.3


DEFAULT = Limits()


@dataclass(frozen=True)
class Placed:
    """What the meaning stage found in one line."""

    command: Command | None
    #: the best intent (``examples.TALK``: table talk), and its share
    intent: str | None
    score: float
    #: the share of the best intent less the next one's (talk included)
    margin: float
    #: table talk's share
    talk: float
    verdict: Verdict


class MeaningStage:
    """One game's meaning stage (its model trained on first use, once, thread-safe)."""

    def __init__(self, game: str, grammar: Grammar, lists: RuntimeLists | None, *,
                 cache: Path | None = None, encode: Callable[[list[str]], object] | None = None,
                 encoder_id: str = "", limits: Limits = DEFAULT,
                 examples: Sequence[Example] | None = None) -> None:
        """``examples``: what to learn from (None: the grammar's forms and the tuning lines)."""
        self.game = game
        self.grammar = grammar
        self.lists = lists
        self.cache = cache
        self.encode = encode
        self.encoder_id = encoder_id
        self.limits = limits
        self._examples = examples
        self._model: IntentModel | None = None
        self._lexicons: dict[object, Lexicon] = {}
        self._lock = threading.Lock()

    @property
    def encoded(self) -> bool:
        return self.encode is not None

    def model(self) -> IntentModel:
        with self._lock:
            if self._model is None:
                examples = self._examples if self._examples is not None else \
                    grammar_examples(self.grammar, self.lists) + tuning_examples(self.grammar, self.game)
                self._model = train(self.lexicon(None), examples, self.encode,  # type: ignore[arg-type]
                                    self.cache, self.encoder_id)
            return self._model

    def lexicon(self, lists: RuntimeLists | None) -> Lexicon:
        merged = {**(self.lists or {}), **(lists or {})} or None
        key = None if merged is None else repr(sorted((k, sorted((v, tuple(p)) for v, p in vals.items()))
                                                      for k, vals in merged.items()))
        if key not in self._lexicons:
            if len(self._lexicons) > 8:
                self._lexicons.clear()
            self._lexicons[key] = Lexicon(self.grammar, merged)
        return self._lexicons[key]

    def place(self, text: str, *, intents: frozenset[str] | set[str] | None = None,
              lists: RuntimeLists | None = None, typed: bool = False,
              acceptable: Callable[[Command], bool] | None = None, addressed: bool = True,
              answering: bool = False) -> Placed:
        """``text`` placed among ``intents`` (None: every one of the game); ``acceptable``
        says whether the rules would take a command now (one they refuse is not offered);
        ``addressed``: the line was said to the referee (its limit to be asked is lower);
        ``answering``: a question is open and ``intents`` are its answers (yes, no, cancel,
        repeat): they are placed like any intent."""
        ask = self.limits.ask if addressed else self.limits.unaddressed
        lexicon = self.lexicon(lists)
        if not lexicon.words(text):
            return Placed(None, TALK, 1.0, 1.0, 1.0, "talk")
        model = self.model()
        vector = self.encode([sentence_text(lexicon, text)])[0] if self.encode is not None else None  # type: ignore[index]
        scores = model.scores(row_of(lexicon, text, vector), None if intents is None else frozenset(intents))
        order = sorted(scores.items(), key=lambda kv: -kv[1])
        if not order:
            return Placed(None, None, 0.0, 0.0, 0.0, "talk")
        talk = scores.get(TALK, 0.0)
        best, share = order[0]
        margin = share - (order[1][1] if len(order) > 1 else 0.0)
        for intent, p in order[:TRIED]:
            if intent == TALK or (intent in ANSWERS and not answering):
                break
            command = self._fill(lexicon, text, intent, typed, acceptable)
            if command is not None:
                verdict: Verdict = "ask" if p >= ask else "near" if p >= self.limits.near else "talk"
                return Placed(command, intent, p, p - max((s for i, s in order if i != intent), default=0.0),
                              talk, verdict)
        near = best != TALK and share >= self.limits.near
        return Placed(None, best, share, margin, talk, "near" if near else "talk")

    def _fill(self, lexicon: Lexicon, text: str, intent: str, typed: bool,
              acceptable: Callable[[Command], bool] | None) -> Command | None:
        """The command of ``intent`` the line's values make: the fewest values left unsaid,
        then the phrase nearest the line; the first the rules would take."""
        mentions = lexicon.spot(text)
        shapes = lexicon.shapes.get(intent, [])
        lists = {kin for shape in shapes for slot in shape.slots for kin in (slot.list, *lexicon.kin.get(slot.list, ()))}
        said = len({(m.start, m.end) for m in mentions if m.list_name in lists})
        words = " ".join(lexicon.words(text))
        ranked: list[tuple[int, float, str, dict[str, str]]] = []
        for shape in shapes:
            for canonical, values, _ in fill(shape, mentions, lexicon.kin):
                near = max((nearness(words, p) for p in lexicon.said(shape, values)), default=0.0)
                ranked.append((said - len(shape.slots), -near, canonical, values))
        for _, _, canonical, values in sorted(ranked, key=lambda r: (r[0], r[1], r[2])):
            command = Command(intent, canonical, dict(values), text, typed=typed)
            if acceptable is None or acceptable(command):
                return command
        return None
