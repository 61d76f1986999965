"""No guest on any number of addresses keeps a new phone or the table screen out (issue 49).

A guest with 8 or more addresses holding 32 idle connections each filled the 256
places for connections not yet sorted, and every new connection from anyone else was
closed at once: a new phone's page, the referee's own table screen on loopback, and
the taps of a phone whose kept-alive connection had timed out.  Here the service runs
as with ``--lan`` on loopback (``lan_support``), and a guest in a process of its own
(``benchmarks.screens_flood --flood``) holds 32 idle connections from each of nine
addresses in 127.0.0.0/8, opening again every one the server closes, for at most
``FLOOD_SECONDS`` and ``MAX_OPENED`` connections.  Meanwhile new phones (each from an
address of its own) and the table screen (127.0.0.1, plain http) must each be
answered within ``KEPT_OUT_SECONDS`` of their first try, and two phones joined
before the flood, one tapping every second and one every 7 s (past the 5 s
keep-alive), have every tap answered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from screens.lan_support import lan_settings
from screens.screen_support import ROOT, screen_servers

from benchmarks.screens_flood import new_page, tapping_phone
from facilitator.screens import ScreenServer

pytestmark = pytest.mark.slow

GUEST_ADDRESSES = 9
PER_ADDRESS = 32
FLOOD_SECONDS = 40
MAX_OPENED = 30_000
#: the longest a new page (or the table screen) may be kept out, from its first try
KEPT_OUT_SECONDS = 5.0
NEW_PAGES = 6


@pytest.fixture
def lan_on_loopback(tmp_path: Path) -> Iterator[Callable[..., ScreenServer]]:
    with screen_servers(tmp_path) as serve:
        def start() -> ScreenServer:
            return serve("compass-code", lan_settings(), tmp_path / "data", players=4, seed=1)
        yield start


def test_a_guest_on_nine_addresses_keeps_no_phone_and_no_table_screen_out(lan_on_loopback):
    server = lan_on_loopback()
    assert server.certificate is not None
    cert = str(server.certificate.cert_path)
    taps: dict[int, list[float | str]] = {}
    joined = [threading.Event(), threading.Event()]
    go = threading.Event()
    phones = [threading.Thread(target=tapping_phone, args=(server.port, cert, seat, server.seats.seats[seat].token,
                                                           every, count, taps, joined[n], go), daemon=True)
              for n, (seat, every, count) in enumerate(((1, 1.0, 12), (2, 7.0, 3)))]
    for phone in phones:
        phone.start()
    assert all(event.wait(60) for event in joined)
    guest = subprocess.Popen([sys.executable, "-m", "benchmarks.screens_flood", "--flood", str(server.port),
                              "--addresses", str(GUEST_ADDRESSES), "--per-address", str(PER_ADDRESS),
                              "--seconds", str(FLOOD_SECONDS), "--max-opened", str(MAX_OPENED)],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        time.sleep(2.0)                          # the guest holds its 288 connections
        go.set()
        table = f"http://127.0.0.1:{server.port}/table/{server.seats.table_key}"
        pages = [new_page(f"https://127.0.0.1:{server.port}/", f"127.0.3.{n + 1}", cert, KEPT_OUT_SECONDS)
                 for n in range(NEW_PAGES)]
        screens = [new_page(table, "127.0.0.1", None, KEPT_OUT_SECONDS) for _ in range(NEW_PAGES)]
        for phone in phones:
            phone.join(90)
        assert guest.poll() is None, "the guest stopped before the phones were done"
    finally:
        guest.terminate()
        flooded = json.loads(guest.communicate(timeout=60)[0] or "{}")
    assert flooded.get("opened", 0) >= GUEST_ADDRESSES * PER_ADDRESS, flooded
    assert flooded.get("closed by the server", 0) > 0, flooded       # it re-opened what was closed
    kept_out = [tries for took, tries in pages if took is None]
    assert kept_out == [], f"{len(kept_out)} of {NEW_PAGES} new phones kept out for {KEPT_OUT_SECONDS} s: {pages}"
    kept_out = [tries for took, tries in screens if took is None]
    assert kept_out == [], f"the table screen kept out {len(kept_out)} of {NEW_PAGES} times: {screens}"
    assert [isinstance(t, float) for t in taps.get(1, [])] == [True] * 12, taps.get(1)
    assert [isinstance(t, float) for t in taps.get(2, [])] == [True] * 3, taps.get(2)   # every 7 s
