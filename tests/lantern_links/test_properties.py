"""Invariants over any sequence of lines: the chain stays matched, scores are possible,
refused lines change nothing, and replaying the log rebuilds the live state."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facilitator.games.lantern_links.referee import State
from facilitator.games.lantern_links.rules import MAX_POINTS, is_matched
from facilitator.log import read_log
from facilitator.session import Session

NATO = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
WORDS = ["sun", "moon", "leaf", "key"]

line = st.one_of(
    st.sampled_from("abcdefghij").map(lambda c: f"play {c}"),
    st.sampled_from(NATO).map(lambda w: f"play {w}"),
    st.tuples(st.sampled_from(WORDS), st.sampled_from(WORDS)).map(" ".join),
    st.sampled_from(["pass", "pass", "pass", "rewind", "finish", "hands", "status", "help",
                     "what's in my hand", "repeat", "yes", "play kilo", "play", "send north",
                     "", "?", "play c c"]),
)


def own_tile(state: State) -> st.SearchStrategy[str]:
    """A tile the current player may name: from their hand, or the pool."""
    held = list(state.pool) if state.pool_variant else list(state.hands[state.turn - 1])
    if not held:
        return st.just("pass")
    return st.sampled_from(held).map(lambda t: f"play {t.lower()}")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(2, 6), st.booleans(), st.integers(0, 2**20))
def test_any_lines_keep_the_game_valid_and_replayable(data: st.DataObject, players: int, pool: bool,
                                                      seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "game.jsonl"
        session, _ = Session.start("lantern-links", players=players, seed=seed, log_path=log,
                                   options={"pool": pool})
        try:
            for _ in range(data.draw(st.integers(0, 80), label="length")):
                if session.over:
                    break
                kind = data.draw(st.sampled_from(["own"] * 6 + ["any"] * 2 + ["pass"] * 3 + ["rewind", "finish"]))
                text = data.draw(own_tile(session.state) if kind == "own" else
                                 line if kind == "any" else st.just(kind), label="line")
                before = session.state
                legal = session.referee.legal_intents(before)
                reply = session.handle(text)
                state = session.state
                kinds = [e["type"] for e in reply.logged]
                if not reply.accepted:
                    # a refused line changes nothing and logs exactly one command-rejected
                    assert state == before
                    assert kinds in ([], ["command-rejected"])
                else:
                    assert kinds, f"{text!r} was accepted but logged nothing"
                    # the voice grammar's narrowing never hides a command that would be accepted
                    assert reply.command is not None and reply.command.intent in legal
                moves = {"play", "pass", "rewind", "finish"}
                if reply.command is not None and reply.command.intent in moves - legal:
                    assert not reply.accepted     # and what it hides could never be accepted
                if "tile-returned" in kinds:          # a mismatch is a pass: the turn moves on
                    assert kinds[kinds.index("tile-returned") + 1] == "passed"
                if not session.over:
                    assert is_matched(state.start, state.chain)
                    assert len(state.chain) < 6
                    assert state.recorded == (state.chain[2].right if len(state.chain) >= 3 else None)
                    held = [t for h in state.hands for t in h] + list(state.pool) + [x.tile for x in state.chain]
                    assert sorted(held) == sorted(state.words)
                    assert state.passes < state.players or state.paused
                    assert 1 <= state.turn <= players
        finally:
            session.log.close()
        events = read_log(log).events
        for event in events:
            if event.type == "route-ended":
                assert 0 <= event["points"] <= MAX_POINTS and event["points"] != 6
                assert event["points"] == event["placed"] + event["end_bonus"] + event["checkpoint_bonus"]
                assert event["placed"] == 6 or event["end_bonus"] == event["checkpoint_bonus"] == 0
        assert session.referee.replay(events) == session.state
        starts = [e["first"] for e in events if e.type == "route-started"]
        assert starts == [(i % players) + 1 for i in range(len(starts))]
        cards = [e["route"] for e in events if e.type == "route-started"]
        assert len(set(cards)) == len(cards)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.data())
def test_complete_routes_score_seven_or_eight_never_six(card_number: int, data: st.DataObject) -> None:
    from facilitator.games.lantern_links import REFEREE

    card = REFEREE.deck.cards[card_number]
    order = data.draw(st.sampled_from(card.complete))
    others = [n for n in range(1, 13) if n != card_number][:2]
    session, _ = Session.start("lantern-links", players=2, seed=1,
                               options={"pool": True, "routes": [card_number, *others]})
    for tile in order:
        session.handle(f"play {tile.lower()}")
    assert session.state.index == 2
    points = session.state.results[0]
    assert points in (7, 8)
    assert (points == 8) == (order in card.solutions)
