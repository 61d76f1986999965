"""The table service with its screens, in Debian's chromium, against a real
``facilitator serve --screens`` subprocess (issue 15).

One table screen and three phones: the lobby, a game chosen on the table screen,
back to the lobby with the same seats, the game resumed; then the service is
killed (SIGKILL) and started again: every open page says it lost the connection,
reconnects by itself (no rescanning) and shows the same game."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from screens.screen_support import WAIT_MS, screenshot

from facilitator.screens.seats import STORE_NAME

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Service:
    """``facilitator serve --text --screens --service`` as a real subprocess."""

    def __init__(self, data: Path, port: int, *extra: str, command: tuple[str, ...] = ()) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        command = command or ("serve", "--text", "--service", "--screens")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "facilitator", *command,
             "--port", str(port), "--data-dir", str(data), *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
        self.out: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        self.url: queue.Queue[str] = queue.Queue()
        self.pumps = [threading.Thread(target=self._pump_out, daemon=True),
                      threading.Thread(target=self._pump_err, daemon=True)]
        for pump in self.pumps:
            pump.start()
        self.table_url = self.url.get(timeout=START_SECONDS)

    def _pump_out(self) -> None:
        for raw in self.proc.stdout:
            self.out.put(raw.decode().rstrip("\n"))

    def _pump_err(self) -> None:
        for raw in self.proc.stderr:
            line = raw.decode().rstrip("\n")
            self.err.append(line)
            if "table screen: open " in line:
                self.url.put(line.split("open ", 1)[1])

    def say(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def heard(self, fragment: str, seconds: float = 20) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                line = self.out.get(timeout=0.2)
            except queue.Empty:
                continue
            if fragment in line:
                return line
        raise AssertionError(f"never announced {fragment!r}; stderr: {self.err}")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=20)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for pump in self.pumps:
            pump.join(timeout=10)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):   # stdin of a process that is gone
                pipe.close()


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
    expect(table.locator("#region-live")).to_contain_text("guess 2 of 4")

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
    expect(table.locator("#region-live")).to_contain_text("guess 2 of 4")
    captain_before = phones[1].locator("#region-prompt").inner_text(timeout=WAIT_MS)
    status_before = table.locator("#region-live .status p").all_inner_texts()   # one a sentence

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
    expect(table.locator("#region-live .status p")).to_have_text(status_before)
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
    expect(table.locator("#region-live")).to_contain_text("guess 2 of 4")

    first.kill()
    for page in (table, keeper):
        expect(page.locator("#connection")).to_contain_text("Connection lost")
    screenshot(keeper, "play-seat-connection-lost")

    again = services(data, port, "--resume", str(log), command=("play", "--text", "--screens", "compass-code"))
    assert again.table_url == first.table_url
    for page in (table, keeper):
        expect(page.locator("#connection")).not_to_contain_text("lost", timeout=40_000)
    expect(keeper.locator("#region-view")).to_contain_text("E S N W")      # still the keeper, no rescan
    expect(table.locator("#region-live")).to_contain_text("guess 2 of 4")
    assert keeper.url.endswith("/seat/1")
