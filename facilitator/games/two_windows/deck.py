"""The catalogue, the 18 report packets and the practice set, from ``content/two-windows/``.

A fact is a field and a value in capitals, as printed: ``"FORM ROUND"``.  The
checks here are the content contract of the game: every packet's four facts name
exactly one catalogue entry (its target), and each report holds two facts of that
entry, in two different fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Literal

from pydantic import field_validator

from ...content import Strict, load
from ...errors import ContentError
from .names import distinguishable_problem

CATALOGUE_FILE = "two-windows/catalogue.toml"
PACKETS_FILE = "two-windows/packets.toml"
PRACTICE_FILE = "two-windows/practice.toml"
PACKET_COUNT = 18

#: the four printed fields and their two values each
FIELDS: dict[str, tuple[str, str]] = {
    "FORM": ("ROUND", "SQUARE"),
    "SIZE": ("SMALL", "LARGE"),
    "SURFACE": ("PLAIN", "STRIPED"),
    "EDGE": ("SMOOTH", "NOTCHED"),
}
ALL_FACTS = tuple(f"{field} {value}" for field, values in FIELDS.items() for value in values)


def fact_problem(text: str) -> str | None:
    """Why ``text`` is not a fact like ``FORM ROUND`` (None if it is one)."""
    parts = text.split()
    if len(parts) != 2:
        return f"fact {text!r} must be a field and a value, like 'FORM ROUND'"
    field, value = parts
    if field not in FIELDS:
        return f"fact {text!r}: unknown field {field!r} (one of {', '.join(FIELDS)})"
    if value not in FIELDS[field]:
        return f"fact {text!r}: {field} is {' or '.join(FIELDS[field])}"
    return None


def field_of(fact: str) -> str:
    return fact.split()[0]


class Entry(Strict):
    """One catalogue entry: a name and one value in each field."""

    name: str
    form: Literal["ROUND", "SQUARE"]
    size: Literal["SMALL", "LARGE"]
    surface: Literal["PLAIN", "STRIPED"]
    edge: Literal["SMOOTH", "NOTCHED"]

    @field_validator("name")
    @classmethod
    def _capitalised(cls, value: str) -> str:
        if not value.isalpha() or value != value.capitalize():
            raise ValueError(f"name {value!r} must be one capitalised word of letters")
        return value

    @property
    def facts(self) -> frozenset[str]:
        return frozenset({f"FORM {self.form}", f"SIZE {self.size}", f"SURFACE {self.surface}",
                          f"EDGE {self.edge}"})


def _distinct_names(entries: list[Entry]) -> list[Entry]:
    names = [e.name.lower() for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"name {twice[0].capitalize()!r} appears twice")
    if len(entries) < 2:
        raise ValueError("a catalogue needs at least two entries")
    return entries


class Catalogue(Strict):
    entries: list[Entry]

    @field_validator("entries")
    @classmethod
    def _names(cls, entries: list[Entry]) -> list[Entry]:
        return _distinct_names(entries)


class Packet(Strict):
    """One numbered packet: its target and the two facts of report A and of report B."""

    number: int
    target: str
    a: tuple[str, ...]
    b: tuple[str, ...]
    #: halves the printed edition lacks and this project completed ("a", "b")
    completed: tuple[Literal["a", "b"], ...] = ()

    @field_validator("a", "b")
    @classmethod
    def _two_facts(cls, facts: tuple[str, ...]) -> tuple[str, ...]:
        for fact in facts:
            problem = fact_problem(fact)
            if problem:
                raise ValueError(problem)
        if len(facts) != 2:
            raise ValueError(f"a report holds exactly two facts, not {len(facts)}")
        if field_of(facts[0]) == field_of(facts[1]):
            raise ValueError(f"the two facts {list(facts)} share the field {field_of(facts[0])}")
        return facts

    def report(self, holder: str) -> tuple[str, ...]:
        return self.a if holder == "a" else self.b

    def first_stage_pairs(self) -> list[tuple[str, str]]:
        """Every pair of first transmissions: one fact of A with one fact of B."""
        return list(product(self.a, self.b))


class Packets(Strict):
    packets: list[Packet]

    @field_validator("packets")
    @classmethod
    def _numbered(cls, packets: list[Packet]) -> list[Packet]:
        numbers = sorted(p.number for p in packets)
        if numbers != list(range(1, PACKET_COUNT + 1)):
            raise ValueError(f"packet numbers must be 1 to {PACKET_COUNT} once each, got {numbers}")
        return packets


class Practice(Strict):
    """The rules' practice catalogue (Acorn, Brook, Cloud, Drift) and its one report pair."""

    entries: list[Entry]
    packet: Packet

    @field_validator("entries")
    @classmethod
    def _names(cls, entries: list[Entry]) -> list[Entry]:
        return _distinct_names(entries)


def matching(entries: list[Entry], facts: tuple[str, ...] | list[str]) -> list[Entry]:
    """The entries that have every one of ``facts``."""
    return [e for e in entries if set(facts) <= e.facts]


@dataclass(frozen=True)
class Deck:
    """A catalogue with its packets, checked against each other."""

    entries: tuple[Entry, ...]
    packets: dict[int, Packet]

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.entries]

    def entry(self, name: str) -> Entry:
        return next(e for e in self.entries if e.name == name)

    def fewest_left(self, packet: Packet) -> tuple[int, tuple[str, str]]:
        """The fewest entries any first-stage pair leaves, and the first pair that does."""
        counted = [(len(matching(list(self.entries), pair)), pair) for pair in packet.first_stage_pairs()]
        return min(counted, key=lambda cp: cp[0])


def verify(entries: list[Entry], packet: Packet, file: str) -> None:
    """Raise ``ContentError`` unless ``packet`` proves its target from ``entries``.

    The four facts must name exactly one entry, that entry must be the packet's
    target, and each report must hold two facts of it.
    """
    where = f"packet {packet.number}"
    names = [e.name for e in entries]
    if packet.target not in names:
        raise ContentError(file, where, f"target {packet.target!r} is not in the catalogue")
    target = next(e for e in entries if e.name == packet.target)
    for holder in ("a", "b"):
        for fact in packet.report(holder):
            if fact not in target.facts:
                raise ContentError(file, where,
                                   f"report {holder.upper()} says {fact!r}, which is not true of {target.name}")
    named = matching(entries, packet.a + packet.b)
    if len(named) != 1:
        raise ContentError(file, where, f"the four facts name {len(named)} entries "
                           f"({', '.join(e.name for e in named)}), not exactly one")


def load_deck(directory: Path | None = None) -> Deck:
    """The scored catalogue and its 18 packets, every packet verified."""
    catalogue = load(CATALOGUE_FILE, Catalogue, directory)
    packets = load(PACKETS_FILE, Packets, directory)
    for packet in packets.packets:
        verify(catalogue.entries, packet, f"content/{PACKETS_FILE}")
    return Deck(tuple(catalogue.entries), {p.number: p for p in packets.packets})


def load_practice(directory: Path | None = None) -> Deck:
    """The practice catalogue and its one report pair (packet number 0)."""
    practice = load(PRACTICE_FILE, Practice, directory)
    verify(practice.entries, practice.packet, f"content/{PRACTICE_FILE}")
    return Deck(tuple(practice.entries), {practice.packet.number: practice.packet})


def check(directory: Path | None = None) -> list[str]:
    """The content check's report: each packet's target and its fewest first-stage entries."""
    lines: list[str] = []
    for label, file, deck in (("catalogue", CATALOGUE_FILE, load_deck(directory)),
                              ("practice catalogue", PRACTICE_FILE, load_practice(directory))):
        problem = distinguishable_problem(deck.names)
        if problem:
            raise ContentError(f"content/{file}", "entries", problem)
        lines.append(f"{label}: {len(deck.entries)} entries ({', '.join(deck.names)}), "
                     "every name told apart by sound and spelling")
        for number, packet in sorted(deck.packets.items()):
            fewest, pair = deck.fewest_left(packet)
            counts = [len(matching(list(deck.entries), p)) for p in packet.first_stage_pairs()]
            title = "practice packet" if label.startswith("practice") else f"packet {number:02d}"
            lines.append(
                f"{title}: {packet.target}; four facts name it alone, each report holds two of its "
                f"facts; first-stage pairs leave {'/'.join(map(str, counts))} entries, fewest {fewest} "
                f"(A {pair[0]} + B {pair[1]})")
    return lines
