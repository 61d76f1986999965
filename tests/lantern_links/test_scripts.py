"""Scripted games through the session: the rules' turns, passes, the rewind and the ends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Make = Callable[..., Any]     # the ``table`` fixture (conftest.py): a Table factory


def test_answer_note_in_order_scores_eight_and_the_start_moves(table: Make) -> None:
    t = table(routes=(1, 7, 12))
    assert t.state.first == 1 and t.state.turn == 1
    for i, tile in enumerate("CBFHIJ"):
        t.place(tile, how="words" if i % 2 else "nato")
        assert t.heard[-1].startswith(("Player", "End bonus", "One solution", "Route 2"))
    ended = t.events("route-ended")
    assert ended == [{**ended[0], "route": 1, "placed": 6, "end_bonus": 1, "checkpoint_bonus": 1,
                      "points": 8, "reason": "complete", "checkpoint": "LEAF", "total": 8}]
    started = t.events("route-started")
    assert [(e["route"], e["index"], e["first"]) for e in started] == [(1, 1, 1), (7, 2, 2)]
    assert "Route 1 complete: 8 points, 8 in all." in t.heard
    assert t.heard[t.heard.index("Route 1 complete: 8 points, 8 in all.") + 1] == (
        "End bonus 1, checkpoint bonus 1.")
    assert not any(line.startswith("One solution") for line in t.heard)   # only read after a miss
    assert t.replayed() == t.state


def test_open_word_is_read_after_every_placement(table: Make) -> None:
    t = table()
    said = t.place("C")
    # tiles are said by their words as turned, never by letter: C is SUN LEAF, turned
    assert said[0] == "Player 1 places leaf sun in space 1. The open word is sun."
    said = t.place("B")
    assert said[0].endswith("places sun moon in space 2. The open word is moon.")
    said = t.place("F")
    assert said[1] == "Checkpoint recorded: leaf, as the card asks."


def test_deal_is_clockwise_from_the_starting_player_and_even(table: Make) -> None:
    for players in (2, 3, 4, 5, 6):
        t = table(players=players, seed=players)
        hands = t.events("route-started")[0]["hands"]
        sizes = [len(hands[str(s)]) for s in range(1, players + 1)]
        # six tiles dealt one at a time from seat 1: earlier seats get the extra tiles
        assert sizes == [6 // players + (1 if s < 6 % players else 0) for s in range(players)]
        assert sorted(x for h in hands.values() for x in h) == list("BCFHIJ")


def test_mismatch_returns_the_tile_and_counts_as_a_pass(table: Make) -> None:
    t = table(routes=(1, 7, 12))
    t.place("C")                            # SUN is open: only B (SUN MOON) fits
    seat = t.state.turn
    wrong = [x for x in t.state.hands[seat - 1] if "SUN" not in t.state.words[x]]
    assert wrong, t.state.hands
    tile = wrong[0]
    a, b = t.state.words[tile]
    said = t.say(f"play {tile}")
    assert said == [(f"Player {seat}'s {a.lower()} {b.lower()} does not match sun: it goes back, "
                     f"and Player {seat} passes."),
                    f"Player {seat % 3 + 1}'s turn. The open word is sun."]
    assert [e["type"] for e in t.replies[-1].logged] == ["tile-returned", "passed"]
    assert t.events("passed")[-1] == {**t.events("passed")[-1], "seat": seat, "mismatch": True}
    assert t.state.holder(tile) == seat and len(t.state.chain) == 1
    assert t.state.passes == 1 and t.state.turn == seat % 3 + 1


def test_rewinding_tile_three_clears_the_checkpoint_and_the_next_third_tile_sets_it(table: Make) -> None:
    t = table(routes=(7, 1, 12))            # START KEY, CHECKPOINT LEAF, END MOON
    t.place("G")
    t.place("E")
    said = t.place("B")                     # MOON -> SUN: the wrong halfway word
    assert "Checkpoint recorded: sun. The card asks leaf." in said
    assert t.state.recorded == "SUN"
    owner_b = t.state.holder("B") or next(e for e in t.events("tile-placed") if e["tile"] == "B")["seat"]
    rewinder = t.state.turn
    said = t.say("rewind")
    assert said[0] == f"Player {rewinder} rewinds: sun moon goes back to Player {owner_b}."
    assert said[1] == "The checkpoint record is erased."
    assert t.state.recorded is None and t.state.holder("B") == owner_b
    assert t.events("rewound")[-1] == {**t.events("rewound")[-1], "seat": rewinder, "tile": "B",
                                       "owner": owner_b, "position": 3}
    assert t.state.turn == rewinder % 3 + 1          # the rewind was that turn: no replacement
    assert t.say("rewind") == ["The rewind is already spent on this route."]
    said = t.place("F")
    assert "Checkpoint recorded: leaf, as the card asks." in said
    for tile in "IDB":
        t.place(tile)
    assert t.events("route-ended")[0]["points"] == 8
    assert t.replayed() == t.state


def test_rewinding_a_later_tile_keeps_the_checkpoint_even_after_passes(table: Make) -> None:
    t = table(routes=(7, 1, 12))
    for tile in "GEFI":
        t.place(tile)
    assert t.state.recorded == "LEAF"
    t.say("pass")
    t.say("pass")
    said = t.say("rewind")                  # still the start of a turn, after two passes
    assert said[0].startswith(f"Player {t.state.turn - 1 or 3} rewinds: leaf key goes back")
    assert "The checkpoint record is erased." not in said
    assert t.state.recorded == "LEAF" and len(t.state.chain) == 3 and t.state.passes == 0
    for tile in "IDB":
        t.place(tile)
    ended = t.events("route-ended")[0]
    assert (ended["points"], ended["checkpoint_bonus"], ended["reason"]) == (8, 1, "complete")


def test_dead_end_asks_rewind_or_finish_then_ends(table: Make) -> None:
    t = table(routes=(1, 7, 12))            # I then J leave KEY open: B, C, F, H cannot follow
    t.place("I")
    t.place("J")
    t.say("pass")
    t.say("pass")
    said = t.say("pass")
    asked = t.state.turn
    assert said[-1] == f"Everyone has passed. Player {asked}: rewind or finish?"
    assert t.state.paused and t.events("route-paused")[0]["seat"] == asked
    before = t.state
    for line in ("pass", "play bravo", "leaf sun"):
        assert t.say(line) == [f"Everyone has passed. Player {asked}, say rewind or finish."]
        assert t.state == before                      # refused: costs no turn
    assert t.say("status")[0] == f"Route 1 of 3, 2 tiles placed: Player {asked} chooses rewind or finish."
    t.say("rewind")                                   # J goes back; the group continues
    assert not t.state.paused and [x.tile for x in t.state.chain] == ["I"]
    t.place("J")                                      # the only tile that fits, so the same dead end
    for _ in range(3):
        said = t.say("pass")
    assert "A dead end: route 1 scores 2 points, 2 in all." in said
    # the card's answer note, said with the tiles' words as turned from START LEAF
    assert "One solution: leaf sun, sun moon, moon leaf, leaf leaf, leaf key, key key." in said
    ended = t.events("route-ended")[0]
    assert (ended["placed"], ended["end_bonus"], ended["checkpoint_bonus"], ended["points"],
            ended["reason"]) == (2, 0, 0, 2, "dead-end")
    assert t.state.index == 2 and t.state.first == 2
    assert t.replayed() == t.state


def test_finish_at_the_pause_and_by_agreement(table: Make) -> None:
    t = table(routes=(1, 7, 12))
    t.place("I")
    t.place("J")
    for _ in range(3):
        t.say("pass")
    said = t.say("finish")                  # instead of spending the rewind
    assert said[0] == "Route 1 finished: 2 points, 2 in all."
    t.place("G")                            # route 2, card 7, starts at seat 2
    said = t.say("we agree to finish")
    assert said[0] == "Route 2 finished: 1 point, 3 in all."
    assert [e["reason"] for e in t.events("route-ended")] == ["finished", "finished"]
    assert t.state.first == 3 and t.state.index == 3


def test_an_empty_chain_everyone_passing_is_a_dead_end_at_once(table: Make) -> None:
    t = table(players=2, routes=(1, 7, 12))
    t.say("pass")
    said = t.say("pass")                    # nothing to rewind: no question
    assert said[1] == "A dead end: route 1 scores 0 points, 0 in all."
    assert t.events("route-paused") == []


def test_three_routes_make_a_game_and_the_start_rotates(table: Make) -> None:
    t = table(players=2, routes=(1, 7, 12))
    for tile in "CBFHIJ":
        t.place(tile)
    for tile in "GEFIDB":
        t.place(tile)
    for tile in "FGJD":
        t.place(tile)
    said = t.say("finish")
    assert [e["first"] for e in t.events("route-started")] == [1, 2, 1]
    assert said[-1] == "The game is over: 20 of 24 points."
    assert t.events("game-ended") == [{**t.events("game-ended")[0], "points": 20}]
    assert t.session.over and t.say("pass") == ["The game is over."]


def test_pool_variant_anyone_places_any_tile(table: Make) -> None:
    t = table(players=2, routes=(7, 1, 12), pool=True)
    assert t.heard[0].startswith("Shared-pool version:")
    started = t.events("route-started")[0]
    assert started["hands"] == {} and started["pool"] == list("BDEFGI")
    t.say("play golf")                      # seat 1
    t.say("moon moon")                      # seat 2: E
    said = t.say("play bravo")              # MOON -> SUN, wrong checkpoint
    assert t.state.recorded == "SUN"
    said = t.say("rewind")
    assert said[0] == "Player 2 rewinds: sun moon goes back to the pool."
    said = t.say("play golf")
    assert said == ["The moon key tile is already in the chain, in space 1."]
    t.say("play india")                     # I shows LEAF KEY against MOON: back to the pool
    assert t.events("tile-returned")[-1]["owner"] is None and "I" in t.state.pool
    for tile in "FIDB":
        t.say(f"play {tile.lower()}")
    assert t.events("route-ended")[0]["points"] == 8
    assert "The pool holds" in t.say("hands")[0]
    assert t.replayed() == t.state
