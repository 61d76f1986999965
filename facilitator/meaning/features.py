"""A line as numbers: its words and the kinds of value it names, and its sentence vector.

The words are read as the meaning stage reads them (``Lexicon.words``: fillers dropped,
contractions in full), each slot phrase replaced by the name of its list ("card seven
goes bottom left" -> ``card <card|number|...> goes <slot>``), so that a line says what
kind of thing it names and not which one.  Each word, each pair of neighbouring words,
the letters of each word in threes and each kind of value named is one feature, hashed
into ``HASHED`` columns (crc32, so the same on every machine); the row is scaled to unit
length.  With the sentence encoder (``encoder.py``) its vector follows, also of unit
length, so the two halves weigh the same.
"""

from __future__ import annotations

import zlib

import numpy as np
import numpy.typing as npt

from .slots import Lexicon, Mention

#: columns of the hashed word features
HASHED = 2048
#: a letter triple weighs this much against a whole word
LETTERS = 0.3


def masked(lexicon: Lexicon, text: str) -> tuple[list[str], list[Mention]]:
    """The line's words with each slot phrase replaced by ``<its lists>``, and the values found."""
    words = lexicon.words(text)
    mentions = lexicon.spot(text)
    starts: dict[int, list[Mention]] = {}
    for mention in mentions:
        starts.setdefault(mention.start, []).append(mention)
    out: list[str] = []
    k = 0
    while k < len(words):
        here = starts.get(k)
        if here:
            out.append("<" + "|".join(sorted({m.list_name for m in here})) + ">")
            k = max(m.end for m in here)
        else:
            out.append(words[k])
            k += 1
    return out, mentions


def lexical(lexicon: Lexicon, text: str) -> npt.NDArray[np.float32]:
    """The hashed word features of ``text`` (see the module docstring)."""
    tokens, mentions = masked(lexicon, text)
    counts: dict[str, float] = {}
    for token in tokens:
        counts["w " + token] = counts.get("w " + token, 0.0) + 1.0
    for first, second in zip(["^", *tokens], [*tokens, "$"]):
        counts[f"b {first} {second}"] = counts.get(f"b {first} {second}", 0.0) + 1.0
    for mention in mentions:
        counts["s " + mention.list_name] = 1.0
    for token in tokens:
        if not token.startswith("<"):
            padded = f"#{token}#"
            for k in range(len(padded) - 2):
                counts["c " + padded[k:k + 3]] = counts.get("c " + padded[k:k + 3], 0.0) + LETTERS
    row = np.zeros(HASHED, dtype=np.float32)
    for feature, value in counts.items():
        row[zlib.crc32(feature.encode("utf-8")) % HASHED] += value
    norm = float(np.linalg.norm(row))
    return row / norm if norm > 0 else row
