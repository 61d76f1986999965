"""Board geometry: quarter turns, the four clue zones, and the board's logged form."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from facilitator.games.clover.board import (
    SLOTS,
    ZONES,
    Side,
    Slot,
    all_words,
    board_from_json,
    board_to_json,
    turn,
    turns_between,
    zone_words,
)

CARD = ("house", "sheep", "rope", "anchor")  # top, right, bottom, left
distinct_words = st.lists(
    st.text("abcdefghij", min_size=1, max_size=6), min_size=4, max_size=4, unique=True
)


def test_one_clockwise_turn_brings_the_left_word_to_the_top() -> None:
    # DESIGN: "turn CARD (a quarter turn clockwise: the left word goes to the top)"
    assert turn(CARD) == ("anchor", "house", "sheep", "rope")
    assert turn(CARD, 2) == ("rope", "anchor", "house", "sheep")
    assert turn(CARD, 3) == ("sheep", "rope", "anchor", "house")


@given(distinct_words, st.integers(-12, 12))
def test_rotations_round_trip(words: list[str], k: int) -> None:
    assert turn(turn(words, k), -k) == tuple(words)
    assert turn(words, 4) == tuple(words)
    assert turns_between(words, turn(words, k)) == k % 4
    assert sorted(turn(words, k)) == sorted(words)


def test_another_card_is_no_rotation() -> None:
    assert turns_between(CARD, ("house", "sheep", "anchor", "rope")) is None


def test_a_card_has_four_words() -> None:
    with pytest.raises(ValueError, match="four words"):
        turn(("a", "b", "c"))


BOARD = {
    Slot.TOP_LEFT: ("house", "sock", "moss", "ladder"),
    Slot.TOP_RIGHT: ("firefighter", "sheep", "cup", "kite"),
    Slot.BOTTOM_RIGHT: ("drum", "clothing", "pearl", "nest"),
    Slot.BOTTOM_LEFT: ("owl", "tent", "lemon", "wagon"),
}


@pytest.mark.parametrize(
    ("zone", "pair"),
    [
        # the rules: "the top clue is about the top word of the top-left card and the
        # top word of the top-right card, and so on" (House and Firefighter -> Station)
        (Side.TOP, ("house", "firefighter")),
        (Side.RIGHT, ("sheep", "clothing")),  # Sheep and Clothing -> Wool
        (Side.BOTTOM, ("lemon", "pearl")),
        (Side.LEFT, ("ladder", "wagon")),
    ],
)
def test_each_zone_pairs_the_two_outward_words_on_its_edge(
    zone: Side, pair: tuple[str, str]
) -> None:
    assert zone_words(BOARD, zone) == pair


def test_inward_words_belong_to_no_zone() -> None:
    outward = {w for zone in ZONES for w in zone_words(BOARD, zone)}
    assert len(outward) == 8
    assert set(all_words(BOARD)) - outward == {
        "moss",
        "sock",
        "kite",
        "cup",
        "drum",
        "nest",
        "owl",
        "tent",
    }


def test_board_json_round_trips_in_the_documented_form() -> None:
    items = board_to_json(BOARD)
    assert [i["slot"] for i in items] == ["top-left", "top-right", "bottom-right", "bottom-left"]
    assert items[0] == {"slot": "top-left", "words": ["house", "sock", "moss", "ladder"]}
    assert board_from_json(items) == BOARD
    assert [s.value for s in SLOTS] == [i["slot"] for i in items]


def test_a_board_fills_each_slot_once() -> None:
    items = board_to_json(BOARD)
    with pytest.raises(ValueError, match="twice"):
        board_from_json(items + [items[0]])
    with pytest.raises(ValueError, match="all four"):
        board_from_json(items[:3])
