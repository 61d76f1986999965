"""What the meaning stage learns from: the grammar's own forms and the tuning lines.

Two sources, both data (no phrase lives in code):

* the grammar's ``say`` and ``loose`` forms, each said a few ways (its alternatives
  taken in turn, its slots filled with values of their lists, seeded), so every
  command has examples even before anyone wrote a line for it;
* the tuning lines in ``grammars/examples/*.tsv``: lines written the way tables talk,
  each with the command it means or ``-`` for table talk (talk is an example of
  *nothing*: a line nearest to talk is left alone).  These are the tuning halves of
  the phrasing corpora; their held-out halves live in ``benchmarks/phrasing/`` and
  nothing in the package reads them.

An example's intent is found from its canonical command by the grammar's outputs
(``intent_of``), so a tuning line names a command, not an intent.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import template as t
from ..command import RuntimeLists
from ..errors import GrammarError
from ..grammar import Grammar
from ..paths import grammars_dir

#: the folder of tuning lines, under grammars/
EXAMPLES = "examples"
#: each form is said this many ways at most
PER_FORM = 8
#: the intent of table talk
TALK = "-"


@dataclass(frozen=True)
class Example:
    text: str
    #: the intent meant (``TALK``: table talk, no command)
    intent: str
    #: where it comes from: "grammar" or the tuning file's name
    source: str
    #: the state it was said in (a tuning line's; "any" for the grammar's)
    state: str = "any"


def grammar_examples(grammar: Grammar, lists: RuntimeLists | None, seed: int = 0) -> list[Example]:
    """Each spoken or loose form said up to ``PER_FORM`` ways (seeded)."""
    rng = random.Random(seed)
    out: dict[tuple[str, str], Example] = {}
    for form in grammar.forms:
        if form.typed_only or form.answer_only:
            continue
        for _ in range(PER_FORM * 3):
            said = _say_one(grammar, form.tree, lists, rng)
            if said:
                key = (said, form.intent)
                out.setdefault(key, Example(said, form.intent, "grammar"))
            if sum(1 for k in out if k[1] == form.intent) >= PER_FORM * 4:
                break
    return list(out.values())


def _say_one(grammar: Grammar, node: t.Node, lists: RuntimeLists | None, rng: random.Random) -> str | None:
    """One phrase of ``node``: options and slot values picked at random."""
    if isinstance(node, t.Word):
        return node.text.lower()
    if isinstance(node, t.Slot):
        words = grammar._list(node.list, lists)
        phrases = sorted({p for ps in words.spoken.values() for p in ps})
        return rng.choice(phrases) if phrases else None
    if isinstance(node, t.Seq):
        parts = [_say_one(grammar, item, lists, rng) for item in node.items]
        if any(p is None for p in parts):
            return None
        return " ".join(p for p in parts if p)
    choices: list[t.Seq | None] = [*node.options, *([None] if node.optional else [])]
    choice = rng.choice(choices)
    return "" if choice is None else _say_one(grammar, choice, lists, rng)


def intent_of(grammar: Grammar, canonical: str) -> str | None:
    """The intent whose output makes ``canonical`` (the most literal output wins: "final not
    HAZEL" is ``final not``, not ``final``; None: no output makes it)."""
    best: tuple[int, int, str] | None = None
    for output, intent in dict.fromkeys((f.output, f.intent) for f in grammar.forms):
        pieces = re.split(r"(\{\w+\})", output)
        pattern = ""
        for k, piece in enumerate(pieces):
            if not re.fullmatch(r"\{\w+\}", piece):
                pattern += re.escape(piece)
            elif _joined(pieces, k):
                pattern += r"(\S)"          # "{a}{b}{c}{d}": one letter each
            else:
                pattern += r"(\S+(?: \S+)*?)"
        if re.fullmatch(pattern, canonical.strip(), re.IGNORECASE):
            rank = (len(re.sub(r"\{\w+\}", "", output)), output.count("{"), intent)
            if best is None or rank[:2] > best[:2]:
                best = rank
    return best[2] if best is not None else None


def _joined(pieces: list[str], k: int) -> bool:
    """Whether slot ``pieces[k]`` touches another slot ("{a}{b}")."""
    def slot(i: int) -> bool:
        return 0 <= i < len(pieces) and pieces[i].startswith("{")
    return (k + 2 < len(pieces) and pieces[k + 1] == "" and slot(k + 2)) or \
        (k >= 2 and pieces[k - 1] == "" and slot(k - 2))


def tuning_files(directory: Path | None = None) -> list[Path]:
    folder = (directory or grammars_dir()) / EXAMPLES
    return sorted(folder.glob("*.tsv")) if folder.is_dir() else []


def read_tuning(path: Path, game: str) -> Iterator[tuple[str, str, str]]:
    """(state, line, canonical or ``-``) of ``game`` in one tuning file.  A file has four
    fields a line (game, state, line, expected) or five (with the register third)."""
    name = f"grammars/{EXAMPLES}/{path.name}"
    try:
        rows = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise GrammarError(name, None, f"cannot be read: {exc}") from None
    for number, raw in enumerate(rows, 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        fields = raw.split("\t")
        if len(fields) not in (4, 5):
            raise GrammarError(name, f"line {number}", f"want 4 or 5 tab-separated fields, got {len(fields)}")
        if fields[0] == game:
            yield fields[1], fields[-2], fields[-1]


def tuning_examples(grammar: Grammar, game: str, directory: Path | None = None) -> list[Example]:
    """The tuning lines of ``game``, each with its intent (talk: ``TALK``)."""
    out = []
    for path in tuning_files(directory):
        for state, line, expected in read_tuning(path, game):
            if expected == TALK:
                out.append(Example(line, TALK, path.stem, state))
                continue
            intent = intent_of(grammar, expected)
            if intent is None:
                raise GrammarError(f"grammars/{EXAMPLES}/{path.name}", line,
                                   f"{expected!r} is no command of {game}")
            out.append(Example(line, intent, path.stem, state))
    return out
