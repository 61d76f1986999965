"""Damaged logs are refused with one line and exit 2, and left as they were:
sequence gaps, numbering that does not start at 1, a well-formed extra event, wrong
value types, a line inside another command's batch.  A changed deck before resume
is refused too: the game is never ruled with content it did not start with."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from faults.fault_games import COMPASS_MACHINE, Table, one_line, run, script, start_args
from support import ROOT

Lines = list[dict]


def _played(tmp_path: Path) -> Table:
    table = Table(tmp_path / "t")
    done = run(start_args(COMPASS_MACHINE, table), script(COMPASS_MACHINE.lines[:5]))
    assert done.returncode == 0, done.stderr
    return table


def _rewrite(table: Table, change: Callable[[Lines], Lines]) -> None:
    lines = [json.loads(x) for x in table.log.read_text().splitlines()]
    table.log.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in change(lines)))


def _renumber(lines: Lines) -> Lines:
    return [{**x, "seq": n} for n, x in enumerate(lines, 1)]


def _gap(lines: Lines) -> Lines:
    return lines[:6] + lines[7:]


def _from_5(lines: Lines) -> Lines:
    return [{**x, "seq": x["seq"] + 4} for x in lines]


def _extra_copy(lines: Lines) -> Lines:
    # a well-formed extra command: the last score logged again, numbered and batched
    extra = {**lines[-2], "seq": len(lines) + 1, "batch": len(lines) + 1, "batch_size": 1}
    return lines + [extra]


def _extra_inside(lines: Lines) -> Lines:
    # an extra event slipped into the middle, everything renumbered
    return _renumber(lines[:5] + [dict(lines[3])] + lines[5:])


def _string_anchors(lines: Lines) -> Lines:
    return [{**x, "anchors": str(x["anchors"])} if x["type"] == "guess-scored" else x for x in lines]


def _bool_solved(lines: Lines) -> Lines:
    return [{**x, "leg": True} if x["type"] == "guess-scored" else x for x in lines]


@pytest.mark.slow
@pytest.mark.parametrize("change, says", [
    (_gap, "does not follow"),
    (_from_5, "does not start the log at 1"),
    (_extra_copy, "not the line the referee wrote"),
    (_extra_inside, "line 6"),
    (_string_anchors, "not the line the referee wrote"),
    (_bool_solved, "not the line the referee wrote"),
], ids=["gap", "from-5", "extra-command", "extra-event-inside", "string-anchors", "bool-leg"])
def test_a_damaged_log_is_refused_with_one_line_and_left_alone(tmp_path: Path, change, says: str) -> None:
    table = _played(tmp_path)
    _rewrite(table, change)
    before = table.log.read_bytes()
    done = run(["play", "compass-code", "--text", "--resume", str(table.log)], b"status\n")
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert says in done.stderr and done.stdout == ""
    assert table.log.read_bytes() == before


@pytest.mark.slow
@pytest.mark.parametrize("field, value, says", [
    ("anchors", "2", "guess-scored.anchors = '2' is not in the documented form"),
    ("leg", True, "guess-scored.leg = True is not an integer"),
    ("solved", 1, "is not in the documented form"),
])
def test_wrong_value_types_are_refused_even_without_a_chain(tmp_path: Path, field: str, value, says: str) -> None:
    """A log from before batches has no chain: the field types are still checked."""
    table = _played(tmp_path)
    kind = "leg-ended" if field == "solved" else "guess-scored"

    def change(lines: Lines) -> Lines:
        bare = [{k: v for k, v in x.items() if k not in ("batch", "batch_size", "chain")} for x in lines]
        if kind == "leg-ended":
            bare.append({"type": "leg-ended", "seq": len(bare) + 1, "audience": "public", "leg": 1,
                         "solved": value, "route": "ESNW"})
            return bare
        return [{**x, field: value} if x["type"] == kind else x for x in bare]

    _rewrite(table, change)
    done = run(["play", "compass-code", "--text", "--resume", str(table.log)], b"status\n")
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert says in done.stderr


@pytest.mark.slow
def test_a_deck_changed_before_resume_is_refused(tmp_path: Path) -> None:
    table = _played(tmp_path)
    content = tmp_path / "content"
    shutil.copytree(ROOT / "content", content)
    routes = content / "compass-code" / "routes.toml"
    routes.write_text(routes.read_text() + "\n# edited after the game started\n")
    before = table.log.read_bytes()
    done = run(["play", "compass-code", "--text", "--resume", str(table.log)], b"status\n",
               env={"FACILITATOR_CONTENT_DIR": str(content)})
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert "decks changed" in done.stderr and "content version" in done.stderr
    assert table.log.read_bytes() == before
    # the same decks as at the start: it resumes
    again = run(["play", "compass-code", "--text", "--resume", str(table.log)], b"status\n")
    assert again.returncode == 0, again.stderr


@pytest.mark.slow
def test_a_changed_packet_is_refused_before_a_two_windows_game_resumes(tmp_path: Path) -> None:
    from faults.fault_games import TWO_WINDOWS

    table = Table(tmp_path / "t")
    done = run(start_args(TWO_WINDOWS, table), script(TWO_WINDOWS.lines[:5]))
    assert done.returncode == 0, done.stderr
    content = tmp_path / "content"
    shutil.copytree(ROOT / "content", content)
    packets = content / "two-windows" / "packets.toml"
    packets.write_text(packets.read_text().replace("ROUND", "SQUARE", 1))
    resumed = run(["play", "two-windows", "--text", "--resume", str(table.log), "--private", str(table.private),
                   "--data-dir", str(table.data)], script(TWO_WINDOWS.lines[5:]),
                  env={"FACILITATOR_CONTENT_DIR": str(content)})
    assert resumed.returncode == 2 and one_line(resumed.stderr) and "decks changed" in resumed.stderr
