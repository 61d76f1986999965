"""The table service's lobby on the screens, over HTTP against a real loopback server:
the table screen chooses a game with the same line a player would type, offers only
what the lobby offers, and a seat outside the current game sees nothing private."""

from __future__ import annotations

import httpx
import pytest

from facilitator.lobby import GameStore, Lobby
from facilitator.screens import ScreenServer, ScreenSettings
from facilitator.session import Reply

JSON = {"accept": "application/json"}


@pytest.fixture
def service(tmp_path):
    lobby = Lobby(GameStore(tmp_path / "data"), seed=3, screens=True)
    server = ScreenServer(lobby, Reply(), ScreenSettings(port=0), seat_count=4).start()
    server.hub.switch(lobby, lobby.opening().public)
    clients: list[httpx.Client] = []

    def client() -> httpx.Client:
        c = httpx.Client(base_url=server.base_url, timeout=20)
        clients.append(c)
        return c
    yield lobby, server, client
    for c in clients:
        c.close()
    server.stop()
    if lobby.chosen is not None:
        lobby.chosen.log.close()
    session = server.hub.session
    if session is not lobby:
        session.log.close()


def test_the_table_screen_chooses_a_game_and_seats_outside_it_see_nothing_private(service):
    lobby, server, client = service
    table = client()
    page = table.get(f"/table/{server.seats.table_key}", follow_redirects=True)
    assert page.status_code == 200 and "Which game?" in page.text
    assert page.text.count('class="seat-card"') == 4 and "do-play-clover" in page.text
    assert "do-resume" not in page.text                          # nothing to resume yet
    phones = {}
    for seat in (1, 4):
        phones[seat] = client()
        assert phones[seat].get(f"/join/{server.seats.seats[seat].token}").status_code == 303
        assert "In the lobby" in phones[seat].get(f"/seat/{seat}").text

    # only what the lobby offers: no such player count, no such control
    assert table.post("/table-command", data={"control": "play-compass-code", "players": "99"},
                      headers=JSON).status_code == 409
    assert table.post("/table-command", data={"control": "quit-service"}, headers=JSON).status_code == 409
    chosen = table.post("/table-command", data={"control": "play-compass-code", "players": "3"}, headers=JSON)
    assert chosen.status_code == 200
    assert chosen.json()["command"] == "play compass-code 3"
    assert chosen.json()["public"][0] == "Starting compass code with 3 players."
    assert lobby.over
    server.hub.switch(lobby.take())                              # what the service's driver does

    assert "Player 1" in phones[1].get("/seat/1").text
    outside = phones[4].get("/seat/4")
    assert outside.status_code == 200 and "not in this game" in outside.text
    assert phones[4].post("/seat/4/command", data={"control": "repeat"}, headers=JSON).status_code == 409
    game_table = table.get("/table").text
    assert game_table.count('class="seat-card"') == 3 and "compass-code" in game_table
    assert server.seats.seats[4].held                            # kept for a later game


def test_the_lobby_after_a_finished_game_shows_its_result(service):
    """The table service goes back to the lobby at a game's end: the table screen and the
    phones still show how the game ended (before, only the announcements said it)."""
    lobby, server, client = service
    table, phone = client(), client()
    table.get(f"/table/{server.seats.table_key}")
    assert phone.get(f"/join/{server.seats.seats[1].token}").status_code == 303
    assert "The last game" not in table.get("/table").text
    server.hub.shared.handle("play compass-code 3")
    session = lobby.take()
    server.hub.switch(session)
    for _ in range(3):                                   # the machine keeps the route: send it
        assert server.hub.shared.handle("send " + " ".join(session.state.route)).accepted
    assert session.over
    session.log.close()
    server.hub.switch(lobby, lobby.back(session).public)  # what the service's driver does
    for page in (table.get("/table").text, phone.get("/seat/1").text):
        assert "The last game: Compass Code" in page and "The voyage is over: 3 of 3 legs solved" in page
    # a game left mid-way (quit) shows no result
    server.hub.shared.handle("play compass-code 3")
    again = lobby.take()
    server.hub.switch(again)
    again.log.close()
    server.hub.switch(lobby, lobby.back(again).public)
    assert "The last game" not in table.get("/table").text
