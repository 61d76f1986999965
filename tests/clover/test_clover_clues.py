"""Clue checks: the golden table (refused / noted / accepted, with the reason), the
clue's text arriving intact through the grammar, and what each writer is told."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from facilitator.command import Command
from facilitator.games.clover.board import Side, all_words, board_from_json
from facilitator.games.clover.clues import Refusal, check_clue, same_family
from facilitator.games.clover.lexicon import Lexicon, fold, word_list
from facilitator.grammar import load_grammar


def _golden(name: str) -> dict[str, Any]:
    return tomllib.loads((Path(__file__).parent / "golden" / name).read_text(encoding="utf-8"))


GOLDEN = _golden("clue_checks.toml")
BOARD_WORDS = all_words(board_from_json(GOLDEN["board"]))
BY_EAR = _golden("clue_checks_by_ear.toml")


def _describe(row: dict[str, Any]) -> tuple[str, str | None, str | None, list[str]]:
    return row["verdict"], row.get("reason"), row.get("word"), list(row.get("notes", []))


ROWS = [(GOLDEN, r) for r in GOLDEN["rows"]] + [(BY_EAR, r) for r in BY_EAR["rows"]]


@pytest.mark.parametrize(("table", "row"), ROWS, ids=[repr(r["clue"]) for _, r in ROWS])
def test_clue_check_golden_table(table: dict[str, Any], row: dict[str, Any]) -> None:
    lexicon = word_list()
    assert lexicon is not None, "the English word list (Debian wamerican) is installed by .ci/setup"
    verdict = check_clue(row["clue"], all_words(board_from_json(table["board"])), lexicon)
    notes = [n.kind.value + (f":{n.word}" if n.word else "") for n in verdict.notes]
    if verdict.refused is not None:
        got = ("refused", verdict.refused.value, verdict.word, notes)
    else:
        got = ("noted" if notes else "accepted", None, None, notes)
    assert got == _describe(row)


def test_fold_ignores_case_accents_and_hyphens() -> None:
    assert fold("Fire-Fighter") == fold("firefighter") == "firefighter"
    assert fold("ÉCLAIR") == "eclair"


def test_same_family_is_symmetric_on_the_rules_example() -> None:
    assert same_family("Prince", "princess") and same_family("princess", "Prince")
    assert not same_family("horse", "house")


def test_without_a_word_list_no_unknown_word_note() -> None:
    verdict = check_clue("Clooney", BOARD_WORDS, None)
    assert verdict.accepted and verdict.notes == ()


def test_a_small_word_list_decides_what_is_known() -> None:
    lexicon = Lexicon({"night", "light", "fire", "station"}, "test")
    assert check_clue("nightlight", [], lexicon).notes == ()  # two known words, solid
    assert check_clue("night-light", [], lexicon).notes == ()
    assert check_clue("nightlite", [], lexicon).notes[0].kind.value == "unknown-word"
    assert check_clue("2024", [], lexicon).notes == ()


@pytest.mark.parametrize(
    ("line", "clue"),
    [
        ("clue 2 top night-light", "night-light"),
        ("clue 2 top FBI", "FBI"),
        ("clue 2 top 13", "13"),
        ("clue 2 top Bzzzz", "Bzzzz"),
        ("clue 2 right fire-station", "fire-station"),
        ("clue 2 left Clooney", "Clooney"),
        ("clue 2 bottom Statión", "Statión"),
        ("clue 2 top rock'n'roll", "rock'n'roll"),
        ("clue 2 top fire station", "fire station"),
        ("CLUE 2 TOP Wool", "Wool"),
        ("clue 2 top", ""),
    ],
)
def test_typed_clues_arrive_intact(line: str, clue: str) -> None:
    command = load_grammar("clover").parse(line)
    assert isinstance(command, Command) and command.intent == "clue"
    assert command.slots.get("clue", "") == clue
    assert command.slots["seat"] == "2"


def test_a_clue_is_typed_only() -> None:
    assert not isinstance(load_grammar("clover").parse("clue 2 top wool", typed=False), Command)


def test_each_writer_hears_why_privately(new_table: Callable[..., Any]) -> None:
    table = new_table(players=3, seed=4)
    board = table.board(2)
    keyword = board[next(iter(board))][0]
    table.say("clue 2 top")
    table.say("clue 2 top fire station")
    table.say(f"clue 2 top {keyword.upper()}")
    table.say("clue 2 right Clooney")
    private = [p for p in table.private if p["type"] in ("clue-refused", "clue-noted")]
    assert [(p["audience"], p["type"], p.get("reason") or p.get("note")) for p in private] == [
        (2, "clue-refused", "empty"),
        (2, "clue-refused", "space"),
        (2, "clue-refused", "board-word"),
        (2, "clue-noted", "unknown-word"),
    ]
    assert private[1]["text"] == (
        "Your clue for top, fire station, has a space. "
        "Write one word; join a compound with a hyphen."
    )
    assert (
        private[2]["text"]
        == f"Your clue for top, {keyword.upper()}, is one of your own keywords. Write another word."
    )
    assert private[3]["text"] == (
        "Note: your clue for right, Clooney, is not in the dictionary. "
        "It is accepted; the table may judge it."
    )
    # the table hears only that a clue was not accepted: never the clue nor the keyword
    # and an accepted clue is not announced one by one (only a seat's fourth is)
    assert table.public[-3:] == [
        "Player 2, your clue for top was not accepted; the reason is on your screen.",
        "Player 2, your clue for top was not accepted; the reason is on your screen.",
        "Player 2, your clue for top was not accepted; the reason is on your screen.",
    ]
    assert table.state.written(2) == 1


def test_a_later_clue_replaces_the_earlier_one_and_a_refused_one_keeps_it(
    new_table: Callable[..., Any],
) -> None:
    table = new_table(players=3, seed=4)
    table.say("clue 1 top wool")
    table.say("clue 1 top station")
    table.say("clue 1 top two words")
    assert table.state.clues[1] == {Side.TOP: "station"}
    assert table.public[-1] == "Player 1, your clue for top was not accepted; the reason is on your screen."


keyword = st.sampled_from(BOARD_WORDS)


@given(keyword, st.lists(st.booleans(), min_size=12, max_size=12), st.integers(0, 11))
def test_any_spelling_of_a_board_word_is_refused(
    word: str, upper: list[bool], hyphen_at: int
) -> None:
    """Case, accents and hyphens are ignored: every such spelling of a keyword is refused."""
    accents = {"e": "é", "a": "à", "o": "ô"}
    letters = [ch.upper() if up else ch for ch, up in zip(word, upper + [False] * len(word))]
    if hyphen_at < len(letters) - 1:
        letters.insert(hyphen_at + 1, "-")
    spelled = "".join(accents.get(ch, ch) if i % 2 else ch for i, ch in enumerate(letters))
    verdict = check_clue(spelled, BOARD_WORDS, None)
    assert (verdict.refused, verdict.word) == (Refusal.BOARD_WORD, word)


@given(
    st.text(alphabet="abcxyz-'1", min_size=1, max_size=8),
    st.text(alphabet="abcxyz", min_size=1, max_size=8),
)
def test_a_clue_with_a_space_is_always_refused(head: str, tail: str) -> None:
    assert check_clue(f"{head} {tail}", BOARD_WORDS, None).refused == Refusal.SPACE


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12))
def test_a_clue_is_refused_only_for_the_three_reasons(clue: str) -> None:
    verdict = check_clue(clue, BOARD_WORDS, None)
    assert verdict.accepted == (fold(clue) not in {fold(w) for w in BOARD_WORDS})
