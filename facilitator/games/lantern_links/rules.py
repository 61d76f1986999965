"""The rules of a Lantern chain: matching, turning a tile, scoring, and the solver.

Pure functions over plain values: a tile is its two words, a chain is the
sequence of placed links (left word, right word), appended at the right only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations

WORDS = ("SUN", "MOON", "LEAF", "KEY")
CHAIN_LENGTH = 6
CHECKPOINT_AFTER = 3
MAX_POINTS = CHAIN_LENGTH + 2


@dataclass(frozen=True)
class Link:
    """A placed tile: its letter, its words as turned, and whose hand it came from."""

    tile: str
    left: str
    right: str
    owner: int | None = None


def orient(words: tuple[str, str], open_word: str) -> tuple[str, str] | None:
    """The tile turned so its left word matches ``open_word``; None for a mismatch.

    Only a tile with neither end showing the open word is a mismatch.  A tile whose
    first word matches is placed as printed; otherwise it is turned end for end.
    """
    first, second = words
    if first == open_word:
        return first, second
    if second == open_word:
        return second, first
    return None


def open_word(start: str, chain: Sequence[Link]) -> str:
    """The word a next tile must match: START, or the last tile's right word."""
    return chain[-1].right if chain else start


def is_matched(start: str, chain: Sequence[Link]) -> bool:
    """Every link's left word equals the word open before it (START for the first)."""
    word = start
    for link in chain:
        if link.left != word:
            return False
        word = link.right
    return True


@dataclass(frozen=True)
class Score:
    placed: int
    end_bonus: int
    checkpoint_bonus: int

    @property
    def points(self) -> int:
        return self.placed + self.end_bonus + self.checkpoint_bonus


def score(chain: Sequence[Link], end: str, checkpoint: str, recorded: str | None) -> Score:
    """Score a route as the rules do.

    One point for each tile in the (always matched) chain, 0 to 6.  Only when all
    six tiles are used: one more if the last open word is the card's END, and one
    more if the word recorded after tile three is the card's CHECKPOINT.  An
    incomplete route earns only its placed tiles.  Maximum 8.
    """
    placed = len(chain)
    if placed < CHAIN_LENGTH:
        return Score(placed, 0, 0)
    return Score(placed, int(chain[-1].right == end), int(recorded == checkpoint))


def complete_chains(start: str, tiles: Mapping[str, tuple[str, str]]) -> list[list[Link]]:
    """Every order of all ``tiles`` that makes a matched chain from ``start``.

    The orientation is forced by the open word (a tile with both ends equal to it
    is a double, which looks the same either way), so an order of letters is a chain.
    """
    found = []
    for order in permutations(sorted(tiles)):
        word = start
        chain: list[Link] = []
        for letter in order:
            turned = orient(tiles[letter], word)
            if turned is None:
                break
            chain.append(Link(letter, *turned))
            word = turned[1]
        else:
            found.append(chain)
    return found


def solutions(start: str, end: str, checkpoint: str,
              tiles: Mapping[str, tuple[str, str]]) -> list[str]:
    """The full-score routes (END and CHECKPOINT met), as strings of letters."""
    return ["".join(link.tile for link in chain)
            for chain in complete_chains(start, tiles)
            if chain[-1].right == end and chain[CHECKPOINT_AFTER - 1].right == checkpoint]
