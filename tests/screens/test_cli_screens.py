"""``facilitator play GAME --text --screens``: stdin still drives play, stdout stays the
announcements, the table screen's address goes to stderr, and bad ports exit 2."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import pytest

LINES = "send north east south west\nstatus\n"
PLAY = [sys.executable, "-m", "facilitator", "play", "compass-code", "--text", "--seed", "1"]


def run(args, tmp_path, stdin=LINES):
    return subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=60, check=False,
                          env={"FACILITATOR_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"})


@pytest.mark.slow
def test_screens_leave_text_play_unchanged_and_print_the_address(tmp_path):
    plain = run(PLAY, tmp_path)
    served = run(PLAY + ["--screens", "--port", "0"], tmp_path)
    assert served.returncode == plain.returncode == 0
    assert served.stdout == plain.stdout
    assert re.fullmatch(r"facilitator: table screen: open http://127\.0\.0\.1:\d+/table/[\w-]{20,}\n",
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
