"""The ten link tiles and the twelve route cards, loaded from ``content/lantern-links/``.

Both files are validated on load; the cards are then checked against the tiles:
each card names six tiles, is solvable, and its answer note (``solution``) is a
full-score route.  Problems name the file, the entry and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import field_validator, model_validator

from ...content import Strict, load
from ...errors import ContentError
from .rules import CHAIN_LENGTH, WORDS, complete_chains, solutions

TILES_FILE = "lantern-links/tiles.toml"
ROUTES_FILE = "lantern-links/routes.toml"
LETTERS = "ABCDEFGHIJ"
CARDS = 12


def _word(value: str) -> str:
    if value not in WORDS:
        raise ValueError(f"word {value!r} is not one of {', '.join(WORDS)} (upper case)")
    return value


class Tile(Strict):
    letter: str
    words: tuple[str, str]

    @field_validator("letter")
    @classmethod
    def _letter(cls, value: str) -> str:
        if len(value) != 1 or value not in LETTERS:
            raise ValueError(f"tile letter {value!r} must be one of A to J")
        return value

    @field_validator("words")
    @classmethod
    def _words(cls, value: tuple[str, str]) -> tuple[str, str]:
        for word in value:
            _word(word)
        return value


class TileSet(Strict):
    tiles: list[Tile]


class RouteCard(Strict):
    number: int
    tiles: list[str]
    start: str
    end: str
    checkpoint: str
    solution: list[str]

    @field_validator("tiles", "solution")
    @classmethod
    def _six_tiles(cls, value: list[str]) -> list[str]:
        for letter in value:
            if len(letter) != 1 or letter not in LETTERS:
                raise ValueError(f"tile {letter!r} must be a letter A to J")
        if len(value) != CHAIN_LENGTH or len(set(value)) != CHAIN_LENGTH:
            raise ValueError(f"needs {CHAIN_LENGTH} different tiles, got {value}")
        return value

    @field_validator("start", "end", "checkpoint")
    @classmethod
    def _symbol(cls, value: str) -> str:
        return _word(value)

    @model_validator(mode="after")
    def _solution_uses_tiles(self) -> RouteCard:
        if sorted(self.solution) != sorted(self.tiles):
            raise ValueError(f"solution {''.join(self.solution)} does not use the card's tiles "
                             f"{''.join(sorted(self.tiles))}")
        return self


class RouteDeck(Strict):
    routes: list[RouteCard]


@dataclass(frozen=True)
class Card:
    """A route card with its tiles' words and what the solver found."""

    number: int
    start: str
    end: str
    checkpoint: str
    tiles: dict[str, tuple[str, str]]
    solution: str
    solutions: tuple[str, ...]
    complete: tuple[str, ...]


@dataclass(frozen=True)
class Deck:
    tiles: dict[str, tuple[str, str]]
    cards: dict[int, Card]


def load_deck(directory: Path | None = None) -> Deck:
    """Both files, validated, with every card solved and its answer note checked."""
    tile_list = load(TILES_FILE, TileSet, directory).tiles
    _once_each(TILES_FILE, "tiles", "letter", [t.letter for t in tile_list], list(LETTERS))
    seen: dict[tuple[str, ...], int] = {}
    for index, tile in enumerate(tile_list):
        pair = tuple(sorted(tile.words))
        if pair in seen:
            raise ContentError(f"content/{TILES_FILE}", f"tiles entry {index + 1} (letter {tile.letter!r})",
                               f"shows the same words as entry {seen[pair] + 1}: {' '.join(pair)}")
        seen[pair] = index
    tiles = {t.letter: t.words for t in tile_list}
    routes = load(ROUTES_FILE, RouteDeck, directory).routes
    _once_each(ROUTES_FILE, "routes", "number", [r.number for r in routes], list(range(1, CARDS + 1)))
    cards = {}
    for index, route in enumerate(routes):
        entry = f"routes entry {index + 1} (number {route.number})"
        used = {letter: tiles[letter] for letter in route.tiles}
        complete = complete_chains(route.start, used)
        full = solutions(route.start, route.end, route.checkpoint, used)
        note = "".join(route.solution)
        if not full:
            raise ContentError(f"content/{ROUTES_FILE}", entry, "no order of its tiles meets START, "
                               "CHECKPOINT and END: the card cannot be solved")
        if note not in full:
            raise ContentError(f"content/{ROUTES_FILE}", entry, f"solution {note} is not a full-score "
                               "route (every tile matched, CHECKPOINT after three, END last)")
        cards[route.number] = Card(
            route.number, route.start, route.end, route.checkpoint, used, note, tuple(full),
            tuple("".join(link.tile for link in chain) for chain in complete))
    return Deck(tiles, dict(sorted(cards.items())))


def _once_each(relpath: str, table: str, key: str, found: list[Any], wanted: list[Any]) -> None:
    """Each of ``wanted`` exactly once: the entry that repeats or the values missing."""
    for index, value in enumerate(found):
        if value in found[:index]:
            raise ContentError(f"content/{relpath}", f"{table} entry {index + 1} ({key} {value!r})",
                               f"{key} {value!r} is used twice (also entry {found.index(value) + 1})")
        if value not in wanted:
            raise ContentError(f"content/{relpath}", f"{table} entry {index + 1} ({key} {value!r})",
                               f"{key} must be {wanted[0]} to {wanted[-1]}")
    missing = [str(v) for v in wanted if v not in found]
    if missing:
        raise ContentError(f"content/{relpath}", table, f"missing {key} {', '.join(missing)}")


def check(directory: Path | None = None) -> list[str]:
    """``facilitator content check``: every card solvable, with its number of solutions."""
    deck = load_deck(directory)
    lines = [f"content/{TILES_FILE}: {len(deck.tiles)} tiles, A to J"]
    for card in deck.cards.values():
        ends = set(_ends(card))
        where = (f"all ending on END {card.end}" if ends == {card.end} else
                 f"some ending on {', '.join(sorted(ends - {card.end}))}, not END {card.end}")
        lines.append(
            f"content/{ROUTES_FILE}: card {card.number:2d}: {len(card.solutions)} full-score "
            f"solution{'s' if len(card.solutions) != 1 else ''} "
            f"({', '.join(card.solutions)}); {len(card.complete)} complete "
            f"chain{'s' if len(card.complete) != 1 else ''}, {where}; "
            f"answer note {card.solution} scores 8")
    return lines


def _ends(card: Card) -> list[str]:
    """The last open word of each complete chain of ``card``."""
    out = []
    for order in card.complete:
        word = card.start
        for letter in order:
            a, b = card.tiles[letter]
            word = b if a == word else a
        out.append(word)
    return out
