"""``facilitator serve --text --screens`` through a real subprocess, as a terminal runs
it (stdin left open): "quit" stops it cleanly, and each announcement is said once on
stdout and once in the screens' log, also when a game is chosen or resumed (issue 36)."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support import ROOT, deadline

from facilitator.lobby import GameStore, Lobby
from facilitator.screens import ScreenServer, ScreenSettings
from facilitator.session import Reply

pytestmark = pytest.mark.slow
OPENING = "Leg 1 of 3, new route. Player 1 captains guess 1 of 4."
SCORED = "North east south west: 1 anchor, 2 clockwise steps."


class Terminal:
    """``serve --text --screens`` whose stdin stays open until ``close`` (a terminal's)."""

    def __init__(self, data: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "facilitator", "serve", "--text", "--screens", "--port", "0",
             "--seed", "3", "--data-dir", str(data)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode("utf-8").rstrip("\n"))

    def say(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode() + b"\n")
        self.proc.stdin.flush()

    def read_until(self, last: str) -> list[str]:
        out = [self.lines.get(timeout=deadline(60))]
        while out[-1] != last:
            out.append(self.lines.get(timeout=deadline(60)))
        return out

    def rest(self) -> list[str]:
        """Every line still to come, once the process has ended."""
        self.proc.wait(timeout=deadline(30))
        out = []
        while True:
            try:
                out.append(self.lines.get(timeout=2))
            except queue.Empty:
                return out

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode("utf-8", "replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=deadline(30))
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def test_quit_with_stdin_still_open_exits_0_without_an_abort(tmp_path: Path) -> None:
    for run in range(2):                   # it failed 2 of 2 runs before
        term = Terminal(tmp_path / f"data{run}")
        term.read_until("Which game? Say, for example: let's play compass code with four players.")
        term.say("quit")                   # stdin is not closed: the reader thread still waits on it
        try:
            term.proc.wait(timeout=deadline(30))
            err = term.stderr()
            assert term.proc.returncode == 0, err
            assert "Fatal Python error" not in err and "Traceback" not in err
            assert term.rest() == ["Goodbye."]
        finally:
            term.close()


def test_a_chosen_game_and_a_resumed_one_are_each_said_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    term = Terminal(data)
    term.read_until("Which game? Say, for example: let's play compass code with four players.")
    term.say("let's play compass code with four players")
    assert term.read_until(OPENING) == ["Starting compass code with 4 players.", OPENING]
    term.say("send north east south west")
    assert term.read_until("Guess 2 of 4: Player 2 is captain.") == [SCORED, "Guess 2 of 4: Player 2 is captain."]
    assert term.proc.stdin is not None
    term.proc.stdin.close()                # EOF mid-game: kept for resume
    assert term.rest() == []               # the opening is not said a second time
    assert term.proc.returncode == 0
    term.close()

    again = Terminal(data)     # with screens, a service stopped mid-game goes back into it at once
    resumed = again.read_until("The bearing check is unused. 4 candidates remain.")
    assert resumed == ["Resuming the game.", "Leg 1 of 3, guess 2 of 4: Player 2 is captain.",
                       "The bearing check is unused. 4 candidates remain."]
    again.say("quit")
    assert again.read_until("The compass code game is kept. Say resume to go on with it, or choose a game.")
    again.say("quit")
    assert again.rest() == ["Goodbye."]    # nothing of the earlier game is printed again
    assert again.proc.returncode == 0
    again.close()


def test_the_screens_log_only_grows_at_its_end_when_a_game_is_chosen_or_resumed(tmp_path: Path) -> None:
    """A page appends the log lines numbered above the last it holds: a line once shown
    keeps its number, and nothing is shown twice."""
    data = tmp_path / "data"
    lobby = Lobby(GameStore(data), seed=3, screens=True)
    server = ScreenServer(lobby, Reply(), ScreenSettings(port=0), seat_count=4).start()
    try:
        hub = server.hub
        hub.switch(lobby, lobby.opening().public)
        seen: dict[int, str] = {}

        def page() -> list[str]:
            """What a page that kept polling holds now (and that numbers never change)."""
            for n, text in hub.numbered_announcements(200):
                assert seen.setdefault(n, text) == text, (n, text, seen.get(n))
            return [seen[n] for n in sorted(seen)]

        page()
        hub.shared.handle("let's play compass code with four players")
        page()                                            # polled between the choice and the switch
        session = lobby.take()
        hub.switch(session)
        hub.shared.handle("send north east south west")
        assert page().count(OPENING) == 1 and page().count(SCORED) == 1
        with hub.lock:
            session.log.close()
            back = lobby.back(session)
            hub.switch(lobby, back.public)
        page()
        hub.shared.handle("resume")
        page()
        resumed = lobby.take()
        hub.switch(resumed)
        shown = page()
        assert shown.count(OPENING) == 1 and shown.count(SCORED) == 1
        assert shown.count("Resuming the game.") == 1 and len(shown) == len(set(shown)), shown
        resumed.log.close()

        # a table service restarted after the game: its screens show what was said
        # before, ahead of "Resuming the game." (from the log), each once
        fresh = Lobby(GameStore(data), seed=3, screens=True)
        later = ScreenServer(fresh, Reply(), ScreenSettings(port=0), seat_count=4).start()
        try:
            later.hub.switch(fresh, fresh.opening().public)
            later.hub.shared.handle("resume")
            game = fresh.take()
            later.hub.switch(game)
            said = later.hub.announcements
            assert said.count(OPENING) == 1 and said.count(SCORED) == 1
            assert said.index(SCORED) < said.index("Resuming the game.")
            assert later.hub.spoken[-3:] == ["Resuming the game.", "Leg 1 of 3, guess 2 of 4: Player 2 is captain.",
                                             "The bearing check is unused. 4 candidates remain."]
            assert SCORED not in later.hub.spoken         # stdout prints what is said now only
            game.log.close()
        finally:
            later.stop()
    finally:
        server.stop()
