"""Lantern Links by ear: tiles said as words, finish asked and listed with the moves,
status and help one sentence first, a usage line for every command."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from facilitator.grammar import load_grammar

Make = Callable[..., Any]     # the ``table`` fixture (conftest.py): a Table factory


def ask(t: Any, line: str) -> list[str]:
    """A query's whole answer, from the referee (the session pages it: the first
    sentence, then one more for each "more"); it changes nothing."""
    session = t.session
    said: list[str] = session.referee.query(session.state, session.parse(line), session.phrases)
    return said


def test_finish_is_confirmed_by_voice_and_listed_with_the_moves() -> None:
    grammar = load_grammar("lantern-links")
    assert "finish" in grammar.confirmed          # irreversible: the route ends at once
    help_lines = grammar.responses["ll-help-moves"], grammar.responses["ll-help-queries"]
    assert "finish" in help_lines[0] and "rewind" in help_lines[0]
    assert "finish" not in help_lines[1]          # the harmless queries are listed apart


def test_help_is_for_the_player_up_first(table: Make) -> None:
    t = table(routes=(1, 7, 12))
    said = ask(t, "help")
    assert said[0] == "Player 1, say play and a tile, like play sun leaf, or say pass."
    assert said[1:] == ["Moves: rewind, once a route at the start of a turn; finish, to end the route now.",
                        "Anyone may ask: hands, status, repeat."]
    t.place("I")
    t.place("J")
    for _ in range(3):
        t.say("pass")
    assert t.state.paused
    assert ask(t, "help")[0] == (f"Player {t.state.turn}, say rewind to take back the last tile, "
                                 "or finish to end the route.")


def test_status_is_one_sentence_first_then_the_details(table: Make) -> None:
    t = table(routes=(1, 7, 12))          # card 1: START LEAF, CHECKPOINT LEAF, END KEY
    t.place("C")
    t.place("B")
    said = ask(t, "status")
    assert said[0] == f"Route 1 of 3, 2 tiles placed, open word moon: Player {t.state.turn}'s turn."
    assert len(said[0].split()) <= 15 and said[0].count(".") == 1
    assert said[1] == "Card 1: start leaf, checkpoint leaf, end key."
    assert said[2] == "The chain: leaf sun, sun moon."
    assert said[3] == "No checkpoint recorded yet. The rewind is unused."
    assert said[4] == "Points so far: 0. Passes in a row: 0."


def test_chains_and_solutions_are_said_with_tile_words(table: Make) -> None:
    t = table(routes=(1, 7, 12))
    t.place("C")
    said = t.say("finish")
    assert said[0] == "Route 1 finished: 1 point, 1 in all."
    assert said[1] == "One solution: leaf sun, sun moon, moon leaf, leaf leaf, leaf key, key key."
    for line in t.heard:
        assert not any(len(word) == 1 and word in "BCDEFGHIJ" for word in line.replace(",", " ").split()), line


def test_every_lantern_intent_has_a_usage_line() -> None:
    grammar = load_grammar("lantern-links")
    own = [i for i in grammar.intents if i not in grammar.common_intents]
    assert {"play", "pass", "rewind", "finish", "hands"} <= set(own)
    for intent in own:
        line = grammar.responses.get(f"usage-{intent.replace(' ', '-')}")
        assert line and len(line.split()) <= 15 and line.endswith("."), intent
