"""A kill inside an echo's undo window (issue 49): the resumed game says the echoed
command was not applied, instead of only repeating where the game is.

Real parts throughout: ``facilitator play --screens`` in a subprocess with no
microphone of its own (the seats' phones are the microphones), the captain's phone
posting espeak-ng's "send north east south west" through the talk routes over
loopback, pocketsphinx hearing it, the referee's echo in the captions, SIGKILL while
the window is open, then ``play --text --resume`` in a new process."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from support import ROOT, deadline, read_jsonl, speak

pytestmark = pytest.mark.slow

NOT_APPLIED = "Send north east south west was not applied: I stopped before it was. Say it again if you still want it."


def _lines(stream, into: queue.Queue[str]) -> None:
    for raw in stream:
        into.put(raw.decode("utf-8", "replace").rstrip("\n"))


def _wait_for(lines: queue.Queue[str], pattern: str, seconds: float) -> str:
    end = time.monotonic() + deadline(seconds)
    seen: list[str] = []
    while time.monotonic() < end:
        try:
            line = lines.get(timeout=0.1)
        except queue.Empty:
            continue
        if re.search(pattern, line):
            return line
        seen.append(line)
    raise AssertionError(f"never saw {pattern!r}; saw {seen}")


def _talk(phone: httpx.Client, seat: int, pcm: bytes) -> None:
    """One held talk, as the page's script posts it: press, chunks, release."""
    utterance = phone.post(f"/seat/{seat}/talk").json()["utterance"]
    chunks = [pcm[i:i + 6400] for i in range(0, len(pcm), 6400)]
    for n, chunk in enumerate(chunks):
        answer = phone.post(f"/seat/{seat}/talk/{utterance}/{n}", content=chunk,
                            headers={"content-type": "application/octet-stream"})
        assert answer.status_code == 200, answer.text
    assert phone.post(f"/seat/{seat}/talk/{utterance}/end?chunks={len(chunks)}").status_code == 200


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng says the captain's line")
def test_a_kill_inside_the_echos_window_is_said_on_resume(tmp_path: Path) -> None:
    from screens.screen_support import free_port

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    common = ["--data-dir", str(tmp_path / "data")]
    game = subprocess.Popen(
        [sys.executable, "-m", "facilitator", "play", "compass-code", "--screens", "--port", str(port),
         "--input-device", "no-such-microphone", "--speech-out", str(tmp_path / "said"), "--second-engine", "off",
         "--voices", "off", "--log", "g.jsonl", "--seed", "1", *common],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    out: queue.Queue[str] = queue.Queue()
    err: queue.Queue[str] = queue.Queue()
    pumps = [threading.Thread(target=_lines, args=(game.stdout, out), daemon=True),
             threading.Thread(target=_lines, args=(game.stderr, err), daemon=True)]
    for pump in pumps:
        pump.start()
    try:
        table = _wait_for(err, r"table screen: open ", 60).split("open ", 1)[1]
        _wait_for(out, r"Player 1 captains guess 1", 60)
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, timeout=30, headers={"origin": base}, follow_redirects=True) as screen:
            page = screen.get(table).text
        token = re.findall(r"/join/([A-Za-z0-9_-]+)", page)[0]          # seat 1's card comes first
        with httpx.Client(base_url=base, timeout=30, headers={"origin": base}) as captain:
            assert captain.get(f"/join/{token}").status_code == 303
            _talk(captain, 1, speak("send north east south west", "en-us", tmp_path))
            _wait_for(out, r"^Send north east south west\.", 60)          # the echo (or its question)
            game.send_signal(signal.SIGKILL)                               # inside the 3 s window
        game.wait(30)
    finally:
        if game.poll() is None:
            game.kill()
            game.wait(30)
        for pump in pumps:
            pump.join(10)
        for pipe in (game.stdin, game.stdout, game.stderr):
            if pipe is not None:
                pipe.close()
    log = tmp_path / "g.jsonl"
    assert not any(e["type"] == "guess-scored" for e in read_jsonl(log))     # nothing agreed: nothing applied
    resumed = subprocess.run([sys.executable, "-m", "facilitator", "play", "compass-code", "--text",
                              "--resume", "g.jsonl", *common], input="", text=True, capture_output=True,
                             cwd=tmp_path, env=env, timeout=deadline(120), check=False)
    assert resumed.returncode == 0, resumed.stderr
    said = resumed.stdout.splitlines()
    assert "Player 1 captains guess 1 of 4." in resumed.stdout
    assert said[-1] == NOT_APPLIED, said                                  # after where the game is
    assert not log.with_name("g.jsonl.pending").exists()
    again = subprocess.run([sys.executable, "-m", "facilitator", "play", "compass-code", "--text",
                            "--resume", "g.jsonl", *common], input="", text=True, capture_output=True,
                           cwd=tmp_path, env=env, timeout=deadline(120), check=False)
    assert "was not applied" not in again.stdout                            # said once


def test_a_note_the_log_has_passed_says_nothing(tmp_path: Path) -> None:
    """Applied, then stopped before the note was cleared: the log's last seq moved on."""
    from facilitator.unapplied import PendingNote, note_path, take

    log = tmp_path / "g.jsonl"
    seq = 7
    PendingNote(log, lambda: seq).hold("send NESW", "send north east south west")
    assert json.loads(note_path(log).read_text())["seq"] == 7
    assert take(log, 9) is None and not note_path(log).exists()
    PendingNote(log, lambda: seq).hold("send NESW", "send north east south west")
    assert take(log, 7) == "send north east south west"
    note_path(log).write_text("{not json")
    assert take(log, 7) is None
