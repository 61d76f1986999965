"""Catalogue names matched by sound and spelling (rapidfuzz), so "dalia" is Dahlia.

The decoder says or types a name; speech recognizers and fingers both slip.  A
name is accepted when it is clearly closer to one catalogue entry than to any
other; when two or more are close it is refused with those candidates, so the
table can say it again.  Nothing here guesses between close names.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

#: a score (0-100) at or above which a heard name may be accepted: strict, so a
#: different word that contains or resembles a name ("hazelnut", "helm") is asked back
ACCEPT = 88.0
#: a score at or above which a catalogue name counts as a close candidate: far-off
#: words ("acorn", "xyzzy") get no suggestion at all
CLOSE = 70.0
#: how far the best score must lead the runner-up to be accepted
MARGIN = 12.0
#: two catalogue names this alike could not be told apart
SAME = 88.0

_DIGRAPHS = (("ph", "f"), ("ght", "t"), ("gh", "g"), ("ck", "k"), ("sch", "sk"), ("ch", "x"),
             ("sh", "x"), ("th", "0"), ("wh", "w"), ("qu", "kw"), ("dg", "j"))


def sound_key(text: str) -> str:
    """A rough English sound key: letters that sound alike fold together.

    ``ph``→f, ``ch``/``sh``→x, ``c`` is s before e/i/y and k otherwise, ``z``→s,
    a silent final ``e`` and a non-initial ``h`` drop, every vowel run is one ``a``,
    doubled letters are one.  ("Dahlia" and "dalia" share ``dala``.)
    """
    s = re.sub(r"[^a-z]", "", text.lower())
    for old, new in _DIGRAPHS:
        s = s.replace(old, new)
    s = re.sub(r"c(?=[eiy])", "s", s)
    s = s.replace("c", "k").replace("q", "k").replace("z", "s")
    if len(s) > 3 and s.endswith("e"):
        s = s[:-1]
    s = s[:1] + s[1:].replace("h", "")
    s = re.sub(r"[aeiouy]+", "a", s)
    return re.sub(r"(.)\1+", r"\1", s)


def score(heard: str, name: str) -> float:
    """How alike ``heard`` and ``name`` are, 0-100: the better of spelling and sound."""
    heard = "".join(heard.lower().split())
    spelling = fuzz.ratio(heard, name.lower())
    sound = fuzz.ratio(sound_key(heard), sound_key(name))
    return max(spelling, sound)


@dataclass(frozen=True)
class NameMatch:
    """The outcome of matching: ``name`` when clear, else the close ``candidates``."""

    heard: str
    name: str | None
    candidates: tuple[str, ...] = ()

    @property
    def unclear(self) -> bool:
        return self.name is None and bool(self.candidates)


def spelling_key(text: str) -> str:
    """``text`` as its letters alone: case, accents, spaces, hyphens and apostrophes
    ignored ("Sea-Holly", "sea holly" and "seaholly" are one spelling)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if ch.isalnum() and not unicodedata.combining(ch))


def match_name(heard: str, names: Sequence[str], *, exact: bool = False) -> NameMatch:
    """Match ``heard`` against the catalogue ``names``.

    Exact (ignoring case) wins outright.  Otherwise every name is scored by
    ``score``; the best is accepted when it reaches ``ACCEPT`` and leads every
    other close name by ``MARGIN``.  Names scoring ``CLOSE`` or more are the
    candidates an unclear answer lists, best first.

    ``exact`` (a typed final answer, which cannot be taken back): only the name's own
    spelling is accepted (``spelling_key``: case, accents, spaces, hyphens and
    apostrophes aside); a near miss ("ayze'l") is never taken for a name, only
    answered with its close candidates.
    """
    clean = " ".join(heard.split())
    for name in names:
        if name.lower() == clean.lower():
            return NameMatch(heard, name, (name,))
    ranked = sorted(((score(clean, n), n) for n in names), key=lambda sn: (-sn[0], sn[1]))
    close = tuple(n for s, n in ranked if s >= CLOSE)
    if exact:
        same = [n for n in names if spelling_key(n) == spelling_key(clean)]
        if len(same) == 1:
            return NameMatch(heard, same[0], (same[0],))
        return NameMatch(heard, None, close or tuple(same))
    if ranked and ranked[0][0] >= ACCEPT:
        runner_up = ranked[1][0] if len(ranked) > 1 else 0.0
        if ranked[0][0] - runner_up >= MARGIN or len(close) == 1:
            return NameMatch(heard, ranked[0][1], close)
    return NameMatch(heard, None, close)


def distinguishable_problem(names: Sequence[str]) -> str | None:
    """Why the matcher could confuse two of ``names`` (None when they are told apart).

    Two names are confusable when they share a sound key or are so alike that a
    one-letter slip of one could be accepted as the other (``score`` of
    ``SAME`` or more).
    """
    for i, name in enumerate(names):
        for other in names[i + 1:]:
            if sound_key(name) == sound_key(other) or score(name, other) >= SAME:
                return f"{name!r} and {other!r} sound or look too alike to tell apart"
    return None
