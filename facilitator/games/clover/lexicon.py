"""Which words exist: a plain word list (Debian's ``wamerican``) and the recognizer's dictionary.

Clue checks use the word list to note words "no dictionary knows" (Clooney); the
content check uses the recognizer's dictionary to prove the table can say every
keyword.  Both are read-only files installed beside the project; when one is
missing the check that needs it says so instead of failing.
"""

from __future__ import annotations

import os
import unicodedata
from functools import lru_cache
from pathlib import Path

#: where Debian (``wamerican``), Raspberry Pi OS and macOS keep a plain English word list
WORD_LIST_PATHS = (
    Path("/usr/share/dict/american-english"),
    Path("/usr/share/dict/british-english"),
    Path("/usr/share/dict/words"),
)
WORD_LIST_ENV = "FACILITATOR_WORD_LIST"


def fold(word: str) -> str:
    """``word`` with case, accents and hyphens ignored (the clue checks' comparison form)."""
    decomposed = unicodedata.normalize("NFKD", word)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return plain.casefold().replace("-", "").replace("\u2010", "").replace("\u2011", "")


class Lexicon:
    """A set of known words, compared folded; ``source`` names where they came from."""

    def __init__(self, words: set[str], source: str) -> None:
        self.words = {fold(w) for w in words}
        self.source = source

    def __contains__(self, word: str) -> bool:
        return fold(word) in self.words

    def __len__(self) -> int:
        return len(self.words)


def read_word_list(path: Path) -> Lexicon:
    """One word a line (``wamerican``'s form); possessives ``'s`` are folded away."""
    words: set[str] = set()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            word = line.strip()
            word = word.removesuffix("'s")
            if word:
                words.add(word)
    return Lexicon(words, str(path))


def read_pronouncing_dictionary(path: Path) -> Lexicon:
    """A CMU-style dictionary (``word PH ON EMES``; variants as ``word(2)``)."""
    words: set[str] = set()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            head = line.split(maxsplit=1)
            if head:
                words.add(head[0].split("(")[0])
    return Lexicon(words, str(path))


@lru_cache(maxsize=1)
def word_list() -> Lexicon | None:
    """The installed English word list (``$FACILITATOR_WORD_LIST`` first), or None."""
    env = os.environ.get(WORD_LIST_ENV)
    for path in ([Path(env)] if env else []) + list(WORD_LIST_PATHS):
        if path.is_file():
            try:
                return read_word_list(path)
            except OSError:
                continue
    return None


@lru_cache(maxsize=1)
def recognizer_dictionary() -> Lexicon | None:
    """pocketsphinx's English pronouncing dictionary, when pocketsphinx is installed."""
    try:
        import pocketsphinx  # type: ignore[import-untyped]
    except ImportError:
        return None
    path = Path(pocketsphinx.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    if not path.is_file():
        return None
    return read_pronouncing_dictionary(path)
