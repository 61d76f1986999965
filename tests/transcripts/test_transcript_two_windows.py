"""Two Windows by ear: a whole scripted game through ``facilitator play`` (a real
subprocess) matches its reviewed golden transcript, and what a listener hears is
measured in words against the limits written in docs/two-windows.md:

* ``status`` is one sentence of at most 28 words (after ``more`` it holds four facts);
* every announcement line (the reply to a move) is at most 20 words;
* a round change (the reply to a final answer) starts with the verdict (at most
  10 words), says who decodes next at most two lines later, and is at most 45
  words in all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import read_jsonl, run_cli, script_lines, words

from facilitator.games.two_windows import REFEREE
from facilitator.session import Session
from facilitator.table_data import TableData

HERE = Path(__file__).parent
SCRIPT = HERE / "two-windows.in"
GOLDEN = HERE / "two-windows.txt"
ARGS = ["--seed", "7", "--players", "4", "--packets", "1,8,13,4,17,10"]
QUERIES = {"status", "help", "read rules", "read catalogue", "read entry", "which entries"}

STATUS_WORDS = 28
LINE_WORDS = 20
VERDICT_WORDS = 10
ROUND_CHANGE_WORDS = 45


def _replies(tmp: Path) -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    """The opening lines, then (line, intent, public lines) for each scripted line, in-process."""
    session, opening = Session.start("two-windows", players=4, seed=7,
                                     options=REFEREE.parse_options({"packets": "1,8,13,4,17,10"}),
                                     table=TableData(tmp / "data"))
    out = []
    for line in script_lines(SCRIPT):
        reply = session.handle(line)
        intent = reply.command.intent if reply.command else ""
        out.append((line, intent, reply.public))
    session.log.close()
    return opening.public, out


@pytest.mark.slow
def test_a_whole_game_matches_the_golden_transcript(tmp_path: Path) -> None:
    private = tmp_path / "private.jsonl"
    done = run_cli(["play", "two-windows", "--text", *ARGS, "--private", str(private),
                    "--data-dir", str(tmp_path / "data")], SCRIPT.read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == GOLDEN.read_text(encoding="utf-8")
    assert done.stdout.splitlines()[-1] == "Game over: 7 of 12 points."
    # every report went to its informants only: no private text reaches what the table hears
    lines = read_jsonl(private)
    assert {p["audience"] for p in lines} == {"a", "b"}
    assert not any(p["text"] in done.stdout for p in lines)


def test_the_in_process_replies_are_the_golden_transcript(tmp_path: Path) -> None:
    opening, replies = _replies(tmp_path)
    heard = opening + [line for _, _, public in replies for line in public]
    assert heard == GOLDEN.read_text(encoding="utf-8").splitlines()


def test_status_is_one_short_sentence(tmp_path: Path) -> None:
    _, replies = _replies(tmp_path)
    statuses = [public for _, intent, public in replies if intent == "status"]
    assert len(statuses) == 3
    for public in statuses:
        assert len(public) == 1 and public[0].count(". ") == 0
        assert words(public[0]) <= STATUS_WORDS, public[0]


def test_every_announcement_line_is_short(tmp_path: Path) -> None:
    opening, replies = _replies(tmp_path)
    announced = opening + [line for _, intent, public in replies if intent not in QUERIES
                           for line in public]
    too_long = [line for line in announced if words(line) > LINE_WORDS]
    assert too_long == []


def test_a_round_change_says_the_verdict_first_and_who_decodes_soon_after(tmp_path: Path) -> None:
    _, replies = _replies(tmp_path)
    changes = [public for _, intent, public in replies if intent == "final" and len(public) > 1]
    assert len(changes) == 6
    for public in changes[:-1]:
        assert words(public[0]) <= VERDICT_WORDS, public[0]
        assert public[0].startswith(("Right, ", "Not ")), public[0]
        assert any(" decodes, " in line for line in public[:3]), public
        assert sum(words(line) for line in public) <= ROUND_CHANGE_WORDS, public
    assert changes[-1][-1] == "Game over: 7 of 12 points."
