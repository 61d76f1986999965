"""Decoding grammars for the recognizers, built from ``grammars/`` (the one phrase source).

``recognition_grammar(grammar, intents, lists)`` turns the spoken forms legal now
into a ``RecognitionGrammar``: JSGF for pocketsphinx, the full phrase list for
Vosk, the vocabulary (checked against the pronunciation dictionaries), and a key
that names the grammar so recognizers can cache what they build from it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from ..command import RuntimeLists
from ..grammar import Grammar
from .base import RecognitionGrammar

_cache: dict[tuple[int, object, object], RecognitionGrammar] = {}
_CACHE_SIZE = 64


def _freeze_lists(lists: RuntimeLists | None) -> object:
    if not lists:
        return None
    return tuple(sorted(
        (name, tuple(sorted((value, tuple(phrases)) for value, phrases in values.items())))
        for name, values in lists.items()
    ))


def recognition_grammar(grammar: Grammar, intents: Iterable[str] | None = None,
                        lists: RuntimeLists | None = None) -> RecognitionGrammar:
    """The decoding grammar of ``grammar``'s spoken forms, narrowed to ``intents``.

    ``intents=None`` means every command (what ``recognize`` uses); ``lists``
    supplies runtime slot values (player names, tiles in hand).  Results are
    cached, so calling this for every listen is cheap.
    """
    wanted = tuple(sorted(set(intents))) if intents is not None else None
    cache_key = (id(grammar), wanted, _freeze_lists(lists))
    found = _cache.get(cache_key)
    if found is not None:
        return found
    jsgf = grammar.jsgf(intents=wanted, lists=lists)
    phrases = tuple(grammar.spoken_phrases(intents=wanted, lists=lists))
    words = frozenset(w for phrase in phrases for w in phrase.split())
    key = hashlib.sha1(jsgf.encode("utf-8")).hexdigest()[:16]
    built = RecognitionGrammar(jsgf=jsgf, phrases=phrases, words=words, key=key)
    if len(_cache) >= _CACHE_SIZE:
        _cache.clear()
    _cache[cache_key] = built
    return built


def with_wake_prefix(decoding: RecognitionGrammar, wake_phrases: Iterable[str], *,
                     bare_wake: bool = False) -> RecognitionGrammar:
    """``decoding`` with an optional wake phrase before every command, said in the same breath.

    "hey referee send north east south west" is one utterance: the JSGF takes
    ``[ <wake> ]`` before the commands, and ``phrases`` holds every phrase both
    bare and after each wake phrase (so Whisper rescores them too).  ``bare_wake``
    also takes the wake phrase on its own.  A grammar of another shape keeps only
    the wake phrases.  Split a result with ``split_wake``.
    """
    wakes = sorted({" ".join(w.lower().split()) for w in wake_phrases if w.strip()})
    if not wakes:
        return decoding
    head = "public <command> = "
    rule = " | ".join(f"( {w} )" for w in wakes)
    if head in decoding.jsgf:
        top = "( <wake> [ <said> ] ) | <said>" if bare_wake else "[ <wake> ] <said>"
        jsgf = decoding.jsgf.replace(head, f"{head}{top};\n<said> = ", 1) + f"<wake> = {rule};\n"
        said = decoding.phrases
    else:
        jsgf = f"#JSGF V1.0;\ngrammar wake;\n{head}{rule};\n"
        said = ()
    phrases = {*said, *(f"{w} {p}" for w in wakes for p in said)}
    if bare_wake:
        phrases |= set(wakes)
    key = hashlib.sha1(jsgf.encode("utf-8")).hexdigest()[:16]
    return RecognitionGrammar(jsgf=jsgf, phrases=tuple(sorted(phrases)),
                              words=frozenset(x for p in (*wakes, *said) for x in p.split()), key=key)


def split_wake(text: str, wake_phrases: Iterable[str]) -> tuple[bool, str]:
    """(whether ``text`` starts with a wake phrase, the command after it)."""
    words = " ".join(text.lower().split())
    for wake in sorted({" ".join(w.lower().split()) for w in wake_phrases}, key=len, reverse=True):
        if words == wake:
            return True, ""
        if words.startswith(wake + " "):
            return True, words[len(wake) + 1:]
    return False, words
