"""grammars/two-windows.toml: every spoken phrase parses back to its own command,
no other command claims it (with every game's grammar loaded), typed shorthand
reaches the referee, and the voice grammar narrows to what is legal now."""

from __future__ import annotations

import re
from itertools import product
from typing import Any

import pytest

from facilitator import template as t
from facilitator.command import Command, NotRecognized
from facilitator.games.two_windows import REFEREE
from facilitator.grammar import Grammar, load_grammar

GAME_INTENTS = ("a sends", "b sends", "final", "final not", "more", "replace packet", "read catalogue",
                "read entry", "which entries")


def _expand(grammar: Grammar, node: t.Node, lists: Any) -> list[tuple[str, dict[str, str]]]:
    """Every phrase ``node`` can say, with the slot values it fills."""
    if isinstance(node, t.Word):
        return [(node.text.lower(), {})]
    if isinstance(node, t.Slot):
        values = lists.get(node.list) if lists and node.list in lists else grammar.lists[node.list].spoken
        return [(p.lower(), {node.name: v}) for v, ps in values.items() for p in ps]
    if isinstance(node, t.Seq):
        out: list[tuple[str, dict[str, str]]] = [("", {})]
        for item in node.items:
            out = [(f"{a} {b}".strip(), {**va, **vb}) for (a, va), (b, vb) in
                   product(out, _expand(grammar, item, lists))]
        return out
    assert isinstance(node, t.Alt)
    out = [x for option in node.options for x in _expand(grammar, option, lists)]
    return out + ([("", {})] if node.optional else [])


def _spoken(grammar: Grammar, lists: Any) -> list[tuple[str, str, str]]:
    """(phrase, intent, canonical) for every spoken form of this game's commands."""
    found = []
    for form in grammar.forms:
        if form.typed_only or form.intent not in GAME_INTENTS:
            continue
        for phrase, values in _expand(grammar, form.tree, lists):
            found.append((" ".join(phrase.split()), form.intent, form.output.format(**values)))
    return found


LISTS = REFEREE.recognition_lists()


def test_catalogue_names_come_from_content() -> None:
    assert sorted(LISTS["entry"]) == sorted(["Alder", "Birch", "Cedar", "Dahlia", "Elm", "Fern", "Gorse",
                                             "Hazel", "Acorn", "Brook", "Cloud", "Drift"])


def test_every_spoken_phrase_parses_back_to_its_command_and_no_other() -> None:
    grammar = load_grammar("two-windows")
    everything = load_grammar(None)
    phrases = _spoken(grammar, LISTS)
    assert len(phrases) > 60
    for phrase, intent, canonical in phrases:
        for g in (grammar, everything):
            got = g.parse(phrase, lists=LISTS, typed=False)
            assert isinstance(got, Command), phrase
            assert (got.intent, got.canonical) == (intent, canonical), phrase
        others = set(everything.intents) - {intent}
        assert isinstance(everything.parse(phrase, lists=LISTS, typed=False, intents=others), NotRecognized), phrase


def test_spoken_forms_are_plain_words_a_recognizer_can_return() -> None:
    grammar = load_grammar("two-windows")
    for phrase, _, _ in _spoken(grammar, LISTS):
        assert re.fullmatch(r"[a-z]+( [a-z]+)*", phrase), phrase
    assert grammar.confirmed >= {"final", "more", "replace packet"}
    assert not grammar.confirmed & {"a sends", "b sends"}


@pytest.mark.parametrize(("said", "canonical"), [
    ("report a, form round", "a sends FORM ROUND"),
    ("Report B: edge notched", "b sends EDGE NOTCHED"),
    ("a sends FORM ROUND", "a sends FORM ROUND"),
    ("b sends surface striped", "b sends SURFACE STRIPED"),
    ("final hazel", "final Hazel"),
    ("our final answer is dahlia", "final Dahlia"),
    ("more", "more"),
    ("replace the packet", "replace packet"),
    ("final not birch", "final not Birch"),
    ("our final answer is never hazel", "final not Hazel"),
    ("read the catalogue", "read catalogue"),
    ("read entry elm", "read entry Elm"),
    ("which entries have a striped surface", "which entries SURFACE STRIPED"),
    ("which entries are round", "which entries FORM ROUND"),
    ("which ones have a notched edge", "which entries EDGE NOTCHED"),
])
def test_spoken_examples(said: str, canonical: str) -> None:
    got = load_grammar("two-windows").parse(said, lists=LISTS, typed=False)
    assert isinstance(got, Command) and got.canonical == canonical


def test_typed_names_reach_the_fuzzy_matcher_but_speech_only_knows_the_catalogue() -> None:
    grammar = load_grammar("two-windows")
    typed = grammar.parse("final dalia", lists=LISTS)
    assert isinstance(typed, Command) and typed.intent == "final" and typed.slots["entry"] == "dalia"
    assert isinstance(grammar.parse("final dalia", lists=LISTS, typed=False), NotRecognized)


def test_voice_grammar_narrows_to_the_legal_commands(play) -> None:
    t = play(packets="1,8,13,4,17,10")
    s = t.session
    assert isinstance(s.parse("final alder", typed=False, narrow=True), NotRecognized)
    assert isinstance(s.parse("more", typed=False, narrow=True), NotRecognized)
    assert isinstance(s.parse("replace packet", typed=False, narrow=True), Command)
    t.say("a sends form round")
    assert isinstance(s.parse("report a size small", typed=False, narrow=True), NotRecognized)
    assert isinstance(s.parse("report b edge notched", typed=False, narrow=True), Command)
    t.say("b sends edge notched")
    assert isinstance(s.parse("report b edge notched", typed=False, narrow=True), NotRecognized)
    assert isinstance(s.parse("replace packet", typed=False, narrow=True), NotRecognized)
    assert isinstance(s.parse("final alder", typed=False, narrow=True), Command)
    assert isinstance(s.parse("final acorn", typed=False, narrow=True), NotRecognized)  # practice name
    t.say("more")
    assert isinstance(s.parse("more", typed=False, narrow=True), NotRecognized)
    assert isinstance(s.parse("status", typed=False, narrow=True), Command)
    for query in ("read the catalogue", "read entry hazel", "which entries are small"):
        assert isinstance(s.parse(query, typed=False, narrow=True), Command), query


def test_practice_names_are_the_runtime_list_in_practice(play) -> None:
    t = play(practice=True)
    t.send_first()
    got = t.session.parse("final brook", typed=False, narrow=True)
    assert isinstance(got, Command) and got.canonical == "final Brook"
    assert isinstance(t.session.parse("final hazel", typed=False, narrow=True), NotRecognized)


def test_every_spoken_word_and_catalogue_name_can_be_pronounced() -> None:
    unpronounceable = pytest.importorskip("facilitator.speech.engines.pocketsphinx_engine").unpronounceable
    vocabulary = load_grammar("two-windows").vocabulary(lists=LISTS)
    assert {"dahlia", "gorse", "hazel", "brook", "notched", "striped"} <= vocabulary
    assert unpronounceable(vocabulary) == []
