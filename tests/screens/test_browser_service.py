"""The table service with its screens, in Debian's chromium, against a real
``facilitator serve --screens`` subprocess (issue 15).

One table screen and three phones: the lobby, a game chosen on the table screen,
back to the lobby with the same seats, the game resumed; then the service is
killed (SIGKILL) and started again: every open page says it lost the connection,
reconnects by itself (no rescanning) and shows the same game."""

from __future__ import annotations

from pathlib import Path

import pytest
from screens.screen_support import WAIT_MS, Service, free_port, screenshot

from facilitator.screens.seats import STORE_NAME


@pytest.fixture
def services():
    started: list[Service] = []

    def start(data: Path, port: int, *extra: str, command: tuple[str, ...] = ()) -> Service:
        service = Service(data, port, *extra, command=command)
        started.append(service)
        return service
    yield start
    for service in started:
        service.stop()


def test_the_service_keeps_its_seats_from_lobby_to_game_and_across_a_sigkill(tmp_path, device, services):
    from playwright.sync_api import expect

    data, port = tmp_path / "data", free_port()
    service = services(data, port, "--seed", "3")
    table = device(width=1280, height=900)
    table.goto(service.table_url)
    expect(table.locator("h1")).to_contain_text("Lobby")
    screenshot(table, "service-table-lobby")

    phones = []
    for seat in (1, 2, 3):
        href = table.locator(f".seat-card:nth-child({seat}) a.join-link").get_attribute("href")
        assert "127.0.0.1" in href and f":{port}/join/" in href
        phone = device()
        phone.goto(href)
        phone.wait_for_url(f"**/seat/{seat}")
        expect(phone.locator("#waiting")).to_contain_text("lobby")
        phones.append(phone)
    screenshot(phones[0], "service-seat-lobby")
    assert (data / STORE_NAME).stat().st_mode & 0o777 == 0o600      # secrets: the owner's only

    # choose the game on the table screen: every page follows into the game
    table.select_option("#play-compass-code-players", "3")
    table.click("#do-play-compass-code")
    service.heard("Starting compass code with 3 players")
    expect(table.locator("h1")).to_contain_text("Compass Code")
    expect(phones[0].locator("#region-prompt")).to_contain_text("captain")
    service.say("send N E S W")
    service.heard("clockwise steps")
    expect(table.locator("#region-status")).to_contain_text("guess 2 of 4")

    # "quit" ends the game and the lobby is back, with the same seats held
    service.say("quit")
    service.heard("is kept")
    expect(table.locator("h1")).to_contain_text("Lobby")
    expect(table.locator(".seat-card", has_text="held")).to_have_count(3)
    for phone in phones:
        expect(phone.locator("#waiting")).to_contain_text("lobby")
    service.say("quit")                                   # a guest cannot stop the service
    service.heard("keeps running")
    assert service.proc.poll() is None

    table.click("#do-resume")
    expect(table.locator("h1")).to_contain_text("Compass Code")
    expect(table.locator("#region-status")).to_contain_text("guess 2 of 4")
    captain_before = phones[1].locator("#region-prompt").inner_text(timeout=WAIT_MS)
    status_before = table.locator("#region-status .status p").all_text_contents()   # one a sentence

    # a crash: every open page says so, visibly and to a screen reader ...
    service.kill()
    for page in (table, *phones):
        expect(page.locator("#connection")).to_contain_text("Connection lost")
        assert page.locator("#connection").get_attribute("aria-live") == "assertive"
    screenshot(phones[1], "service-seat-connection-lost")

    # ... and after the restart reconnects by itself and shows the same game
    again = services(data, port)
    assert again.table_url == service.table_url                     # the same table key
    for page in (table, *phones):
        expect(page.locator("#connection")).not_to_contain_text("lost", timeout=40_000)
    expect(table.locator("h1")).to_contain_text("Compass Code")
    # what was announced before the crash is still shown (from the event log), and the
    # lobby's "say resume or new game" is not answered at once by "Resuming"
    expect(table.locator(".said")).to_contain_text("Resuming the game.")
    said = table.locator(".said li").all_inner_texts()
    assert not any("Say resume or new game" in line for line in said), said
    guess = "North east south west: 1 anchor, 2 clockwise steps."     # said before the crash
    assert said.index(guess) < said.index("Resuming the game.")
    newest = table.locator(".said-box .scroller").evaluate("b => b.scrollHeight - b.scrollTop - b.clientHeight")
    assert newest <= 2                                               # the log shows its newest line
    expect(table.locator("#region-status .status p")).to_have_text(status_before)
    expect(phones[1].locator("#region-prompt")).to_have_text(captain_before)
    for seat, phone in enumerate(phones, 1):
        assert phone.url.endswith(f"/seat/{seat}")                 # no rescanning
        expect(phone.locator("h1")).to_contain_text(f"Player {seat}")
    screenshot(table, "service-table-after-restart")

    again.say("quit")
    again.heard("is kept")
    expect(table.locator("h1")).to_contain_text("Lobby")
    expect(table.locator(".seat-card", has_text="held")).to_have_count(3)


def test_play_screens_resume_after_a_sigkill_reconnects_every_page(tmp_path, device, services):
    """``play --screens``: killed mid-game and resumed with ``--resume``, the keeper's
    phone and the table screen come back by themselves, showing the same leg."""
    from playwright.sync_api import expect

    data, port, log = tmp_path / "data", free_port(), tmp_path / "cc.jsonl"
    play = ("play", "compass-code", "--text", "--screens")
    first = services(data, port, "--players", "3", "--keeper", "human", "--routes", "ESNW,NESW,WSEN",
                     "--log", str(log), command=play)
    table = device(width=1280, height=900)
    table.goto(first.table_url)
    keeper = device()
    keeper.goto(table.locator(".seat-card:nth-child(1) a.join-link").get_attribute("href"))
    keeper.wait_for_url("**/seat/1")
    expect(keeper.locator("#region-view")).to_contain_text("E S N W")
    first.say("send N E S W")
    first.say("feedback 1 2")
    first.heard("Guess 2 of 4")
    expect(table.locator("#region-status")).to_contain_text("guess 2 of 4")

    first.kill()
    for page in (table, keeper):
        expect(page.locator("#connection")).to_contain_text("Connection lost")
    screenshot(keeper, "play-seat-connection-lost")

    again = services(data, port, "--resume", str(log), command=("play", "--text", "--screens", "compass-code"))
    assert again.table_url == first.table_url
    for page in (table, keeper):
        expect(page.locator("#connection")).not_to_contain_text("lost", timeout=40_000)
    expect(keeper.locator("#region-view")).to_contain_text("E S N W")      # still the keeper, no rescan
    expect(table.locator("#region-status")).to_contain_text("guess 2 of 4")
    assert keeper.url.endswith("/seat/1")
