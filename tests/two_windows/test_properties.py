"""Invariants over random play: replay equals the live state (invariant 1), a line
that changes nothing logs exactly one command-rejected (invariant 4), private
reports never reach the public lines before the round is scored (invariant 2),
and the score stays within 2 a round."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facilitator.events import Event
from facilitator.games.two_windows import ALL_FACTS, REFEREE
from facilitator.log import read_log

NAMES = ["alder", "birch", "cedar", "dahlia", "elm", "fern", "gorse", "hazel", "dalia", "eddar", "oak"]
LINES = st.one_of(
    st.builds(lambda h, f: f"{h} sends {f.lower()}", st.sampled_from("ab"), st.sampled_from(ALL_FACTS)),
    st.builds(lambda n: f"final {n}", st.sampled_from(NAMES)),
    st.sampled_from(["more", "replace packet", "status", "help", "repeat", "yes", "gibberish", "final"]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINES, max_size=40), players=st.integers(3, 6), seed=st.integers(0, 10**6))
def test_random_play_keeps_the_invariants(play, tmp_path_factory, lines: list[str], players: int,
                                          seed: int) -> None:
    log = Path(tmp_path_factory.mktemp("tw")) / "log.jsonl"
    t = play(players=players, seed=seed, log=log, data=Path(tmp_path_factory.mktemp("table")))
    for line in lines:
        if t.session.over:
            break
        before = t.state
        reply = t.say(line)
        types = [e["type"] for e in reply.logged]
        if "command-rejected" in types:
            assert types == ["command-rejected"] and t.state == before
        elif reply.command is not None and reply.command.intent in REFEREE.queries | {"repeat"}:
            assert types == [] and t.state == before
        said = " ".join(reply.public).lower()
        generic = reply.command is not None and reply.command.intent in ("help", "read rules", "repeat")
        if "round-ended" not in types and not generic:          # help names example facts; repeat says again
            for fact in ALL_FACTS:
                if fact.lower() in said:
                    revealed = [f for pair in t.state.sent for f in pair]
                    assert fact in revealed, (line, said)
        assert all(p["audience"] in ("a", "b") for p in reply.private)
    t.session.log.close()
    events = read_log(log).events
    assert REFEREE.replay(events) == t.state
    for answer in (e for e in events if e.type == "answer-given"):
        assert answer["points"] == (0 if not answer["correct"] else 3 - answer["stage"])
    assert t.state.points == sum(e["points"] for e in events if e.type == "answer-given")
    assert t.state.points <= 2 * t.state.round
    assert all(isinstance(e, Event) for e in events)
