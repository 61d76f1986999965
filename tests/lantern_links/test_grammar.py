"""The Lantern Links grammar: speakable, unambiguous, and in step with the tiles."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from facilitator.command import Command, NotRecognized
from facilitator.games.lantern_links import REFEREE
from facilitator.grammar import load_grammar

GRAMMAR = load_grammar("lantern-links")
UTTERANCES = tomllib.loads((Path(__file__).parent / "golden" / "utterances.toml").read_text())["utterances"]


def test_every_spoken_phrase_parses_back_to_its_command() -> None:
    for intent in ("play", "pass", "rewind", "finish", "hands"):
        phrases = GRAMMAR.spoken_phrases(intents={intent})
        assert phrases, intent
        for phrase in phrases:
            command = GRAMMAR.parse(phrase, typed=False)
            assert isinstance(command, Command) and command.intent == intent, phrase
            rendered = GRAMMAR.render(command.canonical)
            assert rendered is not None
            again = GRAMMAR.parse(rendered, typed=False)
            assert isinstance(again, Command) and again.canonical == command.canonical


def test_each_tile_by_nato_word_and_both_word_orders() -> None:
    nato = dict(zip("ABCDEFGHIJ", ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
                                   "hotel", "india", "juliet"]))
    for letter, (a, b) in REFEREE.deck.tiles.items():
        for said in (f"play {nato[letter]}", f"play {a} {b}", f"play {b} {a}", f"{a} {b}", f"{b} {a}"):
            command = GRAMMAR.parse(said.lower(), typed=False)
            assert isinstance(command, Command) and command.canonical == f"play {letter}", said


def test_the_grammar_word_pairs_are_the_content_tiles() -> None:
    words = GRAMMAR.lists["tile-words"].spoken
    for letter, (a, b) in REFEREE.deck.tiles.items():
        pairs = {f"{a} {b}".lower(), f"{b} {a}".lower()}
        assert pairs <= set(words[letter]), letter
        extra = set(words[letter]) - pairs
        assert extra <= ({f"double {a.lower()}"} if a == b else set()), letter


def test_no_spoken_phrase_uses_a_bare_letter() -> None:
    for phrase in GRAMMAR.spoken_phrases(intents={"play", "pass", "rewind", "finish", "hands"}):
        letters = [w for w in phrase.split() if len(w) == 1 and w != "i"]
        assert not letters, phrase
    # typed, a bare letter or "play c" is fine
    assert GRAMMAR.parse("c").canonical == "play C"            # type: ignore[union-attr]
    assert GRAMMAR.parse("play c").canonical == "play C"       # type: ignore[union-attr]
    assert isinstance(GRAMMAR.parse("play c", typed=False), NotRecognized)


@pytest.mark.parametrize(("said", "canonical"), sorted(UTTERANCES.items()))
def test_golden_utterances_win_for_their_command_with_every_grammar_loaded(said: str, canonical: str) -> None:
    for grammar in (GRAMMAR, load_grammar(None)):
        command = grammar.parse(said, typed=False)
        assert isinstance(command, Command), said
        assert command.canonical == canonical


def test_canonical_forms_parse_to_themselves() -> None:
    for canonical in ["play C", "play J", "pass", "rewind", "finish", "hands"]:
        command = GRAMMAR.parse(canonical)
        assert isinstance(command, Command) and command.canonical == canonical


def test_consequential_commands_are_confirmed_by_voice() -> None:
    assert {"play", "pass", "rewind", "finish"} <= GRAMMAR.confirmed   # a pass spends the turn
    assert "finish" in GRAMMAR.always_confirmed and "hands" not in GRAMMAR.confirmed


def test_legal_intents_narrow_the_voice_grammar(table) -> None:  # type: ignore[no-untyped-def]
    t = table(routes=(1, 7, 12))
    session = t.session
    assert "rewind" not in session.legal_intents()               # nothing to rewind yet
    assert isinstance(session.parse("rewind", typed=False, narrow=True), NotRecognized)
    t.place("I")
    t.place("J")
    for _ in range(3):
        t.say("pass")
    assert t.state.paused
    legal = session.legal_intents()
    assert {"rewind", "finish", "hands", "status"} <= legal and not {"play", "pass"} & legal
    assert isinstance(session.parse("play charlie", typed=False, narrow=True), NotRecognized)
    assert session.parse("rewind", typed=False, narrow=True).canonical == "rewind"
    assert GRAMMAR.jsgf(intents=legal).count("charlie") == 0


def test_a_route_played_by_spoken_phrases_only(table) -> None:  # type: ignore[no-untyped-def]
    """What the voice loop does: parse the spoken form against the narrowed grammar,
    then apply it (after the confirmation, which is the loop's job)."""
    t = table(routes=(12, 1, 7))
    session = t.session
    for tile in "FGJDCH":
        while t.state.holder(tile) != t.state.turn:
            command = session.parse("i pass", typed=False, narrow=True)
            assert isinstance(command, Command)
            session.execute(command)
        spoken = GRAMMAR.render(f"play {tile}")
        assert spoken is not None and spoken.startswith("play ")
        command = session.parse(spoken, typed=False, narrow=True)
        assert isinstance(command, Command) and command.canonical == f"play {tile}"
        assert command.intent in GRAMMAR.confirmed
        session.execute(command)
    assert t.state.results == (8,) and t.state.index == 2
