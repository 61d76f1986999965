"""Invariants: the deal, and any sequence of table moves keeps the layout valid, costs
nothing when refused, and replaying the log rebuilds the live state (invariant 1)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facilitator.command import Command
from facilitator.errors import IllegalCommandError
from facilitator.events import Event
from facilitator.games.clover import REFEREE
from facilitator.games.clover.board import SLOTS, all_words, turns_between

SLOT_NAMES = [s.value for s in SLOTS]
moves = st.lists(
    st.one_of(
        st.tuples(st.just("place"), st.integers(1, 8), st.sampled_from(SLOT_NAMES)),
        st.tuples(st.just("turn"), st.integers(1, 8), st.just("")),
        st.tuples(st.just("commit"), st.just(0), st.just("")),
    ),
    max_size=40,
)


def _started(players: int, extra: int, seed: int) -> tuple[Any, list[Event]]:
    started = Event(
        "game-started",
        {
            "game": "clover",
            "seed": seed,
            "players": players,
            "names": [f"P{s}" for s in range(1, players + 1)],
            "options": {"extra": extra, "records": {}},
        },
    )
    state = REFEREE.initial(started)
    events = [started]
    for event in REFEREE.setup(state, random.Random(seed)):
        state = REFEREE.evolve(state, event)
        events.append(event)
    return state, events


@given(st.integers(3, 6), st.integers(1, 4), st.integers(0, 10_000))
def test_each_player_gets_four_distinct_cards_none_shared(
    players: int, extra: int, seed: int
) -> None:
    state, events = _started(players, extra, seed)
    dealt = [e for e in events if e.type == "board-dealt"]
    assert [e.audience for e in dealt] == list(range(1, players + 1))
    words = [w for seat in range(1, players + 1) for w in all_words(state.boards[seat])]
    assert len(words) == 16 * players == len(set(words))
    printed = {frozenset(c.words): c.printed for c in REFEREE.deck.cards}
    for seat in range(1, players + 1):
        for slot in SLOTS:
            face = state.boards[seat][slot]
            assert turns_between(printed[frozenset(face)], face) is not None


def test_rotations_are_random_across_deals() -> None:
    printed = {frozenset(c.words): c.printed for c in REFEREE.deck.cards}
    seen = set()
    for seed in range(20):
        state, _ = _started(3, 1, seed)
        for slot in SLOTS:
            face = state.boards[1][slot]
            seen.add(turns_between(printed[frozenset(face)], face))
    assert seen == {0, 1, 2, 3}


def _command(kind: str, card: int, slot: str) -> Command:
    if kind == "place":
        return Command("place", f"place {card} {slot}", {"card": str(card), "slot": slot})
    if kind == "turn":
        return Command("turn", f"turn {card}", {"card": str(card)})
    return Command("commit", "commit")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 4), st.integers(1, 4), st.integers(0, 1000), moves)
def test_any_moves_keep_the_layout_valid_and_replay_equals_live(
    players: int, extra: int, seed: int, script: list[tuple[str, int, str]]
) -> None:
    state, events = _started(players, extra, seed)
    for seat in range(1, players + 1):
        for zone in ("top", "right", "bottom", "left"):
            command = Command(
                "clue", f"clue {seat} {zone} x", {"seat": str(seat), "zone": zone, "clue": "quay"}
            )
            for event in REFEREE.decide(state, command, random.Random(f"{seed}:{len(events)}")):
                state = REFEREE.evolve(state, event)
                events.append(event)
    assert state.phase == "resolution"
    for kind, card, slot in script:
        if REFEREE.is_over(state):
            break
        before = state
        try:
            new = REFEREE.decide(
                state, _command(kind, card, slot), random.Random(f"{seed}:{len(events)}")
            )
        except IllegalCommandError:
            assert state == before
            continue
        for event in new:
            state = REFEREE.evolve(state, event)
            events.append(event)
        layout = state.layout
        if layout is not None:
            held = [c for c in layout.slots if c is not None]
            assert len(held) == len(set(held))  # no card in two slots
            assert all(layout.card_in(s) is not None for s in layout.locked)
            assert len(layout.cards) == 4 + extra
            faces = {frozenset(f) for f in layout.cards}
            assert len(faces) == len(layout.cards)  # cards keep their words
        if before.layout is not None and layout is not None and before.spectator == state.spectator:
            for slot in before.layout.locked:
                assert layout.card_in(slot) == before.layout.card_in(slot)  # locked cards stay
    round_trip = [Event.from_json(e.to_json(n)) for n, e in enumerate(events, 1)]
    assert REFEREE.replay(round_trip) == state
    assert sum(state.scores.values()) <= 6 * players


def test_replay_of_a_played_game_equals_live(new_table: Callable[..., Any]) -> None:
    table = new_table(players=5, seed=12, extra=4)
    table.play_game([6, 0, 4, 1, 2])
    events = [Event.from_json(e) for e in table.events()]
    assert REFEREE.replay(events) == table.state
    assert table.state.scores == {1: 6, 2: 0, 3: 4, 4: 1, 5: 2}
