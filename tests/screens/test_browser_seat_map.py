"""The seat map on the table screen (issue 48), in Debian's chromium: where each seat speaks
from at the microphone array, as voice turns learn it.

The real listen loop is attached to the screens as voice play attaches it; its voice turns
hear the seats' enrollment lines as four raw microphones of a ReSpeaker 4-Mic HAT (plane
waves from each seat's direction, measured by the real bearing finder; the words and the
voices are the loop tests' fakes).  The table screen shows every seat with no place yet,
then each seat's degrees as it enrols (a compass rose round the array, and the same as a
list), and follows a seat that enrols again from a new place: all by its live updates."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from loop.loop_fakes import ScriptedRecognizer
from screens.screen_support import (
    WAIT_MS,
    accessibility_problems,
    screenshot,
    wait_until,
    wait_until_live,
)
from speakers.test_array_turns import HAT, raw_from
from speakers.turn_fakes import Turns, Unused

from facilitator.screens import ScreenServer
from facilitator.speech.base import Segment, VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings
from facilitator.speech.voices.direction import apart
from facilitator.speech.voices.voiceprints import Voiceprints

pytestmark = pytest.mark.slow

READY = "raw:i'm ready to play"


class Quiet:
    def speak(self, text: str) -> float:
        return 1.0

    def earcon(self, name: str) -> None:
        return None


def seat_degrees(page: Any) -> dict[int, int | None]:
    """The seat map's list as the page shows it: seat -> degrees (None: no place yet)."""
    items = page.evaluate("""Array.from(document.querySelectorAll('#seat-map .seat-map-list li'))
                             .map(li => [li.dataset.seat, li.textContent])""")
    out: dict[int, int | None] = {}
    for seat, text in items:
        found = re.search(r"(\d+)°", text)
        out[int(seat)] = int(found.group(1)) if found else None
    return out


def placed_near(page: Any, seat: int, degrees: float) -> bool:
    shown = seat_degrees(page).get(seat)
    return shown is not None and apart(shown, degrees) <= 3


def test_the_table_screen_shows_where_each_seat_speaks_from(
        start_server: Callable[..., ScreenServer], device: Callable[..., Any]) -> None:
    server = start_server("compass-code", players=3, seed=5, options={"routes": ["ESNW", "NESW", "WSEN"]})
    hub = server.hub
    loop = ListenLoop(hub.shared, ScriptedRecognizer(), Quiet(), VoiceSettings(), None, LoopSettings(earcon_seconds=0.0))
    hub.shared.attach_loop(loop)
    log_path = hub.session.log.path
    turns = Turns(loop, Unused(), Voiceprints(Voiceprints.beside(log_path), hub.session.game_id, dimension=3),
                  array=HAT)
    turns.voices_at = {}

    def say(text: str, voice: int, degrees: float, at: float) -> None:
        turns.voices_at[at] = voice
        loop.hear(Segment(text.encode("utf-8"), at, at + 1.2, raw=raw_from(degrees, 1.2, int(at)), microphones=4))

    table = device(1280, 800)
    table.goto(server.table_url)
    wait_until_live(table)
    # voice turns at the array: every seat listed, none placed yet
    wait_until(table, "document.querySelectorAll('#seat-map .seat-map-list li').length === 3")
    assert seat_degrees(table) == {1: None, 2: None, 3: None}
    assert "no place yet" in table.locator("#seat-map").inner_text()

    turns.begin()
    for k, (seat, degrees) in enumerate(((1, 30.0), (2, 150.0), (3, 270.0)), 1):
        say(READY, seat if seat < 3 else 9, degrees, 10.0 * k)
    assert turns.asking is None and sorted(turns.prints.bearings) == [1, 2, 3]
    deadline_ms = WAIT_MS
    for seat, degrees in ((1, 30.0), (2, 150.0), (3, 270.0)):
        wait_until(table, f"Array.from(document.querySelectorAll('#seat-map li[data-seat=\"{seat}\"]'))"
                          ".some(li => /\\d+°/.test(li.textContent))", deadline_ms)
        assert placed_near(table, seat, degrees), seat_degrees(table)
    # the rose: one dot a placed seat, each labelled with its name and degrees
    dots = table.evaluate("Array.from(document.querySelectorAll('#seat-map svg circle[data-seat]'))"
                          ".map(c => c.dataset.seat)")
    assert sorted(dots) == ["1", "2", "3"]
    labels = table.evaluate("Array.from(document.querySelectorAll('#seat-map svg text')).map(t => t.textContent)")
    assert any(re.fullmatch(r"Player 2 1(4[7-9]|5[0-3])°", text) for text in labels), labels
    screenshot(table, "seat-map")
    assert accessibility_problems(table) == []

    # Player 2 moves: asked again by the typed command, the map follows the new place
    loop.submit_text("enrol 2")
    loop.tick(50.0)
    assert turns.asking == 2
    say(READY, 2, 205.0, 60.0)
    wait_until(table, "(() => { const li = document.querySelector('#seat-map li[data-seat=\"2\"]');"
                      " const m = li && li.textContent.match(/(\\d+)°/); return !!m && Math.abs(+m[1] - 205) <= 3; })()")
    assert placed_near(table, 1, 30.0) and placed_near(table, 3, 270.0)
