"""HTTP-level access rules: a seat's join link works once, only the device holding a
seat gets its private screen, stream or buttons, and the table screen (public only)
needs the key ``play`` prints."""

from __future__ import annotations

import json

import httpx
import pytest

from facilitator.screens.guard import CODE_TRIES
from facilitator.screens.seats import TABLE_COOKIE, cookie_name

ROUTES = {"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]}
JSON = {"accept": "application/json"}


_open: list[httpx.Client] = []


@pytest.fixture(autouse=True)
def _close_clients():
    yield
    while _open:
        _open.pop().close()


def client(server) -> httpx.Client:
    c = httpx.Client(base_url=server.base_url, timeout=20)
    _open.append(c)
    return c


def joined(server, seat: int) -> httpx.Client:
    c = client(server)
    response = c.get(f"/join/{server.seats.seats[seat].token}")
    assert response.status_code == 303 and response.headers["location"] == f"/seat/{seat}"
    return c


def log_lines(server) -> int:
    return len(server.hub.session.log.path.read_text(encoding="utf-8").splitlines())


@pytest.fixture
def compass(start_server):
    return start_server("compass-code", players=3, seed=3, options=dict(ROUTES))


def test_the_join_link_sets_an_httponly_strict_cookie_and_works_once(compass):
    first = client(compass)
    response = first.get(f"/join/{compass.seats.seats[1].token}")
    cookie = response.headers["set-cookie"].lower()
    assert cookie.startswith(cookie_name(1)) and "httponly" in cookie and "samesite=strict" in cookie
    assert "E S N W" in first.get("/seat/1").text            # seat 1 keeps leg 1

    second = client(compass)
    refused = second.get(f"/join/{compass.seats.seats[1].token}")
    assert refused.status_code == 409 and "already held" in refused.text
    assert "E S N W" not in second.get("/seat/1").text
    assert "east south north west" not in second.get("/seat/1").text   # the route said as words


def test_no_token_a_foreign_token_or_no_cookie_gets_nothing_private(compass):
    holder = joined(compass, 2)                                # seat 2: not the keeper
    stranger = client(compass)
    for c in (holder, stranger):
        for path in ("/seat/1", "/seat/1/events"):
            response = c.get(path)
            assert response.status_code == 403
            assert "E S N W" not in response.text and "ESNW" not in response.text
            assert "east south north west" not in response.text
        post = c.post("/seat/1/command", data={"control": "feedback", "anchors": "4", "clockwise": "0"})
        assert post.status_code == 403
    assert stranger.get("/join/not-a-token").status_code == 404
    assert "E S N W" not in stranger.get("/join/", follow_redirects=True).text
    # a cookie copied onto another seat's name does not open it either
    forged = client(compass)
    forged.cookies.set(cookie_name(1), holder.cookies.get(cookie_name(2)))
    assert forged.get("/seat/1").status_code == 403


def test_the_table_needs_its_key_and_shows_nothing_private(compass, start_server):
    stranger = client(compass)
    assert stranger.get("/table").status_code == 403
    assert stranger.get("/table/wrong-key").status_code == 404
    assert stranger.get("/table-live").status_code == 403
    assert stranger.post("/table-release/1").status_code == 403
    table = client(compass)
    page = table.get(f"/table/{compass.seats.table_key}", follow_redirects=True)
    assert page.status_code == 200 and "httponly" in page.history[0].headers["set-cookie"].lower()
    joined(compass, 2).post("/seat/2/command", data={"control": "send", "a": "N", "b": "E", "c": "S", "d": "W"})
    keeper = joined(compass, 1)
    recount = keeper.post("/seat/1/command", headers=JSON,
                          data={"control": "feedback", "anchors": "0", "clockwise": "2", "confirm": "yes"}).json()
    assert "Recount" in " ".join(recount["private"])            # said to the keeper, and only there
    text = table.get("/table").text
    assert "E S N W" not in text and "ESNW" not in text and "Recount" not in text
    assert "east south north west" not in text
    assert "C C - A" not in text and "C C – A" not in text


def test_private_reports_and_boards_stay_off_the_table(start_server):
    windows = start_server("two-windows", players=3, seed=2, options={"practice": True})
    table = client(windows)
    text = table.get(f"/table/{windows.seats.table_key}", follow_redirects=True).text
    for fact in ("FORM ROUND", "SIZE SMALL", "SURFACE STRIPED", "EDGE NOTCHED"):
        assert fact not in text.upper()
    assert "SIZE SMALL" in joined(windows, 2).get("/seat/2").text      # Pine holds report A
    assert "SIZE SMALL" not in joined(windows, 3).get("/seat/3").text   # Reed holds B, not A

    clover = start_server("clover", players=3, seed=4, options={"extra": 1})
    cards = [list(words) for words in clover.hub.session.state.boards[1].values()]
    text = client(clover).get(f"/table/{clover.seats.table_key}", follow_redirects=True).text.lower()
    # no card of the board shows: at most a word of it may happen to be a common word of the page
    assert not [card for card in cards if all(w.lower() in text for w in card)]
    seat_text = joined(clover, 1).get("/seat/1").text
    # each card of the seat's own board, its words on their edges
    assert all(f"top {t}, right {r}, bottom {b}, left {le}" in seat_text for t, r, b, le in cards)


def test_a_seat_may_send_only_what_its_screen_offers(compass):
    third = joined(compass, 3)
    before = log_lines(compass)
    # seat 3 is neither the captain (seat 2) nor the keeper (seat 1)
    for data in ({"control": "send", "a": "N", "b": "E", "c": "S", "d": "W"},
                 {"control": "feedback", "anchors": "4", "clockwise": "0"},
                 {"control": "nonsense"}, {}):
        response = third.post("/seat/3/command", data=data, headers=JSON)
        assert response.status_code == 409
    captain = joined(compass, 2)
    bad = captain.post("/seat/2/command", data={"control": "send", "a": "N", "b": "N", "c": "X", "d": "W"},
                       headers=JSON)
    assert bad.status_code == 409
    assert log_lines(compass) == before                        # nothing offered, nothing logged
    huge = captain.post("/seat/2/command", content=b"control=send&a=" + b"N" * 10_000,
                        headers={**JSON, "content-type": "application/x-www-form-urlencoded"})
    assert huge.status_code == 409
    garbage = captain.post("/seat/2/command", content=b"\xff\xfe\x00control=send",
                           headers={**JSON, "content-type": "application/x-www-form-urlencoded"})
    assert garbage.status_code == 409
    good = captain.post("/seat/2/command", data={"control": "send", "a": "N", "b": "E", "c": "S", "d": "W"},
                        headers=JSON).json()
    assert isinstance(good.pop("version"), int)                # the page clears the reply after it
    assert good == {"command": "send NESW", "accepted": True, "public": ["Guess 1 is north east south west. Player 1, your totals?"],
                    "private": []}                             # the keeper's marks are not the captain's


def test_release_frees_the_seat_for_another_device(compass):
    first = joined(compass, 1)
    table = client(compass)
    table.get(f"/table/{compass.seats.table_key}")
    # one tap only asks, and says what the seat's next holder would see (seat 1 keeps leg 1)
    asked = table.post("/table-release/1", headers=JSON).json()
    assert asked["accepted"] is None and "Release seat 1?" in asked["confirm"]
    assert "route and the marks" in asked["confirm"]
    assert compass.seats.holds(1, first.cookies.get(cookie_name(1)))
    free = table.post("/table-release/2", headers=JSON)          # seat 2 is not held: nothing to ask
    assert free.status_code == 409
    joined(compass, 2)
    assert "nothing hidden" in table.post("/table-release/2", headers=JSON).json()["confirm"]
    page = table.post("/table-release/1")                         # without the page's script: a page asks
    assert page.status_code == 200 and 'name="confirm" value="yes"' in page.text
    assert table.post("/table-release/1", data={"confirm": "yes"}).status_code == 303
    assert first.get("/seat/1").status_code == 403            # the old device lost it
    second = joined(compass, 1)                                # the seat's new link works, once
    assert "E S N W" in second.get("/seat/1").text
    assert client(compass).get(f"/join/{compass.seats.seats[1].token}").status_code == 409


def test_short_codes_join_once_and_close_to_a_guesser_after_many_wrong_tries(compass):
    phone = client(compass)
    code = compass.seats.seats[3].code
    response = phone.post("/join", data={"code": code.lower()[:4] + "-" + code.lower()[4:]})
    assert response.status_code == 303 and response.headers["location"] == "/seat/3"
    assert client(compass).post("/join", data={"code": code}).status_code == 409
    guesser = client(compass)
    for _ in range(CODE_TRIES):
        assert guesser.post("/join", data={"code": "AAAAAAAA"}).status_code == 404
    assert guesser.post("/join", data={"code": compass.seats.seats[2].code}).status_code == 429
    assert joined(compass, 2).get("/seat/2").status_code == 200   # the link still works


def test_the_live_stream_carries_private_regions_to_the_holder_only(compass):
    keeper = joined(compass, 1)
    with keeper.stream("GET", "/seat/1/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        for line in stream.iter_lines():
            if line.startswith("data: "):
                payload = json.loads(line[len("data: "):])
                break
    assert "E S N W" in payload["regions"]["view"]
    table = client(compass)
    table.get(f"/table/{compass.seats.table_key}")
    with table.stream("GET", "/table-live") as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                regions = json.loads(line[len("data: "):])["regions"]
                break
    assert "E S N W" not in json.dumps(regions) and "Leg 1 of 3" in regions["said"]


def test_the_server_binds_loopback_unless_lan(compass):
    assert compass._socket.getsockname()[0] == "127.0.0.1"
    assert compass.table_url.startswith(f"http://127.0.0.1:{compass.port}/table/")
    assert TABLE_COOKIE not in compass.table_url


def test_the_clue_check_is_private_and_logs_nothing(start_server, compass):
    clover = start_server("clover", players=3, seed=4, options={"extra": 1})
    word = max((w for card in clover.hub.session.state.boards[1].values() for w in card), key=len)
    before = log_lines(clover)
    mine = joined(clover, 1)
    verdict = mine.get("/seat/1/check", params={"control": "clue-top", "value": word}).json()
    assert verdict["verdict"] == "refused" and word in verdict["text"]
    assert mine.get("/seat/1/check", params={"control": "clue-left", "value": "serendipity"}).json()["verdict"] == "ok"
    assert mine.get("/seat/1/check", params={"control": "clue-middle", "value": "x"}).status_code == 409
    other = joined(clover, 2)
    refused = other.get("/seat/1/check", params={"control": "clue-top", "value": word})
    assert refused.status_code == 403 and word not in refused.text      # no probing another's board
    assert client(clover).get("/seat/1/check", params={"control": "clue-top", "value": word}).status_code == 403
    assert log_lines(clover) == before
    assert joined(compass, 2).get("/seat/2/check", params={"control": "clue-top", "value": "x"}).status_code == 409


def test_the_live_check_says_what_submit_says(start_server):
    """One check for both: a clue the live check calls fine is taken by Submit, and one
    Submit refuses (a dot, a slash: not a word the grammar takes) is refused while typing."""
    clover = start_server("clover", players=3, seed=4, options={"extra": 1})
    mine = joined(clover, 1)
    for clue in ("Mr.Bean", "a/b", "serendipity", "two words", ""):
        checked = mine.get("/seat/1/check", params={"control": "clue-top", "value": clue}).json()
        reply = mine.post("/seat/1/command", data={"control": "clue-top", "clue": clue},
                          headers={"Accept": "application/json"}).json()
        taken = "serendipity" in [c for c in clover.hub.session.state.clues.get(1, {}).values()]
        if checked["verdict"] == "refused":
            assert not reply["accepted"] or reply["private"], (clue, checked, reply)
            if not reply["accepted"]:
                assert checked["text"] in " ".join(reply["public"] + reply["private"]), (clue, checked, reply)
            else:
                assert checked["text"] in " ".join(reply["private"]), (clue, checked, reply)
        else:
            assert reply["accepted"] and taken, (clue, checked, reply)


def test_a_screen_opened_late_shows_everything_so_far(compass):
    for line in ("send N E S W", "feedback 0 2", "feedback 1 2", "send W S E N"):
        compass.hub.submit(line)
    page = joined(compass, 1).get("/seat/1").text             # the keeper joins only now
    assert "E S N W" in page and "Recount: guess 1" in page
    assert page.count("<tr") == 3                  # the header, the corrected free clue, guess 1 again (pending)
    assert "Guess 1, west south east north: marks" in page


def test_every_spoken_command_of_the_moment_has_a_button_somewhere(start_server):
    """Invariant 5: what could be said now can be clicked on some screen (the table
    controls and voice controls aside)."""
    from facilitator.screens.controls import seat_controls, table_controls

    voice_only = {"louder", "softer", "slower", "faster", "stop listening", "start listening",
                  "yes", "no", "cancel", "new game", "resume", "quit", "release seat",
                  "final not"}    # a negated final answer exists only to be refused
    for game, kwargs, lines in [
        ("compass-code", {"players": 3, "options": dict(ROUTES)}, ["send N E S W"]),
        ("two-windows", {"players": 3, "options": {"practice": True}}, ["a sends FORM ROUND", "b sends EDGE NOTCHED"]),
        ("lantern-links", {"players": 3}, []),
        ("clover", {"players": 3, "options": {"extra": 1}},
         [f"clue {s} {z} serendipity" for s in (1, 2, 3) for z in ("top", "right", "bottom", "left")]),
    ]:
        server = start_server(game, seed=6, **kwargs)
        session = server.hub.session
        for line in [None, *lines]:
            if line is not None:
                assert server.hub.submit(line).accepted, line
            offered = set()
            for control in {c.id: c for seat in range(1, len(session.state.names) + 1)
                            for c in seat_controls(session, seat) + table_controls(session)}.values():
                sample = control.command({"choice": "0", **{f.name: (f.options[0][0] if f.options else "x")
                                                            for f in control.fields}})
                offered.add(session.parse(sample).intent)
            # "enrol N" is a phone's "Learn my voice" only where voice turns learn voices;
            # elsewhere it is answered that voice turns are off, and has no button
            learning = getattr(session, "learns_voices", False)
            said = {intent for intent in session.legal_intents()
                    if intent not in voice_only and (learning or intent != "enrol")}
            missing = said - offered
            assert not missing, (game, line, missing)
