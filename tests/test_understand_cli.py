"""``facilitator understand --game GAME [--asked] LINE...``: how each typed line is understood,
one JSON object a line (docs/command-line.md): the command and how it was found, by the
grammar or by meaning (with its score and margin), or nothing."""

from __future__ import annotations

import json

from support import run_cli


def _rows(*args: str, stdin: str = "") -> list[dict[str, object]]:
    done = run_cli(["understand", *args], stdin=stdin)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_each_line_says_its_command_and_how_it_was_found() -> None:
    rows = _rows("--game", "clover", "place card two top right", "rotate the first card please mate",
                 "pass me the crisps")
    assert [r["line"] for r in rows] == ["place card two top right", "rotate the first card please mate",
                                         "pass me the crisps"]
    assert rows[0] == {"line": "place card two top right", "command": "place 2 top-right", "by": "grammar"}
    assert rows[1]["command"] == "turn 1" and rows[1]["by"] == "meaning"
    assert 0.0 < float(rows[1]["score"]) <= 1.0 and float(rows[1]["margin"]) > 0   # type: ignore[arg-type]
    assert rows[2]["command"] is None and rows[2]["by"] is None


def test_asked_reads_the_lines_as_answers_and_never_by_meaning() -> None:
    rows = _rows("--game", "compass-code", "--asked", "yep", "nah", "send north east south west")
    assert [(r["command"], r["by"]) for r in rows] == [("yes", "grammar"), ("no", "grammar"), (None, None)]


def test_lines_from_stdin_and_a_bad_game() -> None:
    rows = _rows("--game", "lantern-links", stdin="# a note\n\nskip me this round\n")
    assert len(rows) == 1 and rows[0]["command"] == "pass"
    done = run_cli(["understand", "--game", "chess", "pass"])
    assert done.returncode == 2 and "unsupported game" in done.stderr and "Traceback" not in done.stderr
