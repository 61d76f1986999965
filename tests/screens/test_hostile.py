"""The screens under hostile requests, on loopback (issue 14): each test here failed
before its fix.

Clients on other loopback addresses (127.0.0.2, 127.0.0.3) stand for other devices
on the network: the server sees each as its own client address."""

from __future__ import annotations

import socket

import httpx
import pytest

from facilitator.screens.guard import CODE_TRIES, MAX_BODY_BYTES, CodeTries
from facilitator.screens.seats import cookie_name

ROUTES = {"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]}


@pytest.fixture
def compass(start_server):
    return start_server("compass-code", players=3, seed=3, options=dict(ROUTES))


@pytest.fixture
def clients():
    made: list[httpx.Client] = []

    def make(server, source: str = "127.0.0.1") -> httpx.Client:
        c = httpx.Client(base_url=server.base_url, timeout=20,
                         transport=httpx.HTTPTransport(local_address=source))
        made.append(c)
        return c
    yield make
    for c in made:
        c.close()


def table(server, make) -> httpx.Client:
    c = make(server)
    c.get(f"/table/{server.seats.table_key}")
    return c


def test_an_oversized_body_is_refused_before_it_is_read(compass):
    """One 100 MB POST raised the server from 66 to 228 MB: now the declared length is
    refused at once, and a body without one is cut off at the limit."""
    with socket.create_connection(("127.0.0.1", compass.port), timeout=20) as sock:
        sock.sendall(b"POST /join HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/x-www-form-urlencoded\r\n"
                     b"Content-Length: 104857600\r\n\r\n" + b"code=" + b"A" * 1000)
        answer = sock.recv(4096).decode("latin-1")
    assert answer.startswith("HTTP/1.1 413")

    def chunks():
        for _ in range(64):
            yield b"A" * 4096          # 256 KiB, more than the limit, with no length given
    with httpx.Client(base_url=compass.base_url, timeout=20) as c:
        response = c.post("/join", content=chunks(), headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 413
    assert 4096 * 64 > MAX_BODY_BYTES


def test_a_code_guesser_locks_out_only_itself(compass, clients):
    """Twenty bad codes from one device switched short codes off for the whole table."""
    guesser = clients(compass, "127.0.0.2")
    for _ in range(CODE_TRIES):
        assert guesser.post("/join", data={"code": "AAAAAAAA"}).status_code == 404
    assert guesser.post("/join", data={"code": compass.seats.seats[2].code}).status_code == 429
    player = clients(compass, "127.0.0.3")
    response = player.post("/join", data={"code": compass.seats.seats[2].code})
    assert response.status_code == 303 and response.headers["location"] == "/seat/2"


def test_wrong_codes_are_forgotten_after_the_window():
    now = [0.0]
    tries = CodeTries(tries=3, window_seconds=60, clock=lambda: now[0])
    for _ in range(3):
        tries.wrong("10.0.0.5")
    assert not tries.allowed("10.0.0.5") and tries.allowed("10.0.0.6")
    now[0] = 59.0
    assert not tries.allowed("10.0.0.5")
    now[0] = 60.5
    assert tries.allowed("10.0.0.5")


def test_a_page_of_another_origin_cannot_change_anything(compass, clients):
    """A page on another port of the same host released a seat."""
    phone = clients(compass)
    phone.get(f"/join/{compass.seats.seats[1].token}")
    screen = table(compass, clients)
    foreign = f"http://127.0.0.1:{compass.port + 1}"
    for origin in (foreign, "http://evil.example", "null"):
        refused = screen.post("/table-release/1", headers={"origin": origin})
        assert refused.status_code == 403, origin
    assert screen.post("/table-release/1", headers={"sec-fetch-site": "same-site"}).status_code == 403
    assert compass.seats.seats[1].held
    assert phone.post("/seat/2/command", headers={"origin": foreign}, data={"control": "repeat"}).status_code == 403
    own = screen.post("/table-release/1", headers={"origin": compass.base_url}, data={"confirm": "yes"})
    assert own.status_code == 303 and not compass.seats.seats[1].held


def test_a_released_seat_gets_a_new_link_and_code(compass, clients):
    """The released device reopened the same link and got the seat back."""
    phone = clients(compass)
    old_token, old_code = compass.seats.seats[1].token, compass.seats.seats[1].code
    assert phone.get(f"/join/{old_token}").status_code == 303
    assert table(compass, clients).post("/table-release/1", data={"confirm": "yes"}).status_code == 303
    assert phone.get(f"/join/{old_token}").status_code == 404
    assert clients(compass).post("/join", data={"code": old_code}).status_code == 404
    assert phone.get("/seat/1").status_code == 403
    fresh = compass.seats.seats[1]
    assert fresh.token != old_token and fresh.code != old_code and not fresh.held
    other = clients(compass)
    assert other.get(f"/join/{fresh.token}").status_code == 303
    assert other.cookies.get(cookie_name(1))


def test_releasing_no_such_seat_is_404_and_a_free_seat_409(compass, clients):
    screen = table(compass, clients)
    assert screen.post("/table-release/99").status_code == 404
    assert screen.post("/table-release/2").status_code == 409


def test_the_next_legs_route_never_reaches_the_previous_keepers_reply(compass, clients):
    """Who may read a reply is decided after the command, from the state it produced:
    the totals that end leg 1 start leg 2, whose route is for seat 2 (its keeper) only."""
    keeper, captain, next_keeper = (clients(compass) for _ in range(3))
    for seat, phone in ((1, keeper), (2, captain), (3, next_keeper)):
        assert phone.get(f"/join/{compass.seats.seats[seat].token}").status_code == 303
    json = {"accept": "application/json"}
    sent = captain.post("/seat/2/command", headers=json,
                        data={"control": "send", "a": "E", "b": "S", "c": "N", "d": "W"})
    assert sent.status_code == 200 and sent.json()["accepted"]
    totals = keeper.post("/seat/1/command", headers=json,
                         data={"control": "feedback", "anchors": "4", "clockwise": "0", "confirm": "yes"})
    assert totals.status_code == 200 and totals.json()["accepted"]
    reply = totals.json()
    assert "Leg 2 of 3" in " ".join(reply["public"])
    assert not any("N E S W" in line or "NESW" in line for line in reply["private"]), reply["private"]
    assert "N E S W" not in keeper.get("/seat/1").text
    leg2_keeper = 2 if "N E S W" in captain.get("/seat/2").text else 3
    assert "N E S W" in (captain if leg2_keeper == 2 else next_keeper).get(f"/seat/{leg2_keeper}").text


def test_a_seat_keeps_only_its_newest_live_update_streams(compass, clients):
    """150 live-update streams on one seat's cookie were all served (23 % of a core while
    idle): now a seat has at most ``STREAMS_PER_SEAT``, the newest (a phone that reloads
    gets its updates at once), and each older one is told it was replaced and closed."""
    from facilitator.screens.app import REPLACED_EVENT, STREAMS_PER_SEAT

    phone = clients(compass)
    phone.get(f"/join/{compass.seats.seats[1].token}")
    cookie = f"{cookie_name(1)}={phone.cookies[cookie_name(1)]}"
    request = (f"GET /seat/1/events HTTP/1.1\r\nHost: 127.0.0.1:{compass.port}\r\n"
               f"Cookie: {cookie}\r\nAccept: text/event-stream\r\n\r\n").encode()
    streams: list[socket.socket] = []
    try:
        for _ in range(150):
            sock = socket.create_connection(("127.0.0.1", compass.port), timeout=20)
            sock.sendall(request)
            first = b""
            while b"data: " not in first:          # served: its first update arrived
                part = sock.recv(65536)
                assert part, "a new stream was refused"
                first += part
            streams.append(sock)

        def ended(sock: socket.socket) -> tuple[bool, bytes]:
            """Read what the stream sends within a second: did it end (its last chunk came,
            or the connection closed), and what came."""
            got = b""
            sock.settimeout(1.0)
            try:
                while part := sock.recv(65536):
                    got += part
                    if got.endswith(b"\r\n0\r\n\r\n"):
                        break
            except TimeoutError:
                return False, got
            return True, got
        outcomes = [ended(sock) for sock in streams]
        open_now = [n for n, (done, _) in enumerate(outcomes) if not done]
        assert open_now == list(range(150 - STREAMS_PER_SEAT, 150))      # the newest, and only they
        assert all(REPLACED_EVENT.encode() in got for done, got in outcomes if done)
        assert phone.get("/seat/1").status_code == 200                    # the seat itself is untouched
    finally:
        for sock in streams:
            sock.close()
