"""The catalogue and the 18 packets: the printed reports, the project's 19 completions,
and the content check's proofs; broken files fail with file, entry and reason."""

from __future__ import annotations

import shutil
from itertools import product
from pathlib import Path

import pytest
from support import ROOT, run_cli

from facilitator.content import check_all
from facilitator.errors import ContentError
from facilitator.games.two_windows import load_deck, load_practice
from facilitator.games.two_windows.deck import check

#: TW-CAT as printed
CATALOGUE = {
    "Alder": "FORM ROUND, SIZE SMALL, SURFACE STRIPED, EDGE NOTCHED",
    "Birch": "FORM ROUND, SIZE SMALL, SURFACE PLAIN, EDGE SMOOTH",
    "Cedar": "FORM SQUARE, SIZE SMALL, SURFACE STRIPED, EDGE NOTCHED",
    "Dahlia": "FORM ROUND, SIZE LARGE, SURFACE PLAIN, EDGE SMOOTH",
    "Elm": "FORM SQUARE, SIZE LARGE, SURFACE STRIPED, EDGE NOTCHED",
    "Fern": "FORM SQUARE, SIZE LARGE, SURFACE PLAIN, EDGE NOTCHED",
    "Gorse": "FORM ROUND, SIZE SMALL, SURFACE STRIPED, EDGE SMOOTH",
    "Hazel": "FORM ROUND, SIZE SMALL, SURFACE PLAIN, EDGE NOTCHED",
}
#: the report texts the rules print (packet, half) -> facts
PRINTED = {
    (1, "a"): "FORM ROUND; SIZE SMALL", (1, "b"): "SURFACE STRIPED; EDGE NOTCHED",
    (2, "a"): "FORM ROUND; SURFACE STRIPED", (2, "b"): "SIZE SMALL; EDGE NOTCHED",
    (3, "a"): "FORM ROUND; EDGE NOTCHED", (3, "b"): "SIZE SMALL; SURFACE STRIPED",
    (4, "b"): "SURFACE PLAIN; EDGE SMOOTH",
    (5, "a"): "FORM ROUND; SURFACE PLAIN", (5, "b"): "SIZE SMALL; EDGE SMOOTH",
    (6, "a"): "FORM ROUND; EDGE SMOOTH", (6, "b"): "SIZE SMALL; SURFACE PLAIN",
    (7, "a"): "FORM SQUARE; SURFACE STRIPED", (8, "a"): "FORM SQUARE; EDGE NOTCHED",
    (9, "b"): "SIZE LARGE; SURFACE PLAIN", (10, "a"): "FORM SQUARE; SIZE LARGE",
    (11, "b"): "SIZE LARGE; EDGE NOTCHED", (12, "b"): "SURFACE PLAIN; EDGE NOTCHED",
}
#: DESIGN.md's completion of the 19 missing texts: packet -> (target, A, B); None = printed
COMPLETED = {
    4: ("Birch", "FORM ROUND; SIZE SMALL", None), 7: ("Cedar", None, "SIZE SMALL; EDGE NOTCHED"),
    8: ("Elm", None, "SIZE LARGE; SURFACE STRIPED"), 9: ("Dahlia", "FORM ROUND; EDGE SMOOTH", None),
    10: ("Fern", None, "SURFACE PLAIN; EDGE NOTCHED"), 11: ("Elm", "FORM SQUARE; SURFACE STRIPED", None),
    12: ("Hazel", "FORM ROUND; SIZE SMALL", None),
    13: ("Gorse", "FORM ROUND; SIZE SMALL", "SURFACE STRIPED; EDGE SMOOTH"),
    14: ("Cedar", "FORM SQUARE; EDGE NOTCHED", "SIZE SMALL; SURFACE STRIPED"),
    15: ("Dahlia", "FORM ROUND; SIZE LARGE", "SURFACE PLAIN; EDGE SMOOTH"),
    16: ("Fern", "FORM SQUARE; EDGE NOTCHED", "SIZE LARGE; SURFACE PLAIN"),
    17: ("Gorse", "FORM ROUND; EDGE SMOOTH", "SIZE SMALL; SURFACE STRIPED"),
    18: ("Hazel", "FORM ROUND; SURFACE PLAIN", "SIZE SMALL; EDGE NOTCHED"),
}


def _facts(text: str, sep: str) -> set[str]:
    return {f.strip() for f in text.split(sep)}


def _named(facts: set[str]) -> list[str]:
    return [name for name, text in CATALOGUE.items() if facts <= _facts(text, ",")]


def test_catalogue_is_as_printed() -> None:
    deck = load_deck()
    assert {e.name: e.facts for e in deck.entries} == {n: _facts(t, ",") for n, t in CATALOGUE.items()}


def test_packets_hold_the_printed_reports_and_the_completions() -> None:
    deck = load_deck()
    assert sorted(deck.packets) == list(range(1, 19))
    completions = 0
    for number, packet in deck.packets.items():
        for half in ("a", "b"):
            held = set(packet.report(half))
            if (number, half) in PRINTED:
                assert held == _facts(PRINTED[number, half], ";"), (number, half)
                assert half not in packet.completed
            else:
                target, a, b = COMPLETED[number]
                assert held == _facts(a if half == "a" else b, ";"), (number, half)
                assert half in packet.completed and packet.target == target
                completions += 1
    assert completions == 19


def test_every_packet_names_its_target_alone_and_each_half_holds_two_of_its_facts() -> None:
    for number, packet in load_deck().packets.items():
        target_facts = _facts(CATALOGUE[packet.target], ",")
        assert _named(set(packet.a) | set(packet.b)) == [packet.target], number
        for half in (packet.a, packet.b):
            assert len(half) == 2 and set(half) <= target_facts


def test_the_check_reports_the_fewest_entries_a_first_stage_pair_leaves() -> None:
    lines = check()
    deck = load_deck()
    for number, packet in deck.packets.items():
        counts = [len(_named({x, y})) for x, y in product(packet.a, packet.b)]
        line = next(l for l in lines if l.startswith(f"packet {number:02d}: {packet.target};"))
        assert f"pairs leave {'/'.join(map(str, counts))} entries, fewest {min(counts)} " in line
    # packet 7: FORM SQUARE with SIZE SMALL can only be Cedar
    assert "fewest 1 (A FORM SQUARE + B SIZE SMALL)" in next(l for l in lines if l.startswith("packet 07"))
    assert any(l.startswith("practice packet: Brook;") and "fewest 1" in l for l in lines)


def test_practice_set_is_the_worked_example() -> None:
    practice = load_practice()
    assert practice.names == ["Acorn", "Brook", "Cloud", "Drift"]
    packet = practice.packets[0]
    assert (packet.target, packet.a, packet.b) == ("Brook", ("FORM ROUND", "SIZE SMALL"),
                                                    ("SURFACE STRIPED", "EDGE NOTCHED"))
    assert not set(practice.names) & set(load_deck().names)


@pytest.fixture
def content(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(ROOT / "content", target)
    return target


def _edit(content: Path, name: str, old: str, new: str, count: int = 1) -> None:
    path = content / "two-windows" / name
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, count))


BROKEN = [
    ("packets.toml", 'a = ["FORM SQUARE", "SURFACE STRIPED"]\nb = ["SIZE SMALL", "EDGE NOTCHED"]',
     'a = ["FORM SQUARE", "SURFACE STRIPED"]\nb = ["SIZE LARGE", "EDGE NOTCHED"]',
     "content/two-windows/packets.toml: packet 7: report B says 'SIZE LARGE', which is not true of Cedar"),
    ("packets.toml", '"FORM ROUND", "SIZE SMALL"]', '"FORM ROUND", "SIZE SMALL", "EDGE NOTCHED"]',
     ("content/two-windows/packets.toml: packets entry 1 (number 1) a: "
     "a report holds exactly two facts, not 3")),
    ("packets.toml", '"FORM ROUND", "SIZE SMALL"]', '"FORM ROUND", "COLOUR RED"]',
     ("content/two-windows/packets.toml: packets entry 1 (number 1) a: "
     "fact 'COLOUR RED': unknown field 'COLOUR' (one of FORM, SIZE, SURFACE, EDGE)")),
    ("packets.toml", '"FORM ROUND", "SIZE SMALL"]', '"FORM ROUND", "FORM SQUARE"]',
     ("content/two-windows/packets.toml: packets entry 1 (number 1) a: "
     "the two facts ['FORM ROUND', 'FORM SQUARE'] share the field FORM")),
    ("packets.toml", "number = 18", "number = 17",
     "content/two-windows/packets.toml: packets: packet numbers must be 1 to 18 once each"),
    ("packets.toml", 'target = "Alder"', 'target = "Alber"',
     "content/two-windows/packets.toml: packet 1: target 'Alber' is not in the catalogue"),
    ("packets.toml", 'target = "Alder"', 'targte = "Alder"',
     "content/two-windows/packets.toml: packets entry 1 (number 1) target: field required"),
    ("catalogue.toml", 'name = "Hazel"', 'name = "Birch"',
     "content/two-windows/catalogue.toml: entries: name 'Birch' appears twice"),
    ("catalogue.toml", 'edge = "NOTCHED"', 'edge = "JAGGED"',
     "content/two-windows/catalogue.toml: entries entry 1 (name 'Alder') edge: input should be"),
    ("catalogue.toml", 'name = "Gorse"', 'name = "Alter"',
     "content/two-windows/packets.toml: packet 13: target 'Gorse' is not in the catalogue"),
    ("practice.toml", 'b = ["SURFACE STRIPED", "EDGE NOTCHED"]', 'b = ["SURFACE PLAIN", "EDGE SMOOTH"]',
     "content/two-windows/practice.toml: packet 0: report B says 'SURFACE PLAIN', which is not true of Brook"),
    ("catalogue.toml", "[[entries]]", "[[entries]", "content/two-windows/catalogue.toml: not valid TOML"),
]


@pytest.mark.parametrize(("name", "old", "new", "message"), BROKEN)
def test_broken_content_names_file_entry_and_reason(content: Path, name: str, old: str, new: str,
                                                    message: str) -> None:
    _edit(content, name, old, new)
    with pytest.raises(ContentError) as caught:
        load_practice(content) if name == "practice.toml" else load_deck(content)
    assert str(caught.value).startswith(message)


def test_facts_that_name_two_entries_are_refused(content: Path) -> None:
    # make Hazel a second round-small-plain-smooth entry: packet 4's facts then name Birch and Hazel
    _edit(content, "catalogue.toml", 'surface = "PLAIN"\nedge = "NOTCHED"\n', 'surface = "PLAIN"\nedge = "SMOOTH"\n', 2)
    with pytest.raises(ContentError) as caught:
        load_deck(content)
    assert "the four facts name 2 entries" in str(caught.value)


def test_confusable_names_fail_the_check(content: Path) -> None:
    _edit(content, "practice.toml", 'name = "Drift"', 'name = "Brooke"')
    _edit(content, "practice.toml", 'name = "Brook"\n', 'name = "Brook"\n')
    _report, problems = check_all(content)
    assert [str(p) for p in problems] == [
        f"{content}/two-windows/practice.toml: entries: 'Brook' and 'Brooke' sound or look too alike to tell apart"]


@pytest.mark.slow
def test_content_check_cli_passes_and_fails_loudly(content: Path) -> None:
    good = run_cli(["content", "check", "--content-dir", str(content)])
    assert good.returncode == 0, good.stderr
    assert sum(l.startswith("two-windows: packet ") for l in good.stdout.splitlines()) == 18
    _edit(content, "packets.toml", 'target = "Hazel"', 'target = "Hazle"')
    bad = run_cli(["content", "check", "--content-dir", str(content)])
    assert bad.returncode != 0
    assert (f"problem: {content}/two-windows/packets.toml: packet 12: target 'Hazle' is not in the catalogue"
            in bad.stderr)
    play = run_cli(["play", "two-windows", "--text"], "status\n",
                   env={"FACILITATOR_CONTENT_DIR": str(content)})
    assert play.returncode == 2 and "Traceback" not in play.stderr
    assert play.stderr.strip().splitlines() == [
        "facilitator: content/two-windows/packets.toml: packet 12: target 'Hazle' is not in the catalogue"]
