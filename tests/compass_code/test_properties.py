"""Invariants over any sequence of commands: replay equals live, secrets stay private."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facilitator.games.compass_code import ALL_ROUTES
from facilitator.log import read_log
from facilitator.session import Session

words = {"N": "north", "E": "east", "S": "south", "W": "west"}
routes = st.sampled_from(ALL_ROUTES)
any_letters = st.text(alphabet="NESW", min_size=3, max_size=5)

line = st.one_of(
    routes.map(lambda r: "send " + " ".join(words[c] for c in r)),
    any_letters.map(lambda r: "send " + r),
    st.tuples(st.sampled_from("NESW"), st.integers(1, 4)).map(lambda t: f"is {t[0]} in position {t[1]}"),
    st.tuples(st.integers(0, 4), st.integers(0, 4)).map(lambda t: f"feedback {t[0]} {t[1]}"),
    st.sampled_from(["how many candidates", "read the candidates", "status", "help", "repeat",
                     "yes", "no", "pass the crisps", "louder", "restart the leg"]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, max_size=40), st.sampled_from(["machine", "human"]),
       st.sampled_from(["standard", "gentle", "tight"]), st.integers(0, 2**20))
def test_replaying_the_log_rebuilds_the_live_state(lines: list[str], keeper: str, mode: str,
                                                    seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "game.jsonl"
        session, _ = Session.start("compass-code", players=4, seed=seed, log_path=log,
                                   options={"mode": mode, "keeper": keeper})
        said_in_leg: dict[int, list[str]] = {}
        for text in lines:
            if session.over:
                break
            leg = session.state.leg
            reply = session.handle(text)
            # replies that stay within one leg (reading the candidates lists every route)
            if session.state.leg == leg and text != "read the candidates":
                said_in_leg.setdefault(leg, []).extend(reply.public)
            assert len(reply.logged) >= (1 if reply.accepted else 0)
        session.log.close()
        events = read_log(log).events
        assert session.referee.replay(events) == session.state

        # the hidden route appears publicly only once the crew sent it or the leg ended
        hidden = {e["leg"]: e["route"] for e in events if e.type == "leg-started"}
        for event in events:
            if event.type == "leg-started":
                assert event.audience == "keeper"
            if event.public and event.type not in ("leg-ended", "guess-scored", "guess-sent"):
                assert hidden.get(event.get("leg")) not in event.data.values() or event.type == "captain-named"
        # every route ever drawn (a restarted leg draws more than one) is said only once
        # the crew sent it or its leg ended; routes are said as words
        ended = {e["leg"] for e in events if e.type == "leg-ended"}
        drawn = [(e["leg"], e["route"]) for e in events if e.type == "leg-started"]
        for leg, route in drawn:
            if leg not in ended:
                spelled = " ".join(words[c] for c in route)
                crew_sent = any(e.type in ("guess-scored", "guess-sent") and e["route"] == route
                                and e["leg"] == leg for e in events)
                if not crew_sent:
                    assert not any(spelled in out.lower() for out in said_in_leg.get(leg, []))

        # guesses and points are within the rules
        for event in events:
            if event.type == "guess-scored":
                assert event["anchors"] + event["clockwise"] <= 4
                assert 1 <= event["guess"] <= (5 if mode == "gentle" else 4)
            if event.type == "bearing-checked":
                assert mode != "tight"
        # one bearing check a leg (a restarted leg starts afresh, without penalty)
        checks, drawn_count = [], 0
        for event in events:
            drawn_count += event.type == "leg-started"
            if event.type == "bearing-checked":
                checks.append(drawn_count)
        assert len(checks) == len(set(checks))
