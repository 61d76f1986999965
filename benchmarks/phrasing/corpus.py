"""The natural-phrasing corpora: lines as tables say them, in tuning and held-out halves.

Two corpora, each in two halves written apart (``README.md`` tells who wrote what):

* the first (issue 40): ``tuning`` (``grammars/examples/tuning.tsv``: the grammar and the
  meaning stage learn from it, so it ships with the grammars) and ``held_out``
  (``held_out.tsv`` here);
* the wide one (issue 47, six registers, a writer who never read the grammar):
  ``wide_tuning`` (``grammars/examples/tuning-wide.tsv``) and ``wide_held_out``
  (``wide/held_out.tsv`` here, a second writer who read neither the grammar nor the
  tuning half; nothing in the package reads it);
* a third tuning set (``third_tuning``, ``grammars/examples/tuning-third.tsv``), from other
  tables again (a pub quiz, grandparents, teenagers, speakers of other languages, a blind
  player, a host teaching newcomers) by a third writer who read none of the others.

Each line: game, the state it is said in, (the wide corpus: the register it is written
in,) the words, and the canonical command expected ("-": table talk, no command).  A state names the intents legal then, as each game's
referee gives them (``legal_intents``) plus the common ones:

* ``any``: every command of the game (table talk is scored here, the widest exposure);
* ``captain`` (Compass Code): a guess or the bearing check is legal, no totals pending;
* ``keeper`` (Compass Code): a guess waits for the keeper's totals;
* ``turn`` (Lantern Links): a player's turn;
* ``resolve`` (Clover): a board is being rebuilt;
* ``question``: a question is open ("Send north east south west. Is that right?"): the
  answers (yes, no, cancel, repeat) with the answer-only forms ("yep", "that's right").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from facilitator.command import Command, RuntimeLists
from facilitator.games import find_game
from facilitator.grammar import Grammar, load_grammar
from facilitator.session import CONFIRMATIONS, CONTROLS, LOBBY, PAGE

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
#: each half's file
FILES = {
    "tuning": ROOT / "grammars" / "examples" / "tuning.tsv",
    "held_out": HERE / "held_out.tsv",
    "wide_tuning": ROOT / "grammars" / "examples" / "tuning-wide.tsv",
    "third_tuning": ROOT / "grammars" / "examples" / "tuning-third.tsv",
    "wide_held_out": HERE / "wide" / "held_out.tsv",
}
HALVES = tuple(FILES)
#: the halves nothing may learn from
HELD_OUT = ("held_out", "wide_held_out")
#: the answers to an open question (the listen loop's CONFIRM_INTENTS)
ANSWERS = frozenset({"yes", "no", "cancel", "repeat"})
#: the game's intents legal in each named state (besides every common one)
STATES: dict[str, dict[str, frozenset[str]]] = {
    "compass-code": {
        "captain": frozenset({"send", "check", "candidates", "read candidates", "restart leg", "route card"}),
        "keeper": frozenset({"feedback", "candidates", "read candidates", "restart leg", "route card"}),
    },
    "lantern-links": {"turn": frozenset({"play", "pass", "rewind", "finish", "hands"})},
    "clover": {"resolve": frozenset({"place", "turn", "commit", "read card", "read cards", "read clues",
                                     "read board"})},
    "two-windows": {},
}


@dataclass(frozen=True)
class Line:
    half: str
    game: str
    state: str
    text: str
    #: the canonical command, or None for table talk
    expected: str | None
    #: who the line is written as (the wide corpus: newcomer, veteran, child, esl,
    #: midsentence, polite; the first corpus: "author")
    register: str = "author"

    @property
    def talk(self) -> bool:
        return self.expected is None


def read(half: str) -> list[Line]:
    """The lines of one half (``HALVES``)."""
    out = []
    path = FILES[half]
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        fields = raw.split("\t")
        if len(fields) not in (4, 5):
            raise ValueError(f"{path.name} line {number}: want 4 or 5 tab-separated fields, got {len(fields)}")
        game, state, *register, text, expected = fields
        if state not in ("any", "question", *STATES[game]):
            raise ValueError(f"{path.name} line {number}: no state {state!r} in {game}")
        out.append(Line(half, game, state, text, None if expected == "-" else expected,
                        register[0] if register else "author"))
    return out


@cache
def grammar(game: str) -> Grammar:
    return load_grammar(game)


def lists(game: str) -> RuntimeLists | None:
    return find_game(game).recognition_lists() or None


def intents(line: Line) -> frozenset[str] | None:
    """The intents legal in the line's state (None: every one of the game)."""
    if line.state == "any":
        return None
    if line.state == "question":
        return ANSWERS
    return STATES[line.game][line.state] | frozenset(grammar(line.game).common_intents)


def typed(line: Line) -> Command | None:
    """The line as typed, in its state."""
    got = grammar(line.game).parse(line.text, intents=intents(line), lists=lists(line.game),
                                   answers=line.state == "question")
    return got if isinstance(got, Command) else None


def changes_game(game: str, intent: str) -> bool:
    """Whether a command of ``intent`` changes the game (not a query, control or answer)."""
    referee = find_game(game)
    harmless = {"repeat", PAGE, *CONTROLS, *CONFIRMATIONS, *LOBBY, *referee.queries, *referee.private_queries}
    return intent not in harmless


def sayable(line: Line) -> bool:
    """Whether the expected command can be said at all (a clue or a route card is typed only)."""
    if line.expected is None:
        return True
    return grammar(line.game).render(line.expected, lists=lists(line.game)) is not None
