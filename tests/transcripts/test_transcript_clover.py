"""Clover by ear: a whole scripted game through ``facilitator play`` (a real
subprocess) matches its reviewed golden transcript, and what a listener hears is
measured in words against the limits written in docs/clover.md:

* ``status`` is one sentence of at most 25 words;
* every announcement line (the reply to a clue or a move) is at most 20 words;
* clue writing is announced once per seat (its fourth clue), plus one line per
  refused clue: never a line per accepted clue;
* a board change (the commit that scores a board) starts with the score (at most
  12 words) and is at most 60 words with the next board's clues.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import read_jsonl, run_cli, script_lines, words

from facilitator.session import Session
from facilitator.table_data import TableData

HERE = Path(__file__).parent
SCRIPT = HERE / "clover.in"
GOLDEN = HERE / "clover.txt"
ARGS = ["--seed", "11", "--players", "4"]
QUERIES = {"status", "help", "read rules", "read card", "read cards", "read clues", "read board"}

STATUS_WORDS = 25
LINE_WORDS = 20
SCORE_WORDS = 12
BOARD_CHANGE_WORDS = 60


def _replies(tmp: Path) -> tuple[list[str], list[tuple[str, str, list[str], list[dict]]]]:
    """The opening lines, then (line, intent, public, private) for each scripted line."""
    session, opening = Session.start("clover", players=4, seed=11, options={"extra": 1},
                                     table=TableData(tmp / "data"), private_path=tmp / "private.jsonl")
    out = []
    for line in script_lines(SCRIPT):
        reply = session.handle(line)
        intent = reply.command.intent if reply.command else ""
        out.append((line, intent, reply.public, reply.private))
    session.log.close()
    return opening.public, out


@pytest.mark.slow
def test_a_whole_game_matches_the_golden_transcript(tmp_path: Path) -> None:
    private = tmp_path / "private.jsonl"
    done = run_cli(["play", "clover", "--text", *ARGS, "--private", str(private),
                    "--data-dir", str(tmp_path / "data")], SCRIPT.read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == GOLDEN.read_text(encoding="utf-8")
    assert done.stdout.splitlines()[-2] == "The game is over: 19 of 24 points."
    lines = read_jsonl(private)
    # "read my board 2" reached seat 2 alone, through the private file, and never stdout
    answers = [p for p in lines if p["type"] == "private-answer"]
    assert [p["audience"] for p in answers] == [2]
    dealt = next(p for p in lines if p["type"] == "board-dealt" and p["audience"] == 2)
    for slot in dealt["board"]:
        for word in slot["words"]:
            assert word in answers[0]["text"]
    assert not any(p["text"] in done.stdout for p in lines)


def test_the_in_process_replies_are_the_golden_transcript(tmp_path: Path) -> None:
    opening, replies = _replies(tmp_path)
    heard = opening + [line for _, _, public, _ in replies for line in public]
    assert heard == GOLDEN.read_text(encoding="utf-8").splitlines()


def test_status_is_one_short_sentence(tmp_path: Path) -> None:
    _, replies = _replies(tmp_path)
    statuses = [public for _, intent, public, _ in replies if intent == "status"]
    assert len(statuses) == 3
    for public in statuses:
        assert len(public) == 1 and public[0].count(". ") == 0
        assert words(public[0]) <= STATUS_WORDS, public[0]


def test_every_announcement_line_is_short(tmp_path: Path) -> None:
    opening, replies = _replies(tmp_path)
    announced = opening + [line for _, intent, public, _ in replies if intent not in QUERIES
                           for line in public]
    assert [line for line in announced if words(line) > LINE_WORDS] == []


def test_clue_writing_is_one_line_per_seat_not_per_clue(tmp_path: Path) -> None:
    _, replies = _replies(tmp_path)
    clues = [(line, public) for line, intent, public, _ in replies if intent == "clue"]
    assert len(clues) == 17                                  # 16 accepted, 1 refused
    heard = [said for _, public in clues for said in public if not said.startswith("Resolution")
             and not said.startswith("The clues for")]
    assert heard == ["Player 2, your clue for top was not accepted; the reason is in the private file.",
                     "Player 1's clues are in: 1 of 4 ready.", "Player 2's clues are in: 2 of 4 ready.",
                     "Player 3's clues are in: 3 of 4 ready.", "Player 4's clues are in: 4 of 4 ready."]


def test_a_board_change_says_the_score_first_and_stays_short(tmp_path: Path) -> None:
    _, replies = _replies(tmp_path)
    changes = [public for _, intent, public, _ in replies
               if intent == "commit" and any("scores" in line for line in public)]
    assert len(changes) == 4
    for public in changes:
        assert "scores" in public[0] and words(public[0]) <= SCORE_WORDS, public[0]
    for public in changes[:-1]:
        assert public[2].startswith("Resolution "), public
        assert sum(words(line) for line in public) <= BOARD_CHANGE_WORDS, public
