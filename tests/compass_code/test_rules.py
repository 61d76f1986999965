"""Compass Code's scoring rules, from the rules' own text and worked example."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from facilitator.games.compass_code import (
    ALL_ROUTES,
    POSSIBLE,
    Clue,
    Direction,
    Feedback,
    candidates,
    feedback,
    marks,
)
from facilitator.games.compass_code.deck import load_deck

routes = st.sampled_from(ALL_ROUTES)


def test_worked_example() -> None:
    """Hidden E S N W: the rules' complete worked solution."""
    hidden = "ESNW"
    assert feedback("NESW", hidden) == Feedback(anchors=1, clockwise=2)
    left = candidates(ALL_ROUTES, [Clue(route="NESW", anchors=1, clockwise=2)])
    assert sorted(left) == sorted(["NSWE", "ESNW", "EWSN", "SEWN"])
    assert feedback("NEWS", hidden) == Feedback(anchors=0, clockwise=4)
    assert feedback("ESNW", hidden) == Feedback(anchors=4, clockwise=0)


def test_neither_anchor_nor_step_counterclockwise() -> None:
    """Host note: N guessed against hidden W is neither (W is counterclockwise of N)."""
    assert marks("NESW", "WNES") == "- - - -"
    assert feedback("NESW", "WNES") == Feedback(0, 0)
    assert Direction.WEST.clockwise() is Direction.NORTH


def test_the_deck_is_the_24_routes_in_printed_order() -> None:
    deck = load_deck()
    assert deck.all == list(ALL_ROUTES)
    assert deck.number_of("ESNW") == 9


def test_exactly_nine_pairs_are_possible() -> None:
    assert POSSIBLE == {(0, 0), (0, 1), (0, 2), (0, 4), (1, 0), (1, 2), (2, 0), (2, 1), (4, 0)}


@given(routes, routes)
def test_totals_never_exceed_four_and_are_possible(guess: str, hidden: str) -> None:
    fb = feedback(guess, hidden)
    assert 0 <= fb.anchors + fb.clockwise <= 4
    assert (fb.anchors, fb.clockwise) in POSSIBLE
    m = marks(guess, hidden).split()
    assert m.count("A") == fb.anchors and m.count("C") == fb.clockwise


@given(routes)
def test_a_route_is_the_unique_four_anchors_of_itself(hidden: str) -> None:
    fours = [g for g in ALL_ROUTES if feedback(g, hidden) == Feedback(4, 0)]
    assert fours == [hidden]


@given(routes, st.lists(routes, max_size=4))
def test_the_hidden_route_always_survives_its_own_feedback(hidden: str, guesses: list[str]) -> None:
    clues = [Clue(route=g, anchors=feedback(g, hidden).anchors, clockwise=feedback(g, hidden).clockwise)
             for g in guesses]
    assert hidden in candidates(ALL_ROUTES, clues)


@given(routes, st.sampled_from("NESW"), st.integers(1, 4))
def test_a_bearing_check_keeps_exactly_the_routes_that_agree(hidden: str, d: str, p: int) -> None:
    clue = Clue(direction=d, position=p, answer=hidden[p - 1] == d)
    left = candidates(ALL_ROUTES, [clue])
    assert hidden in left
    assert all((r[p - 1] == d) == clue.answer for r in left)
