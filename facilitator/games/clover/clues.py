"""Clue checks: which clues are refused, which are noted, and why.

The rules forbid a clue that is one of the writer's own keywords, a word of the
same family as one, or a made-up word.  As DESIGN.md decides, only the clear
cases are refused and the judgement calls are noted and let through, because
the table judges better than a word list:

* **refused**: the clue is empty (``empty``), holds a space (``space``), or equals
  one of the writer's sixteen board words with case, accents and hyphens ignored
  (``board-word``).
* **noted** (allowed): ``same-family`` when the clue and a board word share a
  Snowball stem, when one contains the other's stem of four letters or more at
  its start (Prince / Princess) or ends with the other word of four letters or more
  after three letters or more (campfire / fire), or when their stems share three first letters and
  are at least 75% alike (rapidfuzz ratio: wolf / wolves); a hyphenated clue is
  checked part by part.  ``unknown-word`` when the English word list knows
  neither the clue nor each of its hyphenated parts nor a split of it into two
  known words of three letters or more; numbers (``13``) are known.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped]
from rapidfuzz import fuzz

from .lexicon import Lexicon, fold

SIMILAR_RATIO = 75.0
MIN_PREFIX_STEM = 4
MIN_SHARED_START = 3
MIN_COMPOUND_PART = 3


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


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


def stem(word: str) -> str:
    """The Snowball English stem of ``word``, folded."""
    return str(_stemmer().stemWord(fold(word)))


def _shared_start(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def same_family(clue: str, word: str) -> bool:
    """Whether ``clue`` looks like a word of ``word``'s family (see the module docstring)."""
    a, b = fold(clue), fold(word)
    if not a or not b or a == b:
        return a == b and bool(a)
    sa, sb = stem(a), stem(b)
    if sa == sb:
        return True
    for short_stem, other in ((sa, b), (sb, a)):
        if len(short_stem) >= MIN_PREFIX_STEM and other.startswith(short_stem):
            return True
    for inner, outer in ((a, b), (b, a)):
        if (
            len(inner) >= MIN_PREFIX_STEM
            and outer.endswith(inner)
            and len(outer) - len(inner) >= MIN_COMPOUND_PART
        ):
            return True
    return _shared_start(sa, sb) >= MIN_SHARED_START and fuzz.ratio(sa, sb) >= SIMILAR_RATIO


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
    folded = fold(text)
    for word in words:
        if fold(word) == folded:
            return Verdict(clue, Refusal.BOARD_WORD, word=word)
    notes: list[Note] = []
    pieces = [text] + [p for p in text.split("-") if p and p != text]
    for word in words:
        if any(same_family(piece, word) for piece in pieces):
            notes.append(Note(NoteKind.SAME_FAMILY, word))
    if lexicon is not None and not known(text, lexicon):
        notes.append(Note(NoteKind.UNKNOWN_WORD))
    return Verdict(clue, notes=tuple(notes))
