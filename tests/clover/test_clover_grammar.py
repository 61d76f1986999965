"""The Clover grammar is ready for voice: every spoken phrase parses back to its command
(also with every game's grammar loaded), canonical forms render to speakable phrases,
the recognizer knows every word, and the grammar narrows to what is legal now."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from facilitator.command import Command, NotRecognized
from facilitator.games.clover import REFEREE
from facilitator.games.clover.lexicon import recognizer_dictionary
from facilitator.grammar import load_grammar

NUMBERS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
}
SPOKEN_INTENTS = ["place", "turn", "commit", "read card", "read cards", "read clues", "read board"]


def _expected(intent: str, phrase: str) -> str:
    """The canonical command a phrase means, worked out from its words."""
    words = phrase.split()
    number = next((NUMBERS[w] for w in words if w in NUMBERS), None)
    slot = re.search(r"(top|bottom) (left|right)$", phrase)
    if intent == "place":
        assert number and slot
        return f"place {number} {slot.group(1)}-{slot.group(2)}"
    if intent == "turn":
        return f"turn {number}"
    if intent == "read card":
        return f"read card {number}"
    if intent == "read board":
        return f"read board {number}"
    return intent


@pytest.mark.parametrize("intent", SPOKEN_INTENTS)
def test_every_spoken_phrase_parses_back_to_its_command(intent: str) -> None:
    own, everything = load_grammar("clover"), load_grammar(None)
    phrases = own.spoken_phrases(intents=[intent])
    assert phrases
    for phrase in phrases:
        for grammar in (own, everything):
            command = grammar.parse(phrase, typed=False)
            assert isinstance(command, Command), phrase
            assert (command.intent, command.canonical) == (intent, _expected(intent, phrase)), (
                phrase
            )


@pytest.mark.parametrize(
    ("canonical", "spoken"),
    [
        ("place 3 top-left", "place card three top left"),
        ("place 8 bottom-right", "place card eight bottom right"),
        ("turn 3", "turn card three"),
        ("read card 3", "read card three"),
        ("commit", "commit"),
        ("read clues", "read the clues"),
        ("read cards", "read the cards"),
        ("read board 2", "read my board two"),
    ],
)
def test_canonical_forms_render_to_what_the_table_says(canonical: str, spoken: str) -> None:
    grammar = load_grammar("clover")
    assert grammar.render(canonical) == spoken
    parsed = grammar.parse(spoken, typed=False)
    assert isinstance(parsed, Command) and parsed.canonical == canonical


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("place 3 top-left", "place 3 top-left"),
        ("place 3 tl", "place 3 top-left"),
        ("Place card 3 on the bottom right", "place 3 bottom-right"),
        ("turn 3", "turn 3"),
        ("read card 3", "read card 3"),
        ("commit", "commit"),
        ("read board 2", "read board 2"),
        ("read my board 3", "read board 3"),
    ],
)
def test_typed_forms(typed: str, canonical: str) -> None:
    command = load_grammar("clover").parse(typed)
    assert isinstance(command, Command) and command.canonical == canonical


def test_only_commit_is_confirmed() -> None:
    grammar = load_grammar("clover")
    assert "commit" in grammar.confirmed
    assert (
        not {"place", "turn", "read card", "read cards", "read clues", "clue"} & grammar.confirmed
    )


def test_the_recognizer_knows_every_spoken_word() -> None:
    dictionary = recognizer_dictionary()
    if dictionary is None:
        pytest.skip("pocketsphinx is not installed")
    grammar = load_grammar("clover")
    words = {w for phrase in grammar.spoken_phrases(intents=SPOKEN_INTENTS) for w in phrase.split()}
    assert sorted(w for w in words if w not in dictionary) == []


def test_voice_is_narrowed_to_what_is_legal_now(new_table: Callable[..., Any]) -> None:
    table = new_table(players=3, seed=8)
    session = table.session
    assert REFEREE.legal_intents(table.state) == {"clue", "status", "help", "read rules", "read board"}
    assert isinstance(
        session.parse("place card one top left", typed=False, narrow=True), NotRecognized
    )
    assert isinstance(session.parse("status", typed=False, narrow=True), Command)
    table.write_clues()
    assert REFEREE.legal_intents(table.state) >= set(SPOKEN_INTENTS)
    assert "clue" not in REFEREE.legal_intents(table.state)
    for phrase in (
        "place card one top left",
        "turn card two",
        "read card three",
        "commit",
        "read the clues",
        "read the cards",
    ):
        assert isinstance(session.parse(phrase, typed=False, narrow=True), Command), phrase
    for points in (6, 6, 6):
        table.play_board(points)
    assert REFEREE.legal_intents(table.state) == set()


def test_reading_aloud_for_a_low_vision_player(new_table: Callable[..., Any]) -> None:
    table = new_table(players=3, seed=8)
    table.say("read the cards")
    assert table.public[-1] == "No cards are on the table yet."
    table.write_clues()
    table.say("read the clues")
    assert table.public[-1] == (
        "The clues for Player 1's board: top harvest1, right journey1, "
        "bottom justice1, left silence1."
    )
    layout = table.state.layout
    top, right, bottom, left = layout.words(3)
    table.say("read card three")
    assert table.public[-1] == (
        f"Card 3: {top} on top, {right} on the right, {bottom} at the bottom, "
        f"{left} on the left; not placed."
    )
    table.say("place card three top left")
    table.say("read card three")
    assert table.public[-1].endswith("; in the top left slot.")
    before = len(table.events())
    start = len(table.public)
    table.say("read the cards")               # the count first, then a card at a time: "go on" for the next
    for _ in range(5):
        table.say("go on")
    said = [line for line in table.public[start:] if line != "Say go on for more."]
    assert said[0] == "5 cards are on the table, 1 placed."
    cards = said[1:]
    assert len(cards) == 5 and all(
        line.startswith(f"Card {k}:") for k, line in zip(range(1, 6), cards)
    )
    assert len(table.events()) == before  # queries log nothing


GOLDEN = tomllib.loads((Path(__file__).parent / "golden" / "utterances.toml").read_text("utf-8"))


@pytest.mark.parametrize(("said", "canonical"), sorted(GOLDEN["spoken"].items()))
def test_golden_spoken_utterances(said: str, canonical: str) -> None:
    for grammar in (load_grammar("clover"), load_grammar(None)):
        command = grammar.parse(said, typed=False)
        assert isinstance(command, Command) and command.canonical == canonical


@pytest.mark.parametrize(("typed", "canonical"), sorted(GOLDEN["typed"].items()))
def test_golden_typed_lines(typed: str, canonical: str) -> None:
    command = load_grammar("clover").parse(typed)
    assert isinstance(command, Command) and command.canonical == canonical


def test_a_players_name_with_a_digit_is_said_as_words_and_typed_as_written() -> None:
    """Default names ("Player 1") reach the decoding grammar as words: pocketsphinx has
    no pronunciation for "1", and one such word made every Clover decode fail (the
    table went unheard).  The name as written is still typed."""
    from facilitator.grammar import load_grammar
    from facilitator.speech.engines.grammar_build import recognition_grammar
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

    grammar = load_grammar("clover")
    names = {"seat": {str(s): [f"Player {s}"] for s in range(1, 5)}}
    decoding = recognition_grammar(grammar, lists=names)
    assert not [w for w in decoding.words if any(c.isdigit() for c in w)]
    assert "read my board player three" in decoding.phrases
    PocketsphinxRecognizer().is_complete(b"\0" * 32000, decoding)   # every word has a pronunciation
    said = grammar.parse("read my board player three", typed=False, lists=names)
    typed = grammar.parse("read board Player 3", typed=True, lists=names)
    assert isinstance(said, Command) and said.canonical == "read board 3"
    assert isinstance(typed, Command) and typed.canonical == "read board 3"
