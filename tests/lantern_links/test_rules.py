"""The rules of a chain, the deck against the printed cards, and the answer notes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from facilitator.games.lantern_links.deck import load_deck
from facilitator.games.lantern_links.rules import (
    Link,
    complete_chains,
    is_matched,
    open_word,
    orient,
    score,
    solutions,
)

GOLDEN = Path(__file__).parent / "golden"
DECK = load_deck()


def printed_cards() -> dict[int, tuple[list[str], str, str, str]]:
    text = (GOLDEN / "cards.txt").read_text(encoding="utf-8")
    found = re.findall(r"Lantern Route (\d+)\nUSE tiles ([A-J, ]+)\.\nSTART: (\w+)\. END: (\w+)\.\n"
                       r"CHECKPOINT: after exactly three tiles, the open symbol must be (\w+)\.", text)
    return {int(n): (tiles.split(", "), s, e, c) for n, tiles, s, e, c in found}


def printed_tiles() -> dict[str, tuple[str, str]]:
    text = (GOLDEN / "cards.txt").read_text(encoding="utf-8")
    return {k: (a, b) for k, a, b in re.findall(r"Link ([A-J])\n(\w+) \| (\w+)", text)}


def answer_notes() -> dict[int, tuple[str, list[str]]]:
    text = (GOLDEN / "answer_notes.txt").read_text(encoding="utf-8")
    found = re.findall(r"LL-(\d+)\nOne route, left to right: ([A-J →]+)\. Symbols along it: ([A-Z →]+)\.", text)
    return {int(n): ("".join(route.split(" → ")), words.split(" → ")) for n, route, words in found}


def test_the_content_is_the_printed_deck() -> None:
    cards = printed_cards()
    assert len(cards) == 12 and printed_tiles() == DECK.tiles
    for number, (tiles, start, end, checkpoint) in cards.items():
        card = DECK.cards[number]
        assert (sorted(card.tiles), card.start, card.end, card.checkpoint) == (tiles, start, end, checkpoint)


@pytest.mark.parametrize("number", range(1, 13))
def test_answer_note_is_a_full_score_solution(number: int) -> None:
    route, symbols = answer_notes()[number]
    card = DECK.cards[number]
    assert card.solution == route
    chain = build(card.start, route, card.tiles)
    # the note's "symbols along it" are START then each tile's open word
    assert [card.start] + [link.right for link in chain] == symbols
    # "the fourth symbol is the checkpoint after three tiles"
    assert symbols[3] == card.checkpoint and symbols[-1] == card.end
    assert score(chain, card.end, card.checkpoint, chain[2].right).points == 8
    assert route in solutions(card.start, card.end, card.checkpoint, card.tiles)


def build(start: str, letters: str, tiles: dict[str, tuple[str, str]]) -> list[Link]:
    chain: list[Link] = []
    for letter in letters:
        turned = orient(tiles[letter], open_word(start, chain))
        assert turned is not None, f"{letter} does not match after {letters}"
        chain.append(Link(letter, *turned))
    return chain


def test_the_rules_worked_example() -> None:
    # "If the open word is MOON, a SUN | MOON tile can be turned to MOON | SUN and
    # appended, leaving SUN open. A KEY | LEAF tile cannot follow it."
    assert orient(("SUN", "MOON"), "MOON") == ("MOON", "SUN")
    assert orient(("KEY", "LEAF"), "SUN") is None
    # "Suppose the first three tiles trace SUN → MOON → LEAF → KEY: the halfway word is KEY"
    chain = build("SUN", "BFI", DECK.tiles)
    assert [link.right for link in chain] == ["MOON", "LEAF", "KEY"]
    assert is_matched("SUN", chain)


def test_a_double_tile_advances_one_space() -> None:
    assert orient(("LEAF", "LEAF"), "LEAF") == ("LEAF", "LEAF")
    assert orient(("LEAF", "LEAF"), "SUN") is None


def test_scoring_bonuses_only_with_all_six() -> None:
    card = DECK.cards[1]
    chain = build(card.start, "CBFHIJ", card.tiles)
    assert score(chain[:5], card.end, card.checkpoint, "LEAF").points == 5
    assert score([], card.end, card.checkpoint, None).points == 0
    full = score(chain, card.end, card.checkpoint, "LEAF")
    assert (full.placed, full.end_bonus, full.checkpoint_bonus, full.points) == (6, 1, 1, 8)
    # HCBFIJ is complete but leaves MOON open after three, not LEAF: the END bonus only
    other = build(card.start, "HCBFIJ", card.tiles)
    missed = score(other, card.end, card.checkpoint, other[2].right)
    assert (missed.end_bonus, missed.checkpoint_bonus, missed.points) == (1, 0, 7)


@pytest.mark.parametrize("number", range(1, 13))
def test_every_complete_chain_ends_on_end(number: int) -> None:
    """Why a route never scores 6: six matched tiles always end on the card's END.

    Tiles are edges between words; a chain using all six from START is a trail
    through every edge, so it must end on the other odd-degree word (or on START
    when every degree is even) -- and a solvable card's END is exactly that word.
    """
    card = DECK.cards[number]
    chains = complete_chains(card.start, card.tiles)
    assert chains
    assert {chain[-1].right for chain in chains} == {card.end}


def test_a_complete_route_can_miss_the_checkpoint() -> None:
    """So 7 is a real score: ten of card 7's twelve complete chains miss its checkpoint."""
    card = DECK.cards[7]
    chains = complete_chains(card.start, card.tiles)
    missing = ["".join(link.tile for link in c) for c in chains if c[2].right != card.checkpoint]
    assert len(chains) == 12 and len(missing) == 10 and "DBEFIG" in missing
    chain = build(card.start, "DBEFIG", card.tiles)
    assert score(chain, card.end, card.checkpoint, chain[2].right).points == 7


def test_solution_counts() -> None:
    counts = {n: len(card.solutions) for n, card in DECK.cards.items()}
    assert counts == {1: 2, 2: 1, 3: 2, 4: 2, 5: 1, 6: 1, 7: 2, 8: 3, 9: 3, 10: 3, 11: 1, 12: 4}
