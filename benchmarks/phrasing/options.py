"""``python -m benchmarks phrasing options``: the ways to place a line the grammar does not
parse, weighed on the phrasing corpora.

Every option gets the same line after the grammar failed, the same intents legal in its
state, and the same slot filling (``facilitator/meaning/slots.py``); what differs is how
the intent is chosen and how sure it must be:

* ``grammar``: nothing beside the grammar (what a table got before the meaning stage);
* ``nearest``: the phrase of the legal commands nearest by spelling (rapidfuzz ``ratio``),
  accepted at 88 and 6 ahead of any other command, as the free-text step took Whisper's
  text before (its command, not its words: the values are the line's own);
* ``knn``: the example sentence nearest by all-MiniLM-L6-v2's vector (cosine), its intent
  taken when at least ``KNN_AT`` near and nearer than any table talk;
* ``words``: the product's model on its word features alone (no sentence encoder: the
  light install);
* ``product``: the product's model, words and sentence vector (``facilitator/meaning``).

The thresholds of ``knn``, ``words`` and ``product`` are chosen on the tuning lines by
five-fold cross-validation (``--cv``: each fold is placed by a model that never saw it),
then held: the held-out halves are only scored.  A line is understood when the grammar
applies the right command or the option asks it; *asked wrong* is a question answered
"no"; *talk answered* is table talk that got a command or a question.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.phrasing import corpus
from facilitator.command import Command
from facilitator.grammar import Grammar
from facilitator.meaning import Limits, MeaningStage, stage_for
from facilitator.meaning.examples import TALK, Example, grammar_examples, tuning_examples
from facilitator.meaning.model import sentence_text
from facilitator.meaning.slots import Lexicon

OPTIONS = ("grammar", "nearest", "knn", "words", "product")
NEAREST_AT, NEAREST_MARGIN = 88.0, 6.0
KNN_AT = 0.7
SEED = 0


@dataclass
class Score:
    lines: int = 0
    understood: int = 0
    asked_wrong: int = 0
    applied_wrong: int = 0
    talk: int = 0
    talk_answered: int = 0
    seconds: float = 0.0
    placed: int = 0

    def row(self) -> dict[str, Any]:
        return {"commands": self.lines, "understood": self.understood,
                "share": round(self.understood / self.lines, 3) if self.lines else 0.0,
                "asked wrong": self.asked_wrong, "applied wrong": self.applied_wrong,
                "talk": self.talk, "talk answered": self.talk_answered,
                "ms a line placed": round(1000 * self.seconds / self.placed, 1) if self.placed else None}


Placer = Callable[[corpus.Line], Command | None]


def _examples(game: str, grammar: Grammar, exclude: set[str]) -> list[Example]:
    lists = corpus.lists(game)
    kept = [e for e in tuning_examples(grammar, game) if e.text not in exclude]
    return grammar_examples(grammar, lists) + kept


def _stage(game: str, exclude: set[str], encoded: bool) -> MeaningStage:
    base = stage_for(game)
    return MeaningStage(game, base.grammar, base.lists, cache=base.cache,
                        encode=base.encode if encoded else None, encoder_id=base.encoder_id if encoded else "",
                        examples=_examples(game, base.grammar, exclude))


def model_placer(encoded: bool, ask: float, exclude: set[str]) -> Placer:
    stages: dict[str, MeaningStage] = {}

    def place(line: corpus.Line) -> Command | None:
        stage = stages.setdefault(line.game, _stage(line.game, exclude, encoded))
        stage.limits = Limits(ask=ask, near=min(ask, stage.limits.near))
        placed = stage.place(line.text, intents=corpus.intents(line), lists=corpus.lists(line.game))
        return placed.command if placed.verdict == "ask" else None
    return place


def nearest_placer() -> Placer:
    from rapidfuzz import fuzz

    def place(line: corpus.Line) -> Command | None:
        grammar = corpus.grammar(line.game)
        stage = stage_for(line.game)
        lexicon = stage.lexicon(corpus.lists(line.game))
        words = " ".join(lexicon.words(line.text))
        best: dict[str, float] = {}
        for phrase in _phrases(line):
            parsed = grammar.parse(phrase, intents=corpus.intents(line), lists=corpus.lists(line.game), typed=False)
            if not isinstance(parsed, Command):
                continue
            near = float(fuzz.ratio(words, phrase))
            best[parsed.intent] = max(best.get(parsed.intent, 0.0), near)
        order = sorted(best.items(), key=lambda kv: -kv[1])
        if not order or order[0][1] < NEAREST_AT or (len(order) > 1 and order[0][1] - order[1][1] < NEAREST_MARGIN):
            return None
        return stage._fill(lexicon, line.text, order[0][0], True, None)
    return place


_PHRASES: dict[tuple[str, str], list[str]] = {}


def _phrases(line: corpus.Line) -> list[str]:
    key = (line.game, line.state)
    if key not in _PHRASES:
        phrases = corpus.grammar(line.game).spoken_phrases(intents=corpus.intents(line), lists=corpus.lists(line.game))
        _PHRASES[key] = random.Random(SEED).sample(phrases, min(len(phrases), 3000))
    return _PHRASES[key]


def knn_placer(at: float, exclude: set[str]) -> Placer:
    known: dict[str, tuple[list[Example], np.ndarray[Any, Any], Lexicon]] = {}

    def place(line: corpus.Line) -> Command | None:
        stage = stage_for(line.game)
        if stage.encode is None:
            return None
        if line.game not in known:
            lexicon = stage.lexicon(None)
            examples = _examples(line.game, stage.grammar, exclude)
            vectors = np.concatenate([stage.encode([sentence_text(lexicon, e.text) for e in examples[k:k + 64]])
                                      for k in range(0, len(examples), 64)])
            known[line.game] = (examples, vectors, lexicon)
        examples, vectors, lexicon = known[line.game]
        vector = stage.encode([sentence_text(lexicon, line.text)])[0]
        near = vectors @ vector
        allowed = corpus.intents(line)
        best: dict[str, float] = {}
        for example, similarity in zip(examples, near):
            if example.intent == TALK or allowed is None or example.intent in allowed:
                best[example.intent] = max(best.get(example.intent, -1.0), float(similarity))
        for intent, similarity in sorted(best.items(), key=lambda kv: -kv[1])[:3]:
            if intent == TALK or similarity < at:
                return None
            command = stage._fill(lexicon, line.text, intent, True, None)
            if command is not None:
                return command
        return None
    return place


def score(lines: list[corpus.Line], placer: Placer | None) -> Score:
    out = Score()
    for line in lines:
        grammar = corpus.grammar(line.game)
        parsed = grammar.parse(line.text, intents=corpus.intents(line), lists=corpus.lists(line.game),
                               answers=line.state == "question")
        asked = None
        if not isinstance(parsed, Command) and placer is not None and line.state != "question":
            began = time.process_time()
            asked = placer(line)
            out.seconds += time.process_time() - began
            out.placed += 1
        applied = parsed if isinstance(parsed, Command) else None
        if line.talk:
            out.talk += 1
            out.talk_answered += applied is not None or asked is not None
            continue
        out.lines += 1
        want = (line.expected or "").lower()
        if applied is not None:
            out.understood += applied.canonical.lower() == want
            out.applied_wrong += applied.canonical.lower() != want
        elif asked is not None:
            out.understood += asked.canonical.lower() == want
            out.asked_wrong += asked.canonical.lower() != want
    return out


def placer_of(option: str, threshold: float | None, exclude: set[str]) -> Placer | None:
    if option == "grammar":
        return None
    if option == "nearest":
        return nearest_placer()
    if option == "knn":
        return knn_placer(KNN_AT if threshold is None else threshold, exclude)
    ask = Limits().ask if threshold is None else threshold
    return model_placer(option == "product", ask, exclude)


def cross_validate(option: str, threshold: float | None, folds: int = 5) -> Score:
    """Five folds of the tuning lines, each placed by a model that never saw it."""
    lines = [line for half in ("tuning", "wide_tuning", "third_tuning") for line in corpus.read(half)]
    random.Random(SEED).shuffle(lines)
    total = Score()
    for k in range(folds):
        held = lines[k::folds]
        got = score(held, placer_of(option, threshold, {line.text for line in held}))
        for field in ("lines", "understood", "asked_wrong", "applied_wrong", "talk", "talk_answered", "placed"):
            setattr(total, field, getattr(total, field) + getattr(got, field))
        total.seconds += got.seconds
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks phrasing options", description=__doc__.splitlines()[0])
    parser.add_argument("--options", default=",".join(OPTIONS))
    parser.add_argument("--cv", default="", help="thresholds to cross-validate, e.g. product:0.4,0.5,0.6")
    args = parser.parse_args(argv)
    for spec in filter(None, args.cv.split(";")):
        option, _, values = spec.partition(":")
        for value in (float(v) for v in values.split(",")):
            print(f"cv {option} at {value}: {cross_validate(option, value).row()}", flush=True)
    for option in args.options.split(","):
        for half in corpus.HELD_OUT:
            got = score(corpus.read(half), placer_of(option, None, set()))
            print(f"{option:8} {half:14} {got.row()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
