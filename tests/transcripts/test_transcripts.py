"""What a listener hears in a whole game, reviewed: golden transcripts and word counts.

Each game's script (``GAME.in``) is played through ``facilitator play GAME --text`` in a
real subprocess; its stdout must equal the reviewed ``GAME.txt``.  After a deliberate
change to what the games say, rewrite the golden files with
``FACILITATOR_UPDATE_TRANSCRIPTS=1 pytest tests/transcripts`` and review the diff.

The same scripts are then replayed in-process to measure every reply in words against
the limits written in docs/compass-code.md and docs/lantern-links.md:

* a turn announcement (everything said after one move that does not end a leg or a
  route) is at most 25 words, and each of its sentences at most 15; a move that ends
  a leg or a route (and perhaps starts the next, or ends the game) at most 45 words;
* ``status`` starts with one sentence of at most 15 words; ``help`` too;
* any sentence a query gives (pages for "more") is at most 20 words.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support import run_cli, script_lines, words

from facilitator.session import Session

HERE = Path(__file__).parent

#: how each golden game is started (the first lines of its script say the same)
GAMES = {
    "compass-code": (["--seed", "11", "--keeper", "human", "--names", "Ann,Ben,Cat,Dan"],
                     {"seed": 11, "names": ["Ann", "Ben", "Cat", "Dan"],
                      "options": {"keeper": "human", "mode": "standard"}}),
    "lantern-links": (["--seed", "5", "--players", "3"],
                      {"seed": 5, "players": 3, "options": {"pool": False}}),
}
MOVES = {"send", "check", "feedback", "play", "pass", "rewind", "restart leg", "finish"}
ENDS = {"leg-ended", "route-ended", "leg-restarted"}

TURN_WORDS = 25
END_WORDS = 45
SENTENCE_WORDS = 15
STATUS_WORDS = 15
QUERY_SENTENCE_WORDS = 20


def sentences(line: str) -> list[str]:
    """A line's sentences (a full stop, question or exclamation mark and a space end one)."""
    return [s for s in re.split(r"(?<=[.?!])\s+", line.strip()) if s]


def script(game: str) -> list[str]:
    return script_lines(HERE / f"{game}.in")


@dataclass
class Heard:
    """Replies of one scripted game, sorted by what asked for them."""

    turns: list[list[str]] = field(default_factory=list)      # moves that end nothing
    ends: list[list[str]] = field(default_factory=list)       # moves that end a leg or route
    queries: dict[str, list[list[str]]] = field(default_factory=dict)


def play_in_process(game: str, tmp_path: Path) -> Heard:
    _, start = GAMES[game]
    session, _ = Session.start(game, log_path=tmp_path / f"{game}.jsonl", **start)  # type: ignore[arg-type]
    heard = Heard()
    for line in script(game):
        reply = session.handle(line)
        assert reply.command is not None, line
        intent = reply.command.intent
        if intent in MOVES and reply.accepted:
            ended = any(e["type"] in ENDS for e in reply.logged)
            (heard.ends if ended else heard.turns).append(reply.public)
        elif intent in session.referee.queries:
            heard.queries.setdefault(intent, []).append(reply.public)
    session.log.close()
    return heard


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_game_sounds_as_reviewed(game: str, tmp_path: Path) -> None:
    args, _ = GAMES[game]
    private = ["--private", str(tmp_path / "private.jsonl")]   # a human keeper's lines go there
    result = run_cli(["play", game, "--text", *args, *private], "\n".join(script(game)) + "\n",
                     timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    golden = HERE / f"{game}.txt"
    if os.environ.get("FACILITATOR_UPDATE_TRANSCRIPTS"):
        golden.write_text(result.stdout, encoding="utf-8")
    assert result.stdout == golden.read_text(encoding="utf-8")
    # routes and tiles are said as words, never as runs of letters ("N E S W", "C B F")
    assert re.search(r"\b[A-J](?: [A-J]){2,}\b|\b[NESW](?: [NESW]){3}\b", result.stdout) is None


@pytest.mark.parametrize("game", sorted(GAMES))
def test_turn_announcements_are_short(game: str, tmp_path: Path) -> None:
    heard = play_in_process(game, tmp_path)
    assert len(heard.turns) >= 10
    for reply in heard.turns:
        assert words(" ".join(reply)) <= TURN_WORDS, reply
        for line in reply:
            for sentence in sentences(line):
                assert words(sentence) <= SENTENCE_WORDS, sentence
    assert heard.ends
    for reply in heard.ends:
        assert words(" ".join(reply)) <= END_WORDS, reply


@pytest.mark.parametrize("game", sorted(GAMES))
def test_status_and_help_say_one_short_sentence_first(game: str, tmp_path: Path) -> None:
    heard = play_in_process(game, tmp_path)
    for intent in ("status", "help"):
        assert heard.queries.get(intent), f"the {game} script asks for {intent}"
        for reply in heard.queries[intent]:
            first = reply[0]
            assert len(sentences(first)) == 1 and words(first) <= STATUS_WORDS, first
    for intent, replies in heard.queries.items():
        for reply in replies:
            for line in reply:
                assert words(line) <= QUERY_SENTENCE_WORDS, (intent, line)


def figures(game: str, tmp_path: Path) -> dict[str, float]:
    """Words per announcement in the golden game (the playing-by-ear table of benchmarks/RESULTS.md)."""
    heard = play_in_process(game, tmp_path)
    turn = [words(" ".join(r)) for r in heard.turns]
    end = [words(" ".join(r)) for r in heard.ends]
    status = [words(r[0]) for r in heard.queries["status"]]
    return {"turn_mean": sum(turn) / len(turn), "turn_max": max(turn), "end_mean": sum(end) / len(end),
            "end_max": max(end), "status_first": max(status)}


def test_the_playing_by_ear_figures_are_current(tmp_path: Path) -> None:
    """The playing-by-ear rows (benchmarks/RESULTS.md, moved from the README in issue
    49) are what the golden games measure."""
    readme = (HERE.parent.parent / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    for game, title in (("compass-code", "Compass Code"), ("lantern-links", "Lantern Links")):
        f = figures(game, tmp_path / game)
        row = (f"| {title} | {f['turn_mean']:.1f} / {f['turn_max']:.0f} ({TURN_WORDS}) | "
               f"{f['status_first']:.0f} ({STATUS_WORDS}, one sentence")
        assert row in readme, row
        assert f"| {f['end_mean']:.1f} / {f['end_max']:.0f} ({END_WORDS}) |" in readme
