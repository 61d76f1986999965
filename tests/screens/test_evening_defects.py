"""What an evening at a real table found, each fixed: a click that discards progress
is asked first like its spoken form; a refused clue's reply says so; seat cookies
last the evening; no request waits on another's work; X-Forwarded-For is not
trusted and the Host header is checked."""

from __future__ import annotations

import threading

import httpx
import pytest

from facilitator.screens.app import COOKIE_SECONDS
from facilitator.screens.guard import CODE_TRIES
from facilitator.screens.seats import cookie_name

ROUTES = {"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]}
JSON = {"accept": "application/json"}


@pytest.fixture
def clients():
    made: list[httpx.Client] = []

    def new(server) -> httpx.Client:
        c = httpx.Client(base_url=server.base_url, timeout=20)
        made.append(c)
        return c
    yield new
    for c in made:
        c.close()


def joined(server, clients, seat: int) -> httpx.Client:
    c = clients(server)
    assert c.get(f"/join/{server.seats.seats[seat].token}").status_code == 303
    return c


def test_restarting_the_leg_by_click_is_asked_first(start_server, clients):
    server = start_server("compass-code", players=3, seed=3, options=dict(ROUTES))
    captain = joined(server, clients, 2)
    captain.post("/seat/2/command", data={"control": "send", "a": "N", "b": "E", "c": "S", "d": "W"})
    lines = server.hub.session.log.path.read_text(encoding="utf-8").count("\n")
    asked = captain.post("/seat/2/command", data={"control": "restart-leg"}, headers=JSON).json()
    assert asked["accepted"] is None and "Restart the leg?" in asked["confirm"]
    assert server.hub.session.log.path.read_text(encoding="utf-8").count("\n") == lines   # nothing done
    assert server.hub.session.state.pending is not None
    done = captain.post("/seat/2/command", data={"control": "restart-leg", "confirm": "yes"}, headers=JSON).json()
    assert done["accepted"] is True and done["command"] == "restart leg"
    assert "leg-restarted" in server.hub.session.log.path.read_text(encoding="utf-8")


def test_a_refused_clue_replies_accepted_false(start_server, clients):
    server = start_server("clover", players=3, seed=11, options={"extra": 2})
    phone = joined(server, clients, 1)
    own_word = server.hub.session.state.boards[1]["top-left"][0]
    refused = phone.post("/seat/1/command", data={"control": "clue-top", "clue": "two words"}, headers=JSON).json()
    assert refused["accepted"] is False and "space" in " ".join(refused["private"])
    refused = phone.post("/seat/1/command", data={"control": "clue-top", "clue": own_word}, headers=JSON).json()
    assert refused["accepted"] is False
    good = phone.post("/seat/1/command", data={"control": "clue-top", "clue": "serendipity"}, headers=JSON).json()
    assert good["accepted"] is True


def test_seat_and_table_cookies_last_the_evening(start_server, clients):
    server = start_server("compass-code", players=3, seed=3, options=dict(ROUTES))
    phone = clients(server)
    cookie = phone.get(f"/join/{server.seats.seats[1].token}").headers["set-cookie"].lower()
    assert cookie.startswith(cookie_name(1)) and f"max-age={COOKIE_SECONDS}" in cookie
    assert COOKIE_SECONDS >= 8 * 3600
    table = clients(server).get(f"/table/{server.seats.table_key}")
    assert f"max-age={COOKIE_SECONDS}" in table.headers["set-cookie"].lower()


def test_no_request_waits_while_the_session_is_busy(start_server, clients):
    """A long piece of work holding the session's lock (a first clue check loads its
    dictionary) does not hold up a static file, nor another page's own work."""
    server = start_server("compass-code", players=3, seed=3, options=dict(ROUTES))
    table = clients(server)
    table.get(f"/table/{server.seats.table_key}")
    held, release = threading.Event(), threading.Event()

    def busy() -> None:
        with server.hub.lock:
            held.set()
            release.wait(30)
    worker = threading.Thread(target=busy)
    worker.start()
    try:
        assert held.wait(10)
        waiting = threading.Thread(target=lambda: table.get("/table"))   # waits for the lock
        waiting.start()
        # served while the lock is still held: the event loop is not blocked
        assert httpx.get(server.base_url + "/static/screens.css", timeout=5).status_code == 200
        assert httpx.get(server.base_url + "/join", timeout=5).status_code == 200
        assert not release.is_set()
    finally:
        release.set()
        worker.join()
    waiting.join(10)


def test_forwarded_for_is_not_trusted(start_server, clients):
    """Rotating X-Forwarded-For does not dodge the short-code lockout, and cannot lock
    out another address."""
    server = start_server("compass-code", players=3, seed=3, options=dict(ROUTES))
    guesser = clients(server)
    for n in range(CODE_TRIES):
        headers = {"x-forwarded-for": f"10.0.0.{n + 1}"}
        assert guesser.post("/join", data={"code": "AAAAAAAA"}, headers=headers).status_code == 404
    assert guesser.post("/join", data={"code": "AAAAAAAA"},
                        headers={"x-forwarded-for": "10.0.9.9"}).status_code == 429
    assert "10.0.0.1" not in server.screens.tries._wrong


def test_the_host_header_is_checked(start_server, clients):
    server = start_server("compass-code", players=3, seed=3, options=dict(ROUTES))
    c = clients(server)
    assert c.get("/join", headers={"host": "evil.example"}).status_code == 400
    assert c.get("/join", headers={"host": f"evil.example:{server.port}"}).status_code == 400
    assert c.get("/join").status_code == 200
    assert c.get("/join", headers={"host": f"localhost:{server.port}"}).status_code == 200
