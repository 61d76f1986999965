"""Decoding grammars for the recognizers, built from ``grammars/`` (the one phrase source).

``recognition_grammar(grammar, intents, lists)`` turns the spoken forms legal now
into a ``RecognitionGrammar``: JSGF for pocketsphinx, the full phrase list for
Vosk, the vocabulary (checked against the pronunciation dictionaries), a key
that names the grammar so recognizers can cache what they build from it, and the
command each phrase says (``commands``: the grammar's own parse, so two engines
that heard "read hands" and "read the hands" agree).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping

from ...command import Command, RuntimeLists
from ...grammar import Grammar
from ..base import RecognitionGrammar

#: the command of a wake phrase said alone, and the head of a woken command's
#: (never a canonical command of the grammars, which start with a word)
WAKE_COMMAND = "<wake>"

_cache: dict[tuple[int, object, object, bool], RecognitionGrammar] = {}
_CACHE_SIZE = 64


class PhraseCommands(Mapping[str, str]):
    """Each legal phrase -> the canonical command it says, worked out on first use.

    Parsing all of a grammar's phrases up front costs about a second for
    Compass Code's 6,459 (every state change builds a grammar); a decision needs
    two or three, so each is parsed when asked and kept.
    """

    def __init__(self, phrases: tuple[str, ...], command_of: Callable[[str], str | None]) -> None:
        self._phrases = frozenset(phrases)
        self._order = phrases
        self._command_of = command_of
        self._known: dict[str, str | None] = {}

    def __getitem__(self, phrase: str) -> str:
        """The command ``phrase`` says: a legal phrase, or one pocketsphinx's grammar
        decoded with skip words around it ("let's send north east south west")."""
        if not isinstance(phrase, str):
            raise KeyError(phrase)
        if phrase in self._known:
            found = self._known[phrase]
        else:
            found = self._command_of(phrase)
            if phrase in self._phrases:
                self._known[phrase] = found
        if found is None:
            raise KeyError(phrase)
        return found

    def __iter__(self) -> Iterator[str]:
        return (p for p in self._order if p in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, phrase: object) -> bool:
        if not isinstance(phrase, str) or phrase not in self._phrases:
            return False
        try:
            self[phrase]
        except KeyError:
            return False
        return True


def _parser(grammar: Grammar, intents: tuple[str, ...] | None,
            lists: RuntimeLists | None, answers: bool = False) -> Callable[[str], str | None]:
    def command_of(phrase: str) -> str | None:
        parsed = grammar.parse(phrase, typed=False, intents=intents, lists=lists, answers=answers)
        return parsed.canonical if isinstance(parsed, Command) else None
    return command_of


def _freeze_lists(lists: RuntimeLists | None) -> object:
    if not lists:
        return None
    return tuple(sorted(
        (name, tuple(sorted((value, tuple(phrases)) for value, phrases in values.items())))
        for name, values in lists.items()
    ))


def recognition_grammar(grammar: Grammar, intents: Iterable[str] | None = None,
                        lists: RuntimeLists | None = None, answers: bool = False) -> RecognitionGrammar:
    """The decoding grammar of ``grammar``'s spoken forms, narrowed to ``intents``.

    ``intents=None`` means every command (what ``recognize`` uses); ``lists``
    supplies runtime slot values (player names, tiles in hand); ``answers`` adds
    the answer-only forms ("yep", "that's right"), for the answer to an open
    question.  Results are cached, so calling this for every listen is cheap.
    """
    wanted = tuple(sorted(set(intents))) if intents is not None else None
    cache_key = (id(grammar), wanted, _freeze_lists(lists), answers)
    found = _cache.get(cache_key)
    if found is not None:
        return found
    jsgf = grammar.jsgf(intents=wanted, lists=lists, answers=answers)
    phrases = tuple(grammar.spoken_phrases(intents=wanted, lists=lists, answers=answers))
    words = frozenset(w for phrase in phrases for w in phrase.split())
    key = hashlib.sha1(jsgf.encode("utf-8")).hexdigest()[:16]
    built = RecognitionGrammar(jsgf=jsgf, phrases=phrases, words=words, key=key,
                               commands=PhraseCommands(phrases, _parser(grammar, wanted, lists, answers)))
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
    ordered = tuple(sorted(phrases))

    def command_of(phrase: str) -> str | None:
        # a wake phrase is part of what was said: "hey referee read hands" and
        # "read hands" are not one hearing (only the first wakes the referee)
        woke, rest = split_wake(phrase, wakes)
        if not woke:
            return decoding.commands.get(phrase)
        if not rest:
            return WAKE_COMMAND
        said_command = decoding.commands.get(rest)
        return f"{WAKE_COMMAND} {said_command}" if said_command else None

    return RecognitionGrammar(jsgf=jsgf, phrases=ordered,
                              words=frozenset(x for p in (*wakes, *said) for x in p.split()), key=key,
                              commands=PhraseCommands(ordered, command_of))


def split_wake(text: str, wake_phrases: Iterable[str]) -> tuple[bool, str]:
    """(whether ``text`` starts with a wake phrase, the command after it)."""
    words = " ".join(text.lower().split())
    for wake in sorted({" ".join(w.lower().split()) for w in wake_phrases}, key=len, reverse=True):
        if words == wake:
            return True, ""
        if words.startswith(wake + " "):
            return True, words[len(wake) + 1:]
    return False, words
