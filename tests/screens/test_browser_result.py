"""The result stays on the screens after the last move (issue 36), with ``play --text
--screens`` as a real subprocess and the pages in Debian's chromium.

Before, play exited at the game's end and took the server with it: every page froze on
the position before the last move, saying "Connection lost. Trying again…", and the
result never reached a screen.  Now the screens show the result for the result time
(``--result-seconds``), play exits 0 by itself after it, whether the last move was a
typed line or a tap (stdin still open), and every page keeps the result, saying the
screens are closed rather than that the connection was lost."""

from __future__ import annotations

import time

import pytest
from screens.screen_support import (
    WAIT_MS,
    Service,
    answer_asked,
    free_port,
    screenshot,
    wait_until_live,
)

pytestmark = pytest.mark.slow

#: long enough to look at the screens while play still serves them, on a loaded machine too
RESULT_SECONDS = 15


@pytest.fixture
def services():
    started: list[Service] = []

    def start(data, port, *extra: str, command: tuple[str, ...]) -> Service:
        service = Service(data, port, *extra, command=command)
        started.append(service)
        return service
    yield start
    for service in started:
        service.stop()


def join(device, table, seat: int):
    page = device()
    page.goto(table.locator(f".seat-card:nth-child({seat}) a.join-link").get_attribute("href"))
    page.wait_for_url(f"**/seat/{seat}")
    wait_until_live(page)
    return page


def following(pages, words: str) -> None:
    """Every page follows the game live and shows ``words`` (the position before the
    last move): the last move's update then reaches each page while play serves it,
    however slowly a loaded machine brought the pages up."""
    from playwright.sync_api import expect

    for page in pages:
        wait_until_live(page)
        expect(page.locator("body")).to_contain_text(words)


def assert_result_stays(game: Service, pages, result: str, started: float) -> None:
    """The result on every page while play serves it; then play exits 0 by itself and
    the pages keep the result, saying the screens are closed (never "Connection lost")."""
    from playwright.sync_api import expect

    for page in pages:
        expect(page.locator(".result")).to_contain_text(result)
    game.noted(f"the screens show the result for {RESULT_SECONDS} seconds")
    time.sleep(2)
    assert game.proc.poll() is None, "the screens are still up with the result"
    for page in pages:
        expect(page.locator("#connection")).to_be_empty()
    assert game.proc.wait(timeout=RESULT_SECONDS + 30) == 0
    assert time.monotonic() - started >= RESULT_SECONDS - 1
    for page in pages:
        expect(page.locator("#connection")).to_contain_text("these screens are closed")
    pages[0].wait_for_timeout(3000)               # no retrying turns it into "Connection lost"
    for page in pages:
        expect(page.locator("#connection")).not_to_contain_text("Connection lost")
        expect(page.locator(".result")).to_contain_text(result)


def test_a_game_ended_by_a_typed_line_keeps_its_result_on_every_screen(tmp_path, device, services):
    data, port = tmp_path / "data", free_port()
    game = services(data, port, "--players", "3", "--seed", "3", "--routes", "ESNW,NESW,WSEN",
                    "--result-seconds", str(RESULT_SECONDS), command=("play", "compass-code", "--text", "--screens"))
    table = device(width=1280, height=800)
    table.goto(game.table_url)
    phone = join(device, table, 2)
    game.say("send E S N W")
    game.say("send N E S W")
    game.heard("Leg 3 of 3")
    following([table, phone], "Leg 3 of 3")
    started = time.monotonic()
    game.say("send W S E N")                     # the last move, typed
    game.heard("The voyage is over")
    assert_result_stays(game, [table, phone], "The voyage is over: 3 of 3 legs solved", started)
    screenshot(table, "table-result-after-play-ended")
    screenshot(phone, "seat-result-after-play-ended")


def test_a_game_ended_by_a_tap_ends_play_after_the_result_time(tmp_path, device, services):
    """The last move tapped on a phone: play sees the game's end at once (its stdin is
    still open) and exits after the result time, as the README says it exits at the end."""
    from playwright.sync_api import expect

    data, port = tmp_path / "data", free_port()
    game = services(data, port, "--players", "3", "--practice", "--result-seconds", str(RESULT_SECONDS),
                    command=("play", "two-windows", "--text", "--screens"))
    table = device(width=1280, height=800)
    table.goto(game.table_url)
    decoder, holder_a, holder_b = (join(device, table, seat) for seat in (1, 2, 3))
    holder_a.get_by_role("button", name="FORM ROUND").click()
    expect(table.locator(".said")).to_contain_text("Report A's slip is locked")
    holder_b.get_by_role("button", name="SURFACE STRIPED").click()
    expect(decoder.locator("#region-prompt")).to_contain_text("decodes", timeout=WAIT_MS)
    decoder.select_option("#final-name", "Brook")
    following([table, decoder, holder_a, holder_b], "SURFACE STRIPED")
    started = time.monotonic()
    answer_asked(decoder, "#do-final", "Give Brook as the final answer?")
    game.heard("Practice over: 2 of 2 points")
    assert_result_stays(game, [table, decoder, holder_a, holder_b], "2 of 2 points", started)
