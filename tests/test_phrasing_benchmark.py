"""Floors for the typed natural-phrasing benchmark (``python -m benchmarks phrasing``,
``benchmarks/phrasing/``), run through the benchmark's own ``typed_report``: the grammar,
then the meaning stage, as a typed line is understood.

Typed understanding is deterministic, so its figures can be held here: the share of
natural phrasings understood (applied, or asked by meaning and right) on each half stays
a few points under the figure the benchmark reports (benchmarks/RESULTS.md, "Understood
by meaning": first corpus tuning 99.3 %, held out 95.8 %; wide tuning 98.8 %, held out
84.1 %; third tuning set 95.0 %), and table talk typed gives no more commands than it
does now: answered (asked, or a grammar's command), and changing the game (a grammar's
command applied; meaning's are only asked).  A parser that lost its skip words,
contractions or synonyms, or a meaning stage that lost its encoder, falls through a
floor; one that starts taking table talk for commands goes over a ceiling.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.phrasing.run import typed_report

#: half -> (least natural lines, least share understood, least talk lines, most talk lines
#: answered, most talk lines changing the game); lines are only ever added to a half, so
#: fewer is a lost line, not a harder corpus
BOUNDS = {
    "tuning": (407, 0.97, 79, 3, 1),
    "held_out": (166, 0.93, 55, 10, 1),
    "wide_tuning": (433, 0.96, 120, 3, 1),
    "wide_held_out": (478, 0.81, 122, 24, 0),
    "third_tuning": (497, 0.92, 211, 4, 2),
}


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    return {half: typed_report(half) for half in BOUNDS}


@pytest.mark.parametrize("half", BOUNDS)
def test_typed_natural_phrasing_stays_above_its_floor(reports: dict[str, dict[str, Any]], half: str) -> None:
    report = reports[half]
    lines, floor, _, _, _ = BOUNDS[half]
    assert report["natural"] >= lines
    assert report["share"] >= floor, "\n".join(report["missed"])


@pytest.mark.parametrize("half", BOUNDS)
def test_typed_table_talk_gives_no_more_commands(reports: dict[str, dict[str, Any]], half: str) -> None:
    report = reports[half]
    _, _, talk, answered, changing = BOUNDS[half]
    assert report["talk lines"] >= talk
    assert len(report["talk answered"]) <= answered, report["talk answered"]
    assert len(report["talk changes game"]) <= changing, report["talk changes game"]


def test_a_spoken_grammar_command_is_scored_as_play_takes_it() -> None:
    """Spoken lines are scored by what play does with them (``policy.take``): a guess heard sure
    by both engines is echoed and applied; the light mode (never sure) asks it, so a wrong
    guess forced onto natural words is a question answered no, not a wrong action; a query
    heard unsure from the table with no word to the referee meets silence."""
    from benchmarks.phrasing.corpus import Line
    from benchmarks.phrasing.understanding import Result, heard, taken

    guess = Line("wide_held_out", "compass-code", "captain", "send north east south west", "send NESW")
    found = heard(guess, "send north east south west", ())
    assert found.by == "grammar"
    assert taken(guess, found, sure=True, addressed=False, can_be_sure=True) == "applied"
    assert taken(guess, found, sure=False, addressed=True, can_be_sure=False) == "asked"
    wrong = Line("wide_held_out", "compass-code", "captain", "send north east south west", "send ENSW")
    assert Result(wrong, found, "grammar", "asked").outcome == "asked wrong"
    assert Result(wrong, found, "grammar", "applied").outcome == "applied wrong"
    query = Line("wide_held_out", "compass-code", "captain", "status", "status")
    said = heard(query, "status", ())
    assert taken(query, said, sure=False, addressed=False, can_be_sure=False) == "silent"
    assert Result(query, said, "grammar", "silent").outcome == "missed"
    assert taken(query, said, sure=False, addressed=True, can_be_sure=False) == "applied"
