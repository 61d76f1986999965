"""Whisper's free text through the grammar's own parser (``hybrid.free_text_hearing``); words it
does not parse are handed on as they are, never matched to the nearest phrase by spelling (that
took "um card one goes top right" for card two and applied it); and a closed-set choice its own
free text contradicts is not applied as sure (the listen loop's understand stage, tests/loop/test_meaning.py)."""

from __future__ import annotations

from facilitator.grammar import load_grammar
from facilitator.speech.base import Hypothesis
from facilitator.speech.engines.grammar_build import recognition_grammar
from facilitator.speech.engines.hybrid import first_of_repeats, free_text_hearing


def _captain() -> object:
    return recognition_grammar(load_grammar("compass-code"),
                               intents={"send", "check", "candidates", "read candidates", "status"})


def test_free_text_the_parser_reads_is_the_hearing() -> None:
    commands = _captain().commands   # type: ignore[attr-defined]
    heard = ["okay let's send north east south west"]
    got = free_text_hearing(heard, None, commands)
    assert got is not None and got.text == heard[0] and not got.sure
    assert commands[got.text] == "send NESW"
    assert got.free == tuple(heard)
    # pocketsphinx heard the same command (with its own skip words): sure
    agreed = free_text_hearing(heard, "let's send north east south west", commands)
    assert agreed is not None and agreed.sure


def test_words_the_parser_does_not_read_are_handed_on_not_matched_by_spelling() -> None:
    """No phrase is chosen for them: the hypothesis has no words of the grammar, only the free
    words, for the meaning stage to place (and ask)."""
    commands = _captain().commands   # type: ignore[attr-defined]
    got = free_text_hearing(["send north east south west mate"], None, commands)
    assert got is not None and got.text == "" and not got.sure
    assert got.free == ("send north east south west mate",)


def test_nothing_heard_nothing_given() -> None:
    commands = _captain().commands   # type: ignore[attr-defined]
    assert free_text_hearing([], None, commands) is None
    assert free_text_hearing(["", ""], None, commands) is None
    assert free_text_hearing(["send north east south west"], None, None) == \
        Hypothesis("", None, False, free=("send north east south west",))


def test_whispers_repeated_text_is_read_once() -> None:
    """Whisper sometimes writes a short clip's words again and again, the last time cut off."""
    assert first_of_repeats("what's on card two what's on card two what's on") == "what's on card two"
    assert first_of_repeats("n n n n n n") == "n"
    assert first_of_repeats("send north east south west") == "send north east south west"
    assert first_of_repeats("no no") == "no"
    commands = recognition_grammar(load_grammar("clover"), intents={"read card", "read cards"}).commands
    got = free_text_hearing(["what's on card two what's on card two what's on card two what's"], None, commands)
    assert got is not None and commands[got.text] == "read card 2"
