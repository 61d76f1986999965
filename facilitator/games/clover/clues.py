"""Clue checks: which clues are refused, which are noted, and why.

The rules forbid a clue that is one of the writer's own keywords, a word of the
same family as one, or a made-up word.  As DESIGN.md decides, only the clear
cases are refused and the judgement calls are noted and let through, because
the table judges better than a word list:

* **refused**: the clue is empty (``empty``), holds a space (``space``), or is
  one of the writer's sixteen board words once case, accents, hyphens, a
  possessive ``'s`` and anything but letters are ignored (``board-word``:
  ``piano's``, ``piano2`` and ``piano_`` are the keyword ``piano``).
* **noted** (allowed): ``same-family`` when the clue and a board word are words of
  one family by English morphology, not by shared letters:

  - *inflection*: they share a lemma (lemminflect's English lemma tables:
    ``mice``/``mouse``, ``wolves``/``wolf``, ``tents``/``tent``);
  - *derivation*: one is the other plus a derivational suffix (``-ist``, ``-ess``,
    ``-ness``...; a final ``e``, ``o`` or ``y`` of the base may drop:
    ``pianist``/``piano``, ``Princess``/``Prince``);
  - *compounding*: one starts with the other (three letters or more) and goes
    on with another known word of four letters or more (``bedroom``/``bed``,
    ``firefighter``/``fire``);
  - *coinage*: the clue is a word no dictionary knows that starts with a board
    word of four letters or more (``Princessy``);

  a hyphenated clue is also checked part by part (``camp-fire`` notes ``fire``).
  Shared letters alone are not family: ``compassion`` (compass), ``hemlock``
  (lock), ``cocktail`` (tail), ``hassock`` (sock), ``content`` (tent),
  ``camelot`` (camel), ``locket`` (lock), ``flour`` (flower) and ``fair``
  (fairy) are other words.
  ``unknown-word`` when the English word list knows neither the clue nor each of
  its hyphenated parts nor a split of it into two known words of three letters or
  more; numbers (``13``) are known.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import lemminflect  # type: ignore[import-untyped]

from .lexicon import Lexicon, fold

MIN_COMPOUND_PART = 3
#: the other part of a compound that counts as family is a known word this long or longer
MIN_COMPOUND_REST = 4
MIN_BASE = 3
MIN_COINAGE_BASE = 4
#: productive English derivational suffixes whose base stays plain to hear
#: (not ``-er``, ``-y``, ``-ion``, ``-et``: corner, fairy, compassion, locket are other words)
DERIVATIONAL_SUFFIXES = ("ist", "ess", "ness", "ful", "less", "ish", "hood", "ship", "dom", "ism",
                         "ling", "ette", "ian")
#: suffixes that need a longer base (``early`` is not ``ear``-ly)
LONG_BASE_SUFFIXES = {"ly": 4}
#: final letters of a base that drop before a suffix (piano -> pianist, prince -> princess)
DROPPED_FINALS = ("e", "o", "y")


class Refusal(str, Enum):
    EMPTY = "empty"
    SPACE = "space"
    BOARD_WORD = "board-word"


class NoteKind(str, Enum):
    SAME_FAMILY = "same-family"
    UNKNOWN_WORD = "unknown-word"


@dataclass(frozen=True)
class Note:
    kind: NoteKind
    word: str | None = None  # the board word of a family note


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one clue: refused (with the reason) or accepted with notes."""

    clue: str
    refused: Refusal | None = None
    word: str | None = None  # the board word a ``board-word`` refusal matched
    notes: tuple[Note, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.refused is None


def bare(word: str) -> str:
    """``word`` as a board word comparison sees it: folded, a possessive ``'s`` dropped,
    and nothing but letters kept (``Piano's`` and ``piano2`` are ``piano``)."""
    folded = fold(word).replace("\u2019", "'")
    folded = re.sub(r"'s$", "", folded)
    return "".join(ch for ch in folded if ch.isalpha())


@lru_cache(maxsize=4096)
def lemmas(word: str) -> frozenset[str]:
    """Every lemma lemminflect knows for ``word`` (any part of speech), and the word itself."""
    w = fold(word)
    found = {w}
    for forms in lemminflect.getAllLemmas(w).values():
        found.update(fold(f) for f in forms)
    return frozenset(found)


def _bases(word: str) -> set[str]:
    """``word`` and, when it ends in a vowel that drops before a suffix, ``word`` without it."""
    out = {word}
    if len(word) > MIN_BASE and word.endswith(DROPPED_FINALS):
        out.add(word[:-1])
    if word.endswith("y") and len(word) > MIN_BASE:
        out.add(word[:-1] + "i")
    return out


def derived(longer: str, base: str) -> bool:
    """Whether ``longer`` is ``base`` plus a derivational suffix (``pianist`` from ``piano``)."""
    if len(base) < MIN_BASE:
        return False
    for stem in _bases(base):
        if not longer.startswith(stem):
            continue
        suffix = longer[len(stem):]
        if suffix in DERIVATIONAL_SUFFIXES:
            return True
        if len(base) >= LONG_BASE_SUFFIXES.get(suffix, 99):
            return True
    return False


def compound_of(longer: str, first: str, lexicon: Lexicon | None) -> bool:
    """Whether ``longer`` is ``first`` followed by another known word (``bedroom``: bed + room)."""
    rest = longer[len(first):]
    return (len(first) >= MIN_COMPOUND_PART and longer.startswith(first)
            and len(rest) >= MIN_COMPOUND_REST and lexicon is not None and rest in lexicon)


def same_family(clue: str, word: str, lexicon: Lexicon | None = None) -> bool:
    """Whether ``clue`` is a word of ``word``'s family (see the module docstring).

    ``lexicon`` (the English word list) enables the compound and coinage checks."""
    a, b = fold(clue), fold(word)
    if not a or not b:
        return False
    if a == b or lemmas(a) & lemmas(b):
        return True
    if derived(a, b) or derived(b, a):
        return True
    if compound_of(a, b, lexicon) or compound_of(b, a, lexicon):
        return True
    return (lexicon is not None and len(b) >= MIN_COINAGE_BASE and a.startswith(b)
            and a not in lexicon)


def known(clue: str, lexicon: Lexicon) -> bool:
    """Whether the word list knows ``clue`` (numbers, hyphenated parts and two-word compounds count)."""
    parts = [p for p in clue.replace("\u2010", "-").split("-") if p]
    if not parts:
        return False
    for part in parts:
        if part.isdigit() or part in lexicon:
            continue
        folded = fold(part)
        if any(
            folded[:i] in lexicon and folded[i:] in lexicon
            for i in range(MIN_COMPOUND_PART, len(folded) - MIN_COMPOUND_PART + 1)
        ):
            continue
        return False
    return True


def check_clue(clue: str, board_words: Iterable[str], lexicon: Lexicon | None) -> Verdict:
    """Check ``clue`` against the writer's sixteen board words.

    ``lexicon`` is the English word list; with None the ``unknown-word`` note is off.
    """
    words = list(board_words)
    text = clue.strip()
    if not text:
        return Verdict(clue, Refusal.EMPTY)
    if any(ch.isspace() for ch in text):
        return Verdict(clue, Refusal.SPACE)
    plain = bare(text)
    for word in words:
        if plain and bare(word) == plain:
            return Verdict(clue, Refusal.BOARD_WORD, word=word)
    notes: list[Note] = []
    pieces = [text] + [p for p in text.split("-") if p and p != text]
    for word in words:
        if any(same_family(piece, word, lexicon) for piece in pieces):
            notes.append(Note(NoteKind.SAME_FAMILY, word))
    if lexicon is not None and not known(text, lexicon):
        notes.append(Note(NoteKind.UNKNOWN_WORD))
    return Verdict(clue, notes=tuple(notes))
