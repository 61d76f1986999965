"""What became of one line: applied, asked, missed, wrong; its form class and how it was found.

A line is *understood* when the command the table would get is the one meant: parsed by
the grammar (applied, or echoed as a voice command is), or found by meaning and asked
("Did you mean ...?"), which a "yes" then applies.  A wrong command is *applied wrong*
(the grammar's: a wrong action unless a voice echo is taken back) or *asked wrong* (a
question the player answers "no").  Table talk is *answered* when it gives any command
(applied or asked) and *changes the game* when the grammar's command would change it.

The form class of a line says which part of the product understands it:

* ``grammar``: one of the grammar's own forms as written (contractions aside);
* ``loose``: one of the grammar's loose forms (typed and free text only);
* ``filler``: a form once the skip words around it are read away ("okay so ...");
* ``outside``: no form of the grammar: only the meaning stage can place it.

An answer to an open question found by meaning is taken when it is a no, a cancel or a
repeat (nothing changes in the game), and counts then as applied; a yes found by meaning is
not taken (the table is asked for a plain yes or no) and counts as missed.

A spoken line's command found by the grammar is then taken as play takes it
(``policy.take``, ``taken``): applied (at once, or echoed with its undo window), asked
("... Is that right?": the light mode asks every command that can be taken back, since
pocketsphinx alone is never sure), or met with silence (an unsure query or a command that
cannot be taken back, unaddressed, on its first hearing).  So a wrong phrase the light
mode forced onto natural words is scored as the question it becomes, not as an action;
typed lines are applied as parsed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from typing import Any

from benchmarks.phrasing import corpus
from facilitator.command import Command, NotRecognized
from facilitator.games import find_game
from facilitator.grammar import Grammar, normalize
from facilitator.meaning import TAKEN_BY_MEANING, MeaningStage, Understood, stage_for, understand
from facilitator.session import CONTROLS
from facilitator.speech.loop.core import ASIDES
from facilitator.speech.loop.policy import Hearing, Take, take
from facilitator.speech.loop.understanding import VOICE_CONTROLS

FORMS = ("grammar", "loose", "filler", "outside")
OUTCOMES = ("applied", "asked", "applied wrong", "asked wrong", "missed")


@dataclass(frozen=True)
class Result:
    line: corpus.Line
    understood: Understood
    form: str
    #: what play did with a spoken line's grammar command: "applied", "asked" or "silent"
    #: (``taken``); None: typed, or found by meaning (asked)
    taken: str | None = None

    @property
    def outcome(self) -> str:
        command = self.understood.command
        if self.taken == "silent":
            command = None
        if self.line.talk:
            if command is None:
                return "silent"
            return "asked" if self.understood.asked or self.taken == "asked" else "applied"
        if command is None:
            return "missed"
        right = command.canonical.lower() == (self.line.expected or "").lower()
        if self.line.state == "question" and self.understood.asked:
            # an answer found by meaning: no, cancel and repeat are taken as said; a yes is not
            # (the table is asked for a plain yes or no)
            if command.intent not in TAKEN_BY_MEANING:
                return "missed"
            return "applied" if right else "applied wrong"
        if self.understood.asked or self.taken == "asked":
            return "asked" if right else "asked wrong"
        return "applied" if right else "applied wrong"

    @property
    def right(self) -> bool:
        return not self.line.talk and self.outcome in ("applied", "asked")


def form_class(line: corpus.Line) -> str:
    """The line's form class (see the module docstring), in its state."""
    grammar = corpus.grammar(line.game)
    found = grammar.match(line.text, intents=corpus.intents(line), lists=corpus.lists(line.game),
                          answers=line.state == "question")
    if found is None:
        return "outside"
    form, _ = found
    if form.loose:
        return "loose"
    norm = normalize(line.text)
    plain = {norm, grammar.uncontract(norm)}
    compiled = grammar._compiled(corpus.lists(line.game), True)
    allowed = corpus.intents(line)
    for reading in plain:
        if grammar._parse_reading(line.text, reading, compiled, None if allowed is None else set(allowed),
                                  True, line.state == "question", corpus.lists(line.game)) is not None:
            return "grammar"
    return "filler"


@cache
def _stage(game: str) -> MeaningStage:
    return stage_for(game)


def understood(line: corpus.Line, *, meaning: bool = True, stage: MeaningStage | None = None,
               addressed: bool = True) -> Understood:
    """The line as typed, in its state: the grammar, then (``meaning``) the meaning stage;
    ``addressed=False``: its limit for a line from the table's microphone with no word to
    the referee (``Limits.unaddressed``)."""
    grammar: Grammar = corpus.grammar(line.game)
    return understand(line.text, grammar=grammar, meaning=(stage or _stage(line.game)) if meaning else None,
                      intents=corpus.intents(line), lists=corpus.lists(line.game),
                      answers=line.state == "question", addressed=addressed)


def heard(line: corpus.Line, text: str, free: tuple[str, ...], *, addressed: bool = True) -> Understood:
    """A spoken line as play understands it: the recognizers' phrase by the grammar, else the
    free words (Whisper's) through the grammar and the meaning stage."""
    grammar: Grammar = corpus.grammar(line.game)
    answers = line.state == "question"
    if text:
        parsed = grammar.parse(text, intents=corpus.intents(line), lists=corpus.lists(line.game), typed=False,
                               answers=answers)
        if not isinstance(parsed, NotRecognized):
            other = grammar.parse(free[0], intents=corpus.intents(line), lists=corpus.lists(line.game),
                                  typed=False, answers=answers) if free else None
            if isinstance(other, Command) and other.canonical.lower() != parsed.canonical.lower():
                return Understood(other, "grammar", verdict="contradicted")   # as the listen loop reads it
            return Understood(parsed, "grammar")
    if not free:
        return Understood(None)
    return understand(free[0], grammar=grammar, meaning=_stage(line.game), intents=corpus.intents(line),
                      lists=corpus.lists(line.game), typed=False, answers=answers, addressed=addressed)


def taken(line: corpus.Line, found: Understood, *, sure: bool, addressed: bool, can_be_sure: bool) -> str | None:
    """What play does with a spoken line's grammar command (``policy.take`` on its first
    hearing, the rules taken to accept it): "applied", "asked" or "silent"; None for an
    answer to an open question, a meaning-found command (always asked) or no command."""
    command = found.command
    if command is None or found.by != "grammar" or line.state == "question":
        return None
    grammar: Grammar = corpus.grammar(line.game)
    intent = command.intent
    confirm = ("always" if intent in grammar.always_confirmed else "true" if intent in grammar.confirmed
               else "unsure" if intent in getattr(grammar, "echoed_unsure", ()) else None)
    aside = intent in ASIDES | CONTROLS | find_game(line.game).queries
    sure = sure and found.verdict != "contradicted"
    verdict = take(Hearing(sure=sure, addressed=addressed, can_be_sure=can_be_sure), aside=aside,
                   confirm=confirm, acceptable=True, control=intent in VOICE_CONTROLS)
    if verdict is Take.CHATTER:
        return "silent"
    return "asked" if verdict is Take.ASK else "applied"


def results(half: str, *, meaning: bool = True, addressed: bool = True) -> list[Result]:
    return [Result(line, understood(line, meaning=meaning, addressed=addressed), form_class(line))
            for line in corpus.read(half)]


def tally(rows: list[Result]) -> dict[str, Any]:
    """The counts the reports print: understood, by outcome, by form class and found-by,
    by register and game; table talk answered and changing the game."""
    commands = [r for r in rows if not r.line.talk]
    talk = [r for r in rows if r.line.talk]
    outcomes = Counter(r.outcome for r in commands)
    by_form: dict[str, Counter[str]] = defaultdict(Counter)
    by_register: dict[str, Counter[str]] = defaultdict(Counter)
    by_game: dict[str, Counter[str]] = defaultdict(Counter)
    found_by: Counter[str] = Counter()
    for r in commands:
        for table, key in ((by_form, r.form), (by_register, r.line.register), (by_game, r.line.game)):
            table[key]["lines"] += 1
            table[key]["right"] += r.right
        if r.right:
            found_by[r.understood.by or "-"] += 1
    answered = [r for r in talk if r.outcome != "silent"]
    changing = [r for r in answered if r.outcome == "applied"
                and corpus.changes_game(r.line.game, r.understood.command.intent)]   # type: ignore[union-attr]
    right = sum(r.right for r in commands)
    # a wrong command applied that changes the game (a wrong query answered costs a sentence)
    wrong_actions = [r for r in commands if r.outcome == "applied wrong"
                     and corpus.changes_game(r.line.game, r.understood.command.intent)]  # type: ignore[union-attr]
    return {
        "natural": len(commands), "understood": right,
        "share": round(right / len(commands), 3) if commands else 0.0,
        "outcomes": dict(outcomes), "wrong actions": len(wrong_actions), "found by": dict(found_by),
        "per form": {k: f"{v['right']}/{v['lines']}" for k, v in sorted(by_form.items(), key=lambda kv: FORMS.index(kv[0]))},
        "per register": {k: f"{v['right']}/{v['lines']}" for k, v in sorted(by_register.items())},
        "per game": {k: f"{v['right']}/{v['lines']}" for k, v in sorted(by_game.items())},
        "talk lines": len(talk),
        "talk answered": [f"{r.line.text!r} -> {r.understood.command.canonical} ({r.understood.by})"  # type: ignore[union-attr]
                          for r in answered],
        "talk changes game": [f"{r.line.text!r} -> {r.understood.command.canonical}" for r in changing],  # type: ignore[union-attr]
        "missed": [f"{r.line.game} [{r.line.state}] {r.line.text!r} -> "
                   f"{r.understood.command.canonical if r.understood.command else None} "
                   f"({r.understood.by}; want {r.line.expected})" for r in commands if not r.right],
    }
