"""The README's example command lines, run as they are written (issue 36): each one
under "Playing by text" starts and ends cleanly in a real subprocess, in order (the
resume line continues the game the first line logged).  An optional part in square
brackets is run without it and with each of its alternatives."""

from __future__ import annotations

import itertools
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, deadline

README = ROOT / "README.md"


def section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def example_lines(title: str) -> list[str]:
    """The indented ``facilitator ...`` lines of a README section, comments dropped."""
    lines = []
    for line in section(title).splitlines():
        if line.startswith("    facilitator "):
            lines.append(re.sub(r"\s+#.*$", "", line.strip()))
    return lines


def variants(line: str) -> list[list[str]]:
    """``line``'s argument lists: each ``[a | b]`` left out, or one alternative put in."""
    parts = re.split(r"\[([^\]]*)\]", line)
    plain = parts[0::2]
    options = [[""] + [alt.strip() for alt in group.split("|")] for group in parts[1::2]]
    out = []
    for choice in itertools.product(*options):
        text = "".join(p + c for p, c in itertools.zip_longest(plain, choice, fillvalue=""))
        out.append(shlex.split(text))
    return out


def test_the_examples_are_found() -> None:
    lines = example_lines("Playing by text")
    assert len(lines) >= 7 and all(line.startswith("facilitator ") for line in lines)
    assert variants("facilitator play x [--a | --b 1]") == [
        ["facilitator", "play", "x"], ["facilitator", "play", "x", "--a"], ["facilitator", "play", "x", "--b", "1"]]


@pytest.mark.slow
def test_every_playing_by_text_example_runs(tmp_path: Path) -> None:
    env = {"FACILITATOR_DATA_DIR": str(tmp_path / "data"), "FACILITATOR_CONFIG": str(tmp_path / "config.toml"),
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    for line in example_lines("Playing by text"):
        for argv in variants(line):
            assert argv[0] == "facilitator"
            done = subprocess.run([sys.executable, "-m", "facilitator", *argv[1:]], input="status\n",
                                  capture_output=True, text=True, cwd=tmp_path, env=env,
                                  timeout=deadline(120), check=False)
            assert done.returncode == 0, (argv, done.stderr)
            assert "Traceback" not in done.stderr, (argv, done.stderr)
            assert done.stdout.strip(), argv
