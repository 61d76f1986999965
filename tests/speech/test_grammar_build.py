"""One grammar source: every phrase a recognizer may return parses to a command of its state."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from facilitator.command import Command
from facilitator.games import available_games
from facilitator.grammar import load_grammar
from facilitator.speech.engines.grammar_build import recognition_grammar


@pytest.mark.parametrize("game", available_games())
def test_every_recognizer_phrase_parses_as_spoken(game: str) -> None:
    grammar = load_grammar(game)
    built = recognition_grammar(grammar)
    assert built.phrases and built.jsgf.startswith("#JSGF V1.0;")
    for phrase in built.phrases:
        assert isinstance(grammar.parse(phrase, typed=False), Command), phrase
    assert built.words == frozenset(w for p in built.phrases for w in p.split())


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_narrowed_grammar_holds_only_phrases_of_its_intents(data: st.DataObject) -> None:
    grammar = load_grammar("compass-code")
    spoken = sorted({f.intent for f in grammar.forms if not f.typed_only})
    intents = data.draw(st.lists(st.sampled_from(spoken), min_size=1, unique=True))
    built = recognition_grammar(grammar, intents=intents)
    for phrase in built.phrases:
        command = grammar.parse(phrase, typed=False, intents=intents)
        assert isinstance(command, Command) and command.intent in intents


def test_the_same_state_gives_the_same_cached_grammar_and_key() -> None:
    grammar = load_grammar("compass-code")
    a = recognition_grammar(grammar, intents=["yes", "no"])
    b = recognition_grammar(grammar, intents=["no", "yes"])
    c = recognition_grammar(grammar, intents=["yes", "no", "cancel"])
    assert a is b and a.key == b.key and a.key != c.key


def test_runtime_lists_reach_the_recognizer_grammar() -> None:
    grammar = load_grammar("two-windows") if "two-windows" in available_games() else None
    if grammar is None:
        pytest.skip("two-windows is not built")
    lists = {name: {"Hazel": ["hazel"]} for name, lst in grammar.lists.items() if lst.wildcard}
    if not lists:
        pytest.skip("two-windows has no runtime list")
    built = recognition_grammar(grammar, lists=lists)
    assert "hazel" in built.words
