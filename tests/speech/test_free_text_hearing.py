"""Whisper's free text through the grammar's own parser, else the nearest legal command with a
margin (``hybrid.free_text_hearing``): a near phrasing is asked, never dropped; table talk stays out."""

from __future__ import annotations

from facilitator.grammar import load_grammar
from facilitator.speech.engines.grammar_build import recognition_grammar
from facilitator.speech.engines.hybrid import FUZZY_MIN, Scores, first_of_repeats, free_text_hearing


def _captain() -> object:
    return recognition_grammar(load_grammar("compass-code"),
                               intents={"send", "check", "candidates", "read candidates", "status"})


def _ranked(*phrases: str) -> list[Scores]:
    return [Scores(p, -1.0 - i, 50.0) for i, p in enumerate(phrases)]


def test_free_text_the_parser_reads_is_the_hearing() -> None:
    commands = _captain().commands   # type: ignore[attr-defined]
    heard = ["okay let's send north east south west"]
    got = free_text_hearing(heard, [], None, commands)
    assert got is not None and got.text == heard[0] and not got.sure
    assert commands[got.text] == "send NESW"
    # pocketsphinx heard the same command (with its own skip words): sure
    agreed = free_text_hearing(heard, [], "let's send north east south west", commands)
    assert agreed is not None and agreed.sure


def test_a_near_phrasing_gets_the_nearest_command_unsure() -> None:
    commands = _captain().commands   # type: ignore[attr-defined]
    ranked = _ranked("send north east south west", "send north east west south", "send north west south east")
    got = free_text_hearing(["send north east south west mate"], ranked, None, commands)
    assert got is not None and got.text == "send north east south west" and not got.sure


def test_no_margin_no_hearing() -> None:
    """Two commands as near as each other to what was written: nothing rather than a guess."""
    commands = _captain().commands   # type: ignore[attr-defined]
    close = _ranked("send north east south west", "send south east north west")
    assert free_text_hearing(["send north east sout west"], close, None, commands) is not None
    twins = _ranked("is west in position three", "is east in position three")
    assert free_text_hearing(["is wost in position three"], twins, None, commands) is None


def test_table_talk_near_a_command_stays_out() -> None:
    commands = _captain().commands   # type: ignore[attr-defined]
    ranked = _ranked("how many are left", "how many candidates are left", "how many routes are left")
    for talk in ["how many crisps are left", "how many are coming tonight", "is it my turn"]:
        assert free_text_hearing([talk], ranked, None, commands) is None, talk
    assert FUZZY_MIN > 83   # "how many crisps are left" is 82.9 from "how many are left"


def test_nothing_heard_nothing_given() -> None:
    commands = _captain().commands   # type: ignore[attr-defined]
    assert free_text_hearing([], _ranked("send north east south west"), None, commands) is None
    assert free_text_hearing(["", "pass the crisps"], [], None, commands) is None
    assert free_text_hearing(["send north east south west"], [], None, None) is None


def test_whispers_repeated_text_is_read_once() -> None:
    """Whisper sometimes writes a short clip's words again and again, the last time cut off."""
    assert first_of_repeats("what's on card two what's on card two what's on") == "what's on card two"
    assert first_of_repeats("n n n n n n") == "n"
    assert first_of_repeats("send north east south west") == "send north east south west"
    assert first_of_repeats("no no") == "no"
    commands = recognition_grammar(load_grammar("clover"), intents={"read card", "read cards"}).commands
    got = free_text_hearing(["what's on card two what's on card two what's on card two what's"], [], None, commands)
    assert got is not None and commands[got.text] == "read card 2"
