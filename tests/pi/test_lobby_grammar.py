"""The lobby's grammar against its golden utterances (tests/pi/lobby_utterances.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from facilitator.command import Command, NotRecognized
from facilitator.games import GAMES
from facilitator.grammar import load_grammar

GOLDEN = tomllib.loads((Path(__file__).parent / "lobby_utterances.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", GOLDEN["spoken"], ids=lambda c: c["say"])
def test_spoken_utterance_gives_its_command(case: dict[str, str]) -> None:
    got = load_grammar("lobby").parse(case["say"], typed=False)
    assert isinstance(got, Command), case["say"]
    assert got.canonical == case["command"]


@pytest.mark.parametrize("case", GOLDEN["typed"], ids=lambda c: c["say"])
def test_typed_utterance_gives_its_command(case: dict[str, str]) -> None:
    got = load_grammar("lobby").parse(case["say"], typed=True)
    assert isinstance(got, Command), case["say"]
    assert got.canonical == case["command"]


@pytest.mark.parametrize("case", GOLDEN["rejected"], ids=lambda c: c["say"])
def test_what_is_not_a_lobby_command_is_not_recognized(case: dict[str, str]) -> None:
    assert isinstance(load_grammar("lobby").parse(case["say"]), NotRecognized)


@pytest.mark.parametrize("game", GAMES)
def test_choosing_a_game_is_never_a_move_in_a_game(game: str) -> None:
    """Over-match: a lobby phrase said during a game must not become one of its moves."""
    grammar = load_grammar(game)
    for case in GOLDEN["spoken"]:
        if case["command"].startswith("play "):
            assert isinstance(grammar.parse(case["say"], typed=False), NotRecognized), (game, case["say"])


def test_every_lobby_intent_has_a_golden_utterance() -> None:
    grammar = load_grammar("lobby")
    covered = {load_grammar("lobby").parse(c["say"]).intent for c in GOLDEN["spoken"]}  # type: ignore[union-attr]
    assert {"choose game", "new game", "resume", "quit"} <= covered
    assert "choose game" in grammar.intents


def test_the_lobby_can_be_recognized_from_speech() -> None:
    """Every spoken choice renders back to a phrase the recognizer's grammar holds."""
    from facilitator.speech.engines.grammar_build import recognition_grammar

    rg = recognition_grammar(load_grammar("lobby"))
    for case in GOLDEN["spoken"]:
        assert case["say"].lower() in rg.phrases, case["say"]
