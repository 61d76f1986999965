"""Resolution and scoring, as the rules' table says:

| All four right, first attempt | 6 |
| Otherwise, per correct card after the second attempt | 1 |

"If the first attempt is wrong, the Spectator silently takes back the wrong cards
[...] and the correct ones stay put.  You get one more attempt, then score one point
per correct card, nought to four."  A card is right in the right slot with the right
rotation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from facilitator.games.clover.board import SLOTS, Slot
from facilitator.games.clover.resolution import score


def _start(new_table: Callable[..., Any], extra: int = 1) -> Any:
    table = new_table(players=3, seed=21, extra=extra)
    table.write_clues()
    assert table.state.phase == "resolution" and table.state.spectator == 1
    return table


def _spoil(table: Any, slots: list[Slot]) -> None:
    """Turn the card in each of ``slots`` a quarter: right card, wrong rotation."""
    for slot in slots:
        table.say(f"turn {table.state.layout.card_in(slot)}")


def _events(table: Any, kind: str) -> list[dict[str, Any]]:
    return table.events(kind)


def _logged(table: Any) -> list[dict[str, Any]]:
    return table.events()


def test_the_rules_score_table() -> None:
    assert score(1, 4) == 6
    assert [score(1, k) for k in range(4)] == [None] * 4  # a second attempt follows
    assert [score(2, k) for k in range(5)] == [0, 1, 2, 3, 4]


def test_all_four_right_first_time_scores_six(new_table: Callable[..., Any]) -> None:
    table = _start(new_table)
    table.solve()
    table.say("commit")
    assert table.state.scores == {1: 6}
    assert table.public[-4].startswith(
        "All four right at the first attempt! Player 1's board scores 6."
    )
    assert table.state.spectator == 2 and table.state.layout.attempt == 1


@pytest.mark.parametrize(
    ("first_wrong", "second_wrong", "points"),
    [
        (SLOTS, [], 4),  # nothing right, then all right
        (SLOTS, SLOTS[:1], 3),
        (SLOTS, SLOTS[:2], 2),
        (SLOTS, SLOTS[:3], 1),
        (SLOTS, SLOTS, 0),  # nothing right at all
        (SLOTS[:2], [], 4),  # two locked, the other two fixed
        (SLOTS[:2], SLOTS[:2], 2),  # two locked, the other two still wrong
        (SLOTS[3:], SLOTS[3:], 3),
    ],
)
def test_wrong_then_second_attempt_scores_one_per_right_card(
    new_table: Callable[..., Any], first_wrong: list[Slot], second_wrong: list[Slot], points: int
) -> None:
    table = _start(new_table)
    table.solve()
    _spoil(table, list(first_wrong))
    placed_before = table.state.layout.placed()
    table.say("commit")
    layout = table.state.layout
    assert layout.attempt == 2
    right = [s for s in SLOTS if s not in first_wrong]
    assert layout.locked == frozenset(right)  # the right ones stay put
    assert {s.value: c for s, c in zip(SLOTS, layout.slots) if c is not None} == {
        s.value: placed_before[s.value] for s in right
    }
    returned = sorted(placed_before[s.value] for s in first_wrong)
    assert sorted(layout.pool) == sorted(set(layout.pool) | set(returned))
    back = " and ".join(", ".join(map(str, returned)).rsplit(", ", 1))
    if right:
        assert table.public[-1] == (
            f"{len(right)} {'card is right and stays' if len(right) == 1 else 'cards are right and stay'} "
            f"locked. Back to the middle: {back}. One more attempt."
        )
    else:
        assert (
            table.public[-1] == f"No card is right. Back to the middle: {back}. One more attempt."
        )
    table.solve()
    _spoil(table, list(second_wrong))
    table.say("commit")
    assert table.state.scores == {1: points}
    attempts = _events(table, "attempt-made")
    assert [(a["attempt"], a["correct_cards"]) for a in attempts] == [(1, len(right)), (2, points)]
    scored = _events(table, "board-scored")[-1]
    assert scored["points"] == points and scored["attempts"] == 2


def test_returned_cards_keep_their_orientation(new_table: Callable[..., Any]) -> None:
    table = _start(new_table)
    table.solve()
    _spoil(table, [Slot.TOP_LEFT])
    card = table.state.layout.card_in(Slot.TOP_LEFT)
    faces = table.state.layout.words(card)
    table.say("commit")
    assert table.state.layout.slot_of(card) is None
    assert table.state.layout.words(card) == faces


def test_locked_cards_and_slots_refuse_moves_and_cost_nothing(
    new_table: Callable[..., Any],
) -> None:
    table = _start(new_table)
    table.solve()
    _spoil(table, [Slot.TOP_LEFT])
    table.say("commit")
    locked = table.state.layout.card_in(Slot.TOP_RIGHT)
    free = table.state.layout.pool[0]
    before = table.state
    table.say(f"turn {locked}")
    assert table.public[-1] == f"Card {locked} is right and locked in the top right slot."
    table.say(f"place {locked} top-left")
    assert table.public[-1] == f"Card {locked} is right and locked in the top right slot."
    table.say(f"place {free} top-right")
    assert table.public[-1] == "The top right slot holds a locked card."
    table.say("commit")
    assert table.public[-1] == "Fill every slot first. Empty: top left."
    assert table.state == before
    assert [e["type"] for e in _logged(table)[-4:]] == ["command-rejected"] * 4


def test_placing_on_an_occupied_slot_swaps(new_table: Callable[..., Any]) -> None:
    table = _start(new_table, extra=2)
    table.say("place 1 top-left")
    table.say("place 2 top-right")
    table.say("place 1 top-right")  # from a slot: the two cards trade places
    layout = table.state.layout
    assert (layout.card_in(Slot.TOP_LEFT), layout.card_in(Slot.TOP_RIGHT)) == (2, 1)
    assert table.public[-1] == "Card 1 is in the top right slot. Card 2 moves to the top left slot."
    table.say("place 3 top-left")  # from the middle: the displaced card goes back
    layout = table.state.layout
    assert layout.card_in(Slot.TOP_LEFT) == 3 and 2 in layout.pool
    assert table.public[-1] == "Card 3 is in the top left slot. Card 2 goes back to the middle."
    table.say("place 3 top-left")
    assert table.public[-1] == "Card 3 is already in the top left slot."
    table.say("place 7 top-left")
    assert table.public[-1] == "There is no card 7; the cards are 1 to 6."
    placed = _events(table, "card-placed")
    assert {k: v for k, v in placed[-1].items() if k != "seq"} == {
        "type": "card-placed",
        "audience": "public",
        "spectator": 1,
        "card": 3,
        "slot": "top-left",
        "from": None,
        "swapped": 2,
    }


def test_a_perfect_game_is_six_per_player(new_table: Callable[..., Any]) -> None:
    table = _start(new_table)
    for _ in range(3):
        table.solve()
        table.say("commit")
    assert table.session.over
    ended = _events(table, "game-ended")[-1]
    assert ended["points"] == 18 and ended["scores"] == {"1": 6, "2": 6, "3": 6}
    assert "The game is over: 18 of 18 points." in table.public


def test_spectators_rotate_left_and_the_next_seat_commits(new_table: Callable[..., Any]) -> None:
    table = _start(new_table)
    seen = []
    for _ in range(3):
        seen.append((table.state.spectator, table.state.committer()))
        table.solve()
        table.say("commit")
    assert seen == [(1, 2), (2, 3), (3, 1)]
    started = _events(table, "resolution-started")
    assert [len(e["cards"]) for e in started] == [5, 5, 5]
    assert all(set(e["clues"]) == {"top", "right", "bottom", "left"} for e in started)
