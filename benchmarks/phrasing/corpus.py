"""The natural-phrasing corpus (``tuning.tsv``, ``held_out.tsv``): lines as tables say them.

Each line: game, the state it is said in, the words, and the canonical command expected
("-": table talk, no command).  A state names the intents legal then, as each game's
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
HALVES = ("tuning", "held_out")
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

    @property
    def talk(self) -> bool:
        return self.expected is None


def read(half: str) -> list[Line]:
    """The lines of one half (``tuning`` or ``held_out``)."""
    out = []
    for number, raw in enumerate((HERE / f"{half}.tsv").read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        fields = raw.split("\t")
        if len(fields) != 4:
            raise ValueError(f"{half}.tsv line {number}: want 4 tab-separated fields, got {len(fields)}")
        game, state, text, expected = fields
        if state not in ("any", "question", *STATES[game]):
            raise ValueError(f"{half}.tsv line {number}: no state {state!r} in {game}")
        out.append(Line(half, game, state, text, None if expected == "-" else expected))
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
