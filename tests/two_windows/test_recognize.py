"""``facilitator recognize --game two-windows``: espeak-ng says the table's phrases and
the whole game's grammar (catalogue names included, from content) turns them into
canonical commands; table chatter gives nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from support import run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]

CLIPS = {
    ("report a form round", "en-us"): "a sends FORM ROUND",
    ("report b edge notched", "en-gb"): "b sends EDGE NOTCHED",
    ("a sends size small", "en-us+f3"): "a sends SIZE SMALL",
    ("b sends surface plain", "en-us"): "b sends SURFACE PLAIN",
    ("final hazel", "en-gb"): "final Hazel",
    ("final dahlia", "en-us"): "final Dahlia",
    ("final birch", "en-gb"): "final Birch",
    ("our final answer is gorse", "en-us"): "final Gorse",
    ("final brook", "en-us+f3"): "final Brook",
    ("more", "en-us"): "more",
    ("replace the packet", "en-gb"): "replace packet",
    ("shall we order pizza", "en-us"): None,
}

# commands the two engines together may refuse in this test (see below)
MOST_REFUSED = 3


def test_recognize_two_windows_phrases(tmp_path: Path) -> None:
    files = []
    for (text, voice) in CLIPS:
        path = tmp_path / f"{text.replace(' ', '_')}.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", "160", "-w", str(path), text], check=True)
        files.append(str(path))
    expected = list(CLIPS.values())
    # pocketsphinx alone (the light mode) hears every clip
    done = run_cli(["recognize", "--game", "two-windows", "--second-engine", "off", *files], timeout=300)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["command"] for line in done.stdout.splitlines()] == expected
    # the default (Whisper beside it, when installed) refuses what the two engines do not agree
    # on. The rule: never take a wrong one. How many it refuses moves with the CPU's kernels
    # (one of these eleven commands on x86, "a sends size small" in a female voice; two on
    # aarch64's NEON kernels, that one and "final hazel"), so the bound is a margin, not a
    # pin: at most three refused. The refusal rates themselves are measured in benchmarks/.
    done = run_cli(["recognize", "--game", "two-windows", *files], timeout=300)
    assert done.returncode == 0, done.stderr
    got = [json.loads(line)["command"] for line in done.stdout.splitlines()]
    assert all(g in (e, None) for g, e in zip(got, expected, strict=True)), got
    assert sum(g != e for g, e in zip(got, expected)) <= MOST_REFUSED, got
