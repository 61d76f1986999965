"""The listen loop's decoding grammars: what the recognizer may hear now, built from
``grammars/`` for the session's state and cached.

Three shapes: the commands of some intents (``recognition``: None means what is
legal now), the same with an optional wake phrase before them (``listening``),
and the wake phrases themselves (``[lists.wake]`` in grammars/common.toml).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..base import RecognitionGrammar
from ..engines.grammar_build import with_wake_prefix

GrammarBuilder = Callable[..., RecognitionGrammar]
WAKE_LIST = "wake"
_MAX_CACHED = 32


def _default_builder() -> GrammarBuilder:
    from ..engines.grammar_build import recognition_grammar

    return recognition_grammar


class LoopGrammars:
    """Grammars for one session, cached by what they hold."""

    def __init__(self, session: Any, builder: GrammarBuilder | None = None) -> None:
        self.session = session
        self._build = builder or _default_builder()
        self._cache: dict[tuple[object, ...], RecognitionGrammar] = {}

    def recognition(self, intents: Iterable[str] | None, *, answers: bool = False) -> RecognitionGrammar:
        """The decoding grammar for ``intents`` (None: what is legal now) with the runtime lists of now;
        ``answers``: with the answer-only forms ("yep", "that's right"), for an open question or window."""
        session = self.session
        wanted = frozenset(intents) if intents is not None else frozenset(session.legal_intents())
        lists = session.referee.runtime_lists(session.state)
        key = (wanted, answers, repr(sorted((n, sorted((v, tuple(p)) for v, p in vals.items()))
                                   for n, vals in lists.items())))
        if key not in self._cache:
            if len(self._cache) > _MAX_CACHED:
                self._cache.clear()
            self._cache[key] = self._build(session.grammar, intents=sorted(wanted), lists=lists or None,
                                           answers=answers)
        return self._cache[key]

    def wake_phrases(self) -> tuple[str, ...]:
        """The wake phrases: ``[lists.wake]`` in grammars/common.toml."""
        return tuple(sorted({p for ps in self.session.grammar.lists[WAKE_LIST].spoken.values() for p in ps}))

    def listening(self, intents: Iterable[str] | None = None, *, bare_wake: bool = True,
                  answers: bool = False) -> RecognitionGrammar:
        """The commands of ``intents`` (None: legal now) with an optional wake phrase
        before them, so "hey referee send north east south west" is one utterance;
        ``bare_wake`` also takes the wake phrase on its own.

        Built from whatever grammar the builder gives: a JSGF whose public rule is
        ``<command>`` gets the wake phrases as a prefix rule, and the phrase list
        gets the prefixed phrases.  Under the wake phrase alone the decoder forced
        "yes please" onto "hey referee"; with the commands beside it, a command
        said without the wake phrase decodes as that command.

        ``answers``: with the answer-only forms (an undo window is open).
        """
        base = self.recognition(intents, answers=answers)
        key: tuple[object, ...] = ("wake", base.key, base.jsgf, bare_wake)
        if key not in self._cache:
            self._cache[key] = with_wake_prefix(base, self.wake_phrases(), bare_wake=bare_wake)
        return self._cache[key]
