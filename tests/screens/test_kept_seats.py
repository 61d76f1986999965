"""Seats kept for a table session (issue 15): after a crash or ``--resume`` the same
table key, links and seat cookies work, so open pages reconnect without rescanning;
a new game gets new ones; the file holding them is the owner's only."""

from __future__ import annotations

import json
import re

import httpx
from support import run_cli

from facilitator.screens import ScreenServer, ScreenSettings
from facilitator.screens.seats import STORE_NAME, Seats, cookie_name
from facilitator.screens.server import store_for
from facilitator.session import Session
from facilitator.table_data import TableData

ROUTES = {"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]}


def test_a_resumed_game_serves_the_same_seats_and_cookies(tmp_path):
    data, log = tmp_path / "data", tmp_path / "cc.jsonl"
    owner = f"play:{log}"
    session, opening = Session.start("compass-code", players=3, seed=3, options=dict(ROUTES),
                                     log_path=log, table=TableData(data))
    first = ScreenServer(session, opening, ScreenSettings(port=0), store=store_for(data), owner=owner).start()
    try:
        with httpx.Client(base_url=first.base_url, timeout=20) as keeper:
            assert keeper.get(f"/join/{first.seats.seats[1].token}").status_code == 303
            cookie = keeper.cookies.get(cookie_name(1))
        key = first.seats.table_key
        assert (data / STORE_NAME).stat().st_mode & 0o777 == 0o600
    finally:
        first.stop()
        session.log.close()

    session, reply, _ = Session.resume(log, table=TableData(data))
    again = ScreenServer(session, reply, ScreenSettings(port=0), store=store_for(data), owner=owner).start()
    try:
        assert again.seats.table_key == key
        with httpx.Client(base_url=again.base_url, timeout=20, cookies={cookie_name(1): cookie}) as phone:
            page = phone.get("/seat/1")
            assert page.status_code == 200 and "E S N W" in page.text      # the keeper's route, no rescan
            with phone.stream("GET", "/seat/1/events") as stream:
                assert stream.status_code == 200
                line = next(line for line in stream.iter_lines() if line.startswith("data: "))
        assert "E S N W" in json.loads(line[len("data: "):])["regions"]["view"]
        # the seat stays held: its old link does not give it to another device
        assert httpx.get(f"{again.base_url}/join/{again.seats.seats[1].token}").status_code == 409
    finally:
        again.stop()
        session.log.close()

    fresh = Seats(3, store_for(data), owner=f"play:{tmp_path / 'other.jsonl'}")
    assert fresh.table_key != key and not fresh.seats[1].held              # a new game: new links


def test_a_damaged_store_is_replaced_not_fatal(tmp_path):
    store = tmp_path / STORE_NAME
    store.write_text("{not json", encoding="utf-8")
    seats = Seats(2, store, owner="serve")
    assert set(seats.seats) == {1, 2}
    assert json.loads(store.read_text(encoding="utf-8"))["owner"] == "serve"


def test_play_screens_resume_prints_the_same_table_address(tmp_path):
    log, data = tmp_path / "g.jsonl", tmp_path / "data"
    common = ["--text", "--screens", "--port", "0", "--data-dir", str(data)]
    first = run_cli(["play", "lantern-links", "--seed", "2", "--log", str(log), *common], stdin="hands\n")
    again = run_cli(["play", "lantern-links", "--resume", str(log), *common], stdin="hands\n")
    assert first.returncode == 0 and again.returncode == 0, (first.stderr, again.stderr)
    key = re.compile(r"/table/(\S+)")
    assert key.search(first.stderr).group(1) == key.search(again.stderr).group(1)


def test_seats_that_cannot_be_kept_still_work_and_say_why(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory", encoding="utf-8")
    seats = Seats(2, blocked / STORE_NAME, owner="serve")      # its directory cannot exist
    assert seats.unsaved is not None and "join again" in seats.unsaved
    claimed = seats.claim(seats.seats[1].token)
    assert claimed is not None and seats.holds(1, claimed[1])
    assert not list(tmp_path.glob(".*.tmp"))


def _serving(args, data):
    """``play ... --text --screens`` running, its table screen's address read from stderr."""
    import subprocess
    import sys

    from support import ROOT

    proc = subprocess.Popen([sys.executable, "-m", "facilitator", "play", *args, "--text", "--screens", "--port", "0",
                             "--data-dir", str(data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    line = proc.stderr.readline()
    found = re.search(r"open (http://\S+)/table/(\S+)", line)
    assert found, line
    return proc, found.group(1), found.group(2)


def test_a_new_game_at_a_deleted_logs_path_gets_new_seats(tmp_path):
    """The seats belong to a game, not to a path: a log deleted and a new game started at
    the same path (the same seed even) does not let the previous game's devices in."""
    log, data = tmp_path / "g.jsonl", tmp_path / "data"
    game = ["lantern-links", "--seed", "2", "--log", str(log)]
    proc, base, key = _serving(game, data)
    try:
        with httpx.Client(base_url=base, timeout=20) as table, httpx.Client(base_url=base, timeout=20) as old:
            links = re.findall(r'class="join-link" rel="noreferrer">([^<]+)<', table.get(f"/table/{key}",
                                                                                   follow_redirects=True).text)
            assert old.get(links[0]).status_code == 303
            cookie = old.cookies.get(cookie_name(1))
    finally:
        proc.communicate("", timeout=60)          # end of input: the game stays resumable
    assert proc.returncode == 0
    log.unlink()

    proc, base, again = _serving(game, data)
    try:
        assert again != key                                              # a new table key
        with httpx.Client(base_url=base, timeout=20, cookies={cookie_name(1): cookie}) as old:
            assert old.get("/seat/1").status_code == 403                # the old holder is not let in
        with httpx.Client(base_url=base, timeout=20) as table:
            page = table.get(f"/table/{again}", follow_redirects=True).text
            assert "held by a device" not in page                        # every seat free to join
    finally:
        proc.communicate("", timeout=60)
    assert proc.returncode == 0
    # its own resume keeps its own seats
    resumed, _, key3 = _serving(["lantern-links", "--resume", str(log)], data)
    resumed.communicate("", timeout=60)
    assert key3 == again
