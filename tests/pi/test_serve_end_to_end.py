"""facilitator serve --text through a real subprocess: a SIGKILL mid-game, then a restart
that offers the interrupted game by voice phrase, and "resume" continues it exactly."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support import ROOT, deadline, read_jsonl, run_cli

pytestmark = pytest.mark.slow
OFFER = "There is an unfinished compass code game. Say resume or new game."


class Serving:
    """A running ``facilitator serve --text``: say a line, read announcements with a timeout."""

    def __init__(self, data: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "facilitator", "serve", "--text", "--data-dir", str(data), *extra],
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

    def read(self, count: int) -> list[str]:
        return [self.lines.get(timeout=deadline(60)) for _ in range(count)]

    def read_until(self, last: str) -> list[str]:
        """Lines up to and including ``last`` (an answer may run to several sentences)."""
        out = [self.lines.get(timeout=deadline(60))]
        while out[-1] != last:
            out.append(self.lines.get(timeout=deadline(60)))
        return out

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        self.proc.wait(timeout=deadline(30))


def test_sigkill_mid_game_then_restart_offers_the_game_and_resume_continues_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = Serving(data, "--seed", "4")
    assert first.read(1) == ["Which game? Say, for example: let's play compass code with four players."]
    first.say("let's play compass code with five players")
    starting, opening = first.read(2)
    assert starting == "Starting compass code with 5 players." and opening.startswith("Leg 1 of 3")
    first.say("send north east south west")
    said = first.read(2)   # the score and the next captain
    first.say("status")
    status = "Leg 1 of 3, guess 2 of 4: Player 2 is captain."     # status's first sentence
    assert first.read(1) == [status]
    first.proc.send_signal(signal.SIGKILL)   # a power cut, as far as the process can tell
    first.close()
    assert first.proc.returncode == -signal.SIGKILL
    log = next((data / "games").glob("*-compass-code.jsonl"))
    before = read_jsonl(log)

    second = Serving(data)
    assert second.read(1) == [OFFER]
    second.say("resume")
    # after a crash the last command is said again: it may never have been heard
    assert second.read(4) == ["Resuming the game.", *said, status]
    second.say("send west south east north")
    assert second.read_until("Guess 3 of 4: Player 3 is captain.")[-2].startswith("West south east north: ")
    second.say("quit")
    assert second.read(2) == ["Back to the lobby.",
                              "The compass code game is kept. Say resume to go on with it, or choose a game."]
    second.say("quit")
    assert second.read(1) == ["Goodbye."]
    second.close()
    assert second.proc.returncode == 0
    after = read_jsonl(log)
    assert after[:len(before)] == before   # nothing logged before the kill is lost or rewritten
    assert after[len(before)]["seq"] == before[-1]["seq"] + 1
    assert after[len(before)]["type"] == "guess-scored"


def test_eof_mid_game_exits_0_and_the_next_start_offers_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = run_cli(["serve", "--text", "--data-dir", str(data)], stdin="play compass code\n")
    assert done.returncode == 0 and done.stderr == ""
    again = run_cli(["serve", "--text", "--data-dir", str(data)], stdin="# nothing said\n")
    assert again.stdout.splitlines() == [OFFER]


def test_voice_serve_with_no_microphone_says_so_and_goes_on_by_typed_lines(tmp_path: Path) -> None:
    """No sound card here: one clear line on stderr, then the lobby by text; as a service, exit 1."""
    data = tmp_path / "data"
    done = run_cli(["serve", "--data-dir", str(data)], stdin="quit\n", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "continuing in text mode" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout.splitlines()[-1] == "Goodbye."
    service = run_cli(["serve", "--service", "--data-dir", str(data)], timeout=120)
    assert service.returncode == 1
    assert "exiting so that the service starts again" in service.stderr
    assert "Traceback" not in service.stderr
