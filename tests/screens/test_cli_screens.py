"""``facilitator play GAME --text --screens``: stdin still drives play, stdout stays the
announcements, the table screen's address goes to stderr, and bad ports exit 2."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support import deadline

LINES = "send north east south west\nstatus\n"
PLAY = [sys.executable, "-m", "facilitator", "play", "compass-code", "--text", "--seed", "1"]


def run(args, tmp_path, stdin=LINES):
    return subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=deadline(60), check=False,
                          env={"FACILITATOR_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin",
                               "HOME": str(tmp_path)})


@pytest.mark.slow
def test_screens_leave_text_play_unchanged_and_print_the_address(tmp_path):
    plain = run(PLAY, tmp_path)
    served = run(PLAY + ["--screens", "--port", "0"], tmp_path)
    assert served.returncode == plain.returncode == 0
    assert served.stdout == plain.stdout
    assert re.fullmatch(r"facilitator: table screen: open http://127\.0\.0\.1:\d+/table/[\w-]{20,}\n"
                        r"facilitator: the game is kept in \S+\.jsonl; continue it with: "   # no --log
                        r"facilitator play compass-code --text --resume --screens --port 0\n",   # as typed
                        served.stderr)


@pytest.mark.slow
def test_bad_or_busy_ports_exit_2_with_one_line(tmp_path):
    bad = run(PLAY + ["--screens", "--port", "70000"], tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("facilitator: --port") and bad.stderr.count("\n") == 1
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        taken = run(PLAY + ["--screens", "--port", str(port)], tmp_path)
    assert taken.returncode == 2 and "cannot serve screens" in taken.stderr and "Traceback" not in taken.stderr


@pytest.mark.slow
@pytest.mark.parametrize("game, flags", [("clover", []), ("compass-code", ["--keeper", "human"])])
def test_screens_stand_in_for_private_in_voice_play(tmp_path, game, flags):
    """DESIGN: hidden information in voice play needs --private or --screens."""
    log = tmp_path / "log.jsonl"
    done = run([sys.executable, "-m", "facilitator", "play", game, "--seed", "1", "--screens", "--port", "0",
                "--input-device", "no-such-microphone", "--log", str(log), *flags], tmp_path, stdin="status\n")
    assert done.returncode == 0, done.stderr
    assert "needs --private" not in done.stderr and "Traceback" not in done.stderr
    assert "table screen: open http://127.0.0.1:" in done.stderr
    # no microphone at the table: the seats' phones are its microphones, and typed lines work
    assert "the seats' phones are the microphones" in done.stderr
    assert log.exists() and done.stdout.strip()


@pytest.mark.slow
def test_the_listen_loop_plays_through_the_shared_session(tmp_path):
    """Recorded speech reaches the session through the screens' lock: the guess is
    echoed, confirmed by "yes", then applied and logged."""
    from facilitator.speech.audio.devices import read_wav, write_wav

    clips = Path(__file__).resolve().parent.parent / "audio" / "compass-code"
    second = b"\0\0" * 16_000
    clip = tmp_path / "table.wav"          # the opening is spoken first: the guess comes after it
    write_wav(clip, second * 12 + read_wav(clips / "send_north_east_south_west.wav") + second * 5
              + read_wav(clips / "yes.wav") + second * 6)
    log = tmp_path / "log.jsonl"
    # pocketsphinx alone is never sure, so the guess is asked and the recorded "yes" answers it
    done = run([sys.executable, "-m", "facilitator", "play", "compass-code", "--seed", "1", "--keeper", "human",
                "--second-engine", "off", "--screens", "--port", "0", "--audio-in", str(clip), "--speech-out", str(tmp_path / "said"),
                "--log", str(log)], tmp_path, stdin="")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "Is that right?" in done.stdout and "Guess 1 is north east south west" in done.stdout
    types = [json.loads(line)["type"] for line in log.read_text(encoding="utf-8").splitlines()]
    assert types[0] == "game-started" and "guess-sent" in types


@pytest.mark.slow
def test_clicks_print_their_announcements_on_stdout_in_text_play(tmp_path):
    """--text --screens: stdout carries every public announcement, the clicked ones too."""
    import httpx

    proc = subprocess.Popen([sys.executable, "-m", "facilitator", "play", "lantern-links", "--text", "--seed", "3",
                             "--players", "3", "--screens", "--port", "0"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={"FACILITATOR_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin",
                                 "HOME": str(tmp_path)})
    try:
        assert proc.stderr is not None and proc.stdin is not None
        address = re.search(r"open (http://\S+)", proc.stderr.readline())
        assert address, "the table screen's address is printed"
        table_url = address.group(1)
        base = table_url.split("/table/")[0]
        with httpx.Client(base_url=base, timeout=10, follow_redirects=True) as table, \
                httpx.Client(base_url=base, timeout=10, follow_redirects=True) as phone:
            links = re.findall(r'class="join-link" rel="noreferrer">([^<]+)<', table.get(table_url).text)
            assert phone.get(links[0]).status_code == 200
            reply = phone.post("/seat/1/command", data={"control": "pass"},
                               headers={"Accept": "application/json"}).json()
            assert reply["accepted"], reply
            said = reply["public"]
            assert said
        out, _ = proc.communicate("status\n", timeout=deadline(60))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    for line in said:
        assert line in out.splitlines(), (line, out)


#: a whole voyage by typed lines (a machine keeper, the routes given): the last line ends it
VOYAGE = ["--players", "3", "--routes", "ESNW,NESW,WSEN"]
VOYAGE_LINES = "send E S N W\nsend N E S W\nsend W S E N\n"


@pytest.mark.slow
def test_at_the_games_end_the_screens_stay_for_the_result_time(tmp_path):
    """The result stays on the screens for --result-seconds after the last line (the end
    of input is no reason to close them); then play exits 0 with the whole game on stdout."""
    import time

    started = time.monotonic()
    done = run(PLAY + VOYAGE + ["--screens", "--port", "0", "--result-seconds", "3"], tmp_path, stdin=VOYAGE_LINES)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started >= 3
    assert done.stdout.splitlines()[-1] == "The voyage is over: all 3 legs solved. A perfect voyage!"
    assert "the screens show the result for 3 seconds" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_quit_closes_the_result_screens_at_once_and_the_setting_sets_their_time(tmp_path):
    import time

    started = time.monotonic()
    done = run(PLAY + VOYAGE + ["--screens", "--port", "0", "--result-seconds", "600"], tmp_path,
               stdin=VOYAGE_LINES + "status\nquit\n")
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 60
    assert "the screens show the result for 10 minutes" in done.stderr
    assert "Goodbye" not in done.stdout and done.stdout.count("The voyage is over") == 1   # nothing said after the end
    # the settings file's screens.result_seconds is the default for --result-seconds; 0 closes at once
    config = tmp_path / "config.toml"
    config.write_text("[screens]\nresult_seconds = 0\n", encoding="utf-8")
    quick = subprocess.run(PLAY + VOYAGE + ["--screens", "--port", "0"], input=VOYAGE_LINES, capture_output=True,
                           text=True, timeout=deadline(60), check=False,
                           env={"FACILITATOR_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                "FACILITATOR_CONFIG": str(config)})
    assert quick.returncode == 0, quick.stderr
    assert "the screens show the result" not in quick.stderr
