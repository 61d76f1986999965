"""What a typed line may hold, and what it never does.

A player types letters of any script with their accents, digits, spaces,
apostrophes, hyphens and the punctuation of an ordinary sentence.  A line with
anything else (an invisible format character, a stray symbol, a combining mark on
no letter) is refused with the character named and one ``command-rejected``: it is
never folded into a command.  A line with a question mark asks: a query answers it,
a command that changes the game is refused.  A typed final answer is taken on its
spelling only (tests/two_windows).  See docs/event-log.md, "Typed lines"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support import read_jsonl, run_cli

from facilitator.games import find_game
from facilitator.session import Session
from facilitator.table_data import TableData

_open: list[Session] = []


@pytest.fixture(autouse=True)
def _close_logs() -> Iterator[None]:
    yield
    while _open:
        _open.pop().log.close()


def _lantern(tmp_path: Path) -> Session:
    options = find_game("lantern-links").parse_options({"routes": "7,1,12"})
    session, _ = Session.start("lantern-links", seed=9, options=options, log_path=tmp_path / "g.jsonl",
                               table=TableData(tmp_path / "data"))
    _open.append(session)
    return session


def _hand_tile(session: Session) -> str:
    """A NATO word for a tile in the current player's hand."""
    nato = dict(zip("ABCDEFGHIJ", ["alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
                                    "india", "juliett"]))
    state = session.state
    return nato[min(state.hands[state.turn - 1])]


#: a character no one can see is said by its kind in plain words, never a code point
CONTROL = "an invisible control character"
FORMAT = "an invisible formatting character, like a zero-width space or a direction mark,"
MARK = "an accent that is on no letter"
REFUSED = [
    ("\u202epass", FORMAT),
    ("pass\u200b", FORMAT),
    ("\ufeffpass", FORMAT),
    ("\u0301pass", MARK),
    ("pass \u0308", MARK),
    ("pass\x07", CONTROL),
    ("pass$", "the character $"),
    ("play (TILE", "the character ("),
    ("/play TILE", "the character /"),
    ("play TILE #2", "the character #"),
    ("pass \U0001f600", "the character \U0001f600"),
    ("play TILE\u00b2", "the character \u00b2"),
    ("pass\ufffd", "bytes that are not text"),
]


@pytest.mark.parametrize("line, shown", REFUSED)
def test_a_line_with_a_character_no_one_types_is_refused_once_and_costs_nothing(
        tmp_path: Path, line: str, shown: str) -> None:
    session = _lantern(tmp_path)
    line = line.replace("TILE", _hand_tile(session))
    before, logged = session.state, len(read_jsonl(tmp_path / "g.jsonl"))
    reply = session.handle(line)
    assert reply.public == [(f"I can't take {shown} in a typed line. "
                            "Type letters, digits, spaces, apostrophes and hyphens.")]
    assert [e["type"] for e in reply.logged] == ["command-rejected"]
    assert reply.logged[0]["utterance"] == line and "is not typed text" in reply.logged[0]["reason"]
    assert session.state == before and len(read_jsonl(tmp_path / "g.jsonl")) == logged + 1


@pytest.mark.parametrize("line", ["pass", "Pass.", "pass!", "  pass  ", "pass\t", "PASS", "ｐａｓｓ"])
def test_ordinary_typing_still_plays(tmp_path: Path, line: str) -> None:
    session = _lantern(tmp_path)
    reply = session.handle(line)
    assert reply.accepted and [e["type"] for e in reply.logged] == ["passed"], reply.public


def test_a_command_typed_as_a_question_is_refused_and_a_query_answered(tmp_path: Path) -> None:
    session = _lantern(tmp_path)
    before = session.state
    reply = session.handle("finish?")
    assert reply.public == [("That reads as a question, so nothing is done. "
                            "Type it without the question mark to do it.")]
    assert [e["type"] for e in reply.logged] == ["command-rejected"] and session.state == before
    assert not [e for e in read_jsonl(tmp_path / "g.jsonl") if e["type"] == "route-ended"]
    for query in ("status?", "help?", "hands?", "what can I say?"):
        answer = session.handle(query)
        assert answer.logged == [] and answer.public and "question" not in answer.public[0], query
    assert session.state == before
    session.handle("finish")
    assert [e["reason"] for e in read_jsonl(tmp_path / "g.jsonl") if e["type"] == "route-ended"] == ["finished"]


def test_clover_clues_and_names_keep_their_accents(tmp_path: Path) -> None:
    session, _ = Session.start("clover", names=["Zoë", "José", "Ana"], seed=4, options={"extra": 1},
                               log_path=tmp_path / "g.jsonl", table=TableData(tmp_path / "data"))
    _open.append(session)
    for line in ("clue Zoe\u0308 top café", "clue josé right nai\u0308ve", "clue 3 left don’t",
                 "clue 3 right rock'n'roll", "clue 3 top x-ray."):
        reply = session.handle(line)
        assert reply.accepted, (line, reply.public)
    clues = session.state.clues
    assert clues[1]["top"] == "café" and clues[2]["right"] == "naïve"
    assert clues[3]["left"] == "don't" and clues[3]["right"] == "rock'n'roll" and clues[3]["top"] == "x-ray"


@pytest.mark.parametrize("text, odd", [
    ("Zoë José Ana ÅSA Łukasz", None), ("Zoe\u0308", None), ("Привет мир", None), ("東京 ３", None),
    ("٣ أحمد", None), ("don’t stop—", "\u2014"), ("a\u00a0b", None), ("x\u2028y", "\u2028"),
    ("tab\tok", None), ("it's x-ray, ok? yes! fine: done; so…", None), ("quote \"", '"'), ("5%", "%"),
    ("_", "_"), ("1\u20e3", "\u20e3"), ("a\u0301\u0302", None), ("\u00ad", "\u00ad"),
])
def test_what_a_player_types(text: str, odd: str | None) -> None:
    from facilitator.grammar import untyped_character

    assert untyped_character(text) == odd


def test_refused_lines_on_stdin_log_one_rejection_each_and_the_game_goes_on(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    lines = ["\u202epass", "pass$", "finish?", "pass", "status?"]
    done = run_cli(["play", "lantern-links", "--text", "--seed", "9", "--routes", "7,1,12", "--log", str(log),
                    "--data-dir", str(tmp_path / "data")], "\n".join(lines) + "\n")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    events = read_jsonl(log)
    assert [e["type"] for e in events if e["type"] in ("command-rejected", "passed", "route-ended")] == [
        "command-rejected", "command-rejected", "command-rejected", "passed"]
    assert f"I can't take {FORMAT} in a typed line." in done.stdout
