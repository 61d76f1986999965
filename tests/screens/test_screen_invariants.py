"""Invariants under any sequence of clicks (hypothesis): a click never breaks the game,
the route shows only on the screen of the seat keeping the leg, and the private
messages a screen shows are the ones a replay of the log rebuilds."""

from __future__ import annotations

import json
from itertools import permutations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from facilitator.games.compass_code.rules import feedback
from facilitator.log import read_log
from facilitator.screens import Hub, Seats
from facilitator.screens.controls import seat_controls
from facilitator.screens.hub import private_history
from facilitator.screens.views import seat_view
from facilitator.session import Session

PLAYERS = 4
MOVES = {"send", "check", "feedback"}
ROUTES = ["".join(p) for p in permutations("NESW")]
clicks = st.lists(st.tuples(st.integers(1, PLAYERS), st.integers(0, 20), st.integers(0, 20),
                            st.integers(0, 20)), min_size=1, max_size=25)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1000), steps=clicks)
def test_clicks_keep_the_route_on_the_keepers_screen_only(tmp_path_factory, seed, steps):
    log = tmp_path_factory.mktemp("clicks") / "log.jsonl"
    session, opening = Session.start("compass-code", players=PLAYERS, seed=seed,
                                     options={"keeper": "human", "mode": "gentle"}, log_path=log)
    try:
        hub = Hub(session, opening, Seats(PLAYERS))
        played = 0
        for seat, which, first, second in steps:
            movers = [s for s in range(1, PLAYERS + 1) if any(c.id in MOVES for c in seat_controls(session, s))]
            actor = movers[seat % len(movers)] if movers else seat
            controls = [c for c in seat_controls(session, actor) if c.id in MOVES] or seat_controls(session, actor)
            if controls:
                control = controls[which % len(controls)]
                picks = [first, second, first + second, first * 7 + second]
                values = {f.name: f.options[p % len(f.options)][0] for f, p in zip(control.fields, picks)}
                if control.id == "send":
                    values = dict(zip("abcd", ROUTES[first % len(ROUTES)]))
                elif control.id == "feedback" and second % 3:       # the keeper mostly counts right
                    true = feedback(session.state.pending, session.state.route)
                    values = {"anchors": str(true.anchors), "clockwise": str(true.clockwise)}
                text = control.command({"choice": "0", **values})
                assert text is not None
                hub.submit(text)
                played += control.id in MOVES
            for s in range(1, PLAYERS + 1):
                panels = seat_view(hub, s)["panels"]
                secret = [p for p in panels if p.get("cls") in ("route", "marks")]
                if session.over or session.state.route is None or session.state.keeper != s:
                    assert secret == []            # the public board at most: guesses and totals said aloud
                    assert "marks" not in json.dumps(panels)
                else:
                    assert " ".join(session.state.route) in json.dumps(secret)
            if session.over:
                break
        assert played >= 1
        assert private_history(session, read_log(log).events) == hub.private
    finally:
        session.log.close()
