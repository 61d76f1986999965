"""A typed line is a move only when a person typed it: one tile letter standing in
garbage (bytes that were not UTF-8, control characters, symbols) is no move and
changes nothing, while the letter alone ("b", "b.") and both NATO spellings of a
tile ("alpha" and "alfa", "juliet" and "juliett") are."""

from __future__ import annotations

import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from support import read_jsonl, run_cli

from facilitator.grammar import NotRecognized, load_grammar

Make = Callable[..., Any]
GRAMMAR = load_grammar("lantern-links")
#: what garbage around a letter is made of: symbols, controls, U+FFFD, lone surrogates
JUNK = st.text(st.sampled_from(list(string.punctuation + "\x00\x01\x07\x1b\x7f\ufffd\udcff\udc80")),
               min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(before=JUNK | st.just(""), after=JUNK, letter=st.sampled_from("ABCDEFGHIJabcdefghij"),
       pad=st.sampled_from(["", " ", "  "]))
def test_one_letter_in_garbage_is_no_command(before: str, after: str, letter: str, pad: str) -> None:
    for line in (f"{before}{pad}{letter}{pad}{after}", f"{after}{pad}{letter}"):
        if line.strip().rstrip(".!?").strip() == letter:
            continue    # the letter with a full stop: a typed move
        assert isinstance(GRAMMAR.parse(line), NotRecognized), repr(line)


def test_the_letter_alone_and_both_nato_spellings_are_moves() -> None:
    for line, tile in [("b", "B"), (" b. ", "B"), ("A!", "A"), ("play a", "A"), ("play alpha", "A"),
                       ("play alfa", "A"), ("alfa", "A"), ("place alfa", "A"), ("play juliet", "J"),
                       ("play juliett", "J")]:
        command = GRAMMAR.parse(line)
        assert not isinstance(command, NotRecognized), line
        assert command.canonical == f"play {tile}", line


def test_play_alfa_lays_the_tile(table: Make) -> None:
    t = table(routes=(2, 1, 7))            # card 2 uses A (sun sun)
    owner = t.state.holder("A")
    assert owner is not None
    while t.state.turn != owner:
        t.say("pass")
    t.say("play alfa")
    # laid (or, matching neither end, returned: the rules' own answer to a move)
    assert [e["tile"] for e in t.events() if e["type"] in ("tile-placed", "tile-returned")] == ["A"]


def test_garbage_lines_through_the_command_line_change_nothing(tmp_path: Path) -> None:
    """The bytes a fuzzer sends: invalid UTF-8 and controls around one letter."""
    log = tmp_path / "g.jsonl"
    garbage = [b"\xff\xfeA\xff", b"\x00B\x00", b"\xc3(C\xa0\xa1", b"$$D$$", b"\x1b[Ae", b"F\x07", b"~g~",
               b"\xe2\x82h", b"'i'", b"(J)"]
    done = run_cli(["play", "lantern-links", "--text", "--seed", "3", "--routes", "7,1,12", "--log", str(log),
                    "--data-dir", str(tmp_path / "d")], stdin=b"\n".join(garbage) + b"\n")
    assert done.returncode == 0, done.stderr
    kinds = [e["type"] for e in read_jsonl(log)]
    assert "tile-placed" not in kinds and "passed" not in kinds and "tile-returned" not in kinds
    rejected = [e for e in read_jsonl(log) if e["type"] == "command-rejected"]
    assert len(rejected) == len(garbage)
