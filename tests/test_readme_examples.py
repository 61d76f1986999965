"""The README's command lines, as they are written (issues 36 and 49): every one runs as
pasted into a shell.  No line holds anything a shell reads otherwise (a usage line's
``[--pool]`` is a glob, its ``|`` a pipe); every ``facilitator`` line is taken by the
real command line's parser; and each line under "Playing by text" starts and ends
cleanly in a real subprocess, in order (the resume line continues the game the first
line logged)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, deadline

README = ROOT / "README.md"
#: how a command line starts: what a player or a host types
COMMANDS = ("facilitator ", "bash ", "python ", "pip ", "sudo ", "source ")
#: characters a shell reads as more than a word when they are not quoted: a pipe, a
#: list, a redirection, a subshell, a glob, a brace expansion, a comment inside a word
SHELL = set("|&;<>()[]*?{}`")


def section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def without_comment(line: str) -> str:
    """``line`` without its trailing ``# comment`` (a ``#`` after a space, outside quotes)."""
    quote = None
    for at, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and at > 0 and line[at - 1] == " ":
            return line[:at].rstrip()
    return line.rstrip()


def command_lines(text: str) -> list[str]:
    """The indented command lines of ``text`` (a README or a section of it), comments
    dropped; code blocks fenced with backticks are drawings, not commands."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("    ") and line.strip().startswith(COMMANDS):
            lines.append(without_comment(line.strip()))
    return lines


def not_pasteable(line: str) -> list[str]:
    """What a shell would read in ``line`` as more than words: each character of
    ``SHELL`` outside quotes, and a quote left open."""
    found, quote = [], None
    for char in line:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in SHELL:
            found.append(char)
    if quote:
        found.append(f"an open {quote}")
    return found


def parser_refusal(argv: list[str]) -> str | None:
    """What the real command line's parser says of ``argv`` (None: it takes it)."""
    import contextlib
    import io

    from facilitator import cli

    parser = cli._parser()
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            args, extra = parser.parse_known_args(argv)
            cli._refuse_unknown(parser, args, extra)
    except SystemExit as exc:
        return None if exc.code == 0 else err.getvalue().strip()
    return None


def test_the_examples_are_found() -> None:
    lines = command_lines(section("Playing by text"))
    assert len(lines) >= 9 and all(line.startswith("facilitator ") for line in lines)
    everything = command_lines(README.read_text(encoding="utf-8"))
    assert any(line.startswith("bash .ci/") for line in everything)
    assert any(line.startswith("facilitator serve") for line in everything)


def test_a_usage_line_is_told_from_a_command_line() -> None:
    """The lines the README used to show (issue 49), which did not run as pasted."""
    assert not_pasteable("facilitator play lantern-links --text --routes 1,7,12 [--pool]") == ["[", "]"]
    assert "|" in not_pasteable("facilitator play two-windows --text [--practice | --packets 1,8,13,4,17,10]")
    assert not_pasteable("facilitator serve [--text] [--screens [--lan]]")
    assert not_pasteable("pip install -e '.[whisper]'") == []
    assert not_pasteable("sudo loginctl enable-linger $USER") == []
    assert without_comment("facilitator doctor   # microphones, speaker") == "facilitator doctor"
    assert parser_refusal(["play", "lantern-links", "--text", "--routes", "1,7,12", "[--pool]"]) is not None
    assert parser_refusal(["play", "lantern-links", "--text", "--routes", "1,7,12", "--pool"]) is None


def test_every_command_line_in_the_readme_runs_as_pasted() -> None:
    """No line holds what a shell reads as more than words, and every ``facilitator``
    line is one the command line takes (its flags, its commands)."""
    lines = command_lines(README.read_text(encoding="utf-8"))
    assert len(lines) >= 20
    for line in lines:
        assert not_pasteable(line) == [], line
        words = shlex.split(line)
        if words[0] == "facilitator":
            assert parser_refusal(words[1:]) is None, (line, parser_refusal(words[1:]))


@pytest.mark.slow
def test_every_playing_by_text_example_runs(tmp_path: Path) -> None:
    env = {"FACILITATOR_DATA_DIR": str(tmp_path / "data"), "FACILITATOR_CONFIG": str(tmp_path / "config.toml"),
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    for line in command_lines(section("Playing by text")):
        argv = shlex.split(line)
        assert argv[0] == "facilitator" and not re.search(r"[\[\]|]", line), line
        done = subprocess.run([sys.executable, "-m", "facilitator", *argv[1:]], input="status\n",
                              capture_output=True, text=True, cwd=tmp_path, env=env,
                              timeout=deadline(120), check=False)
        assert done.returncode == 0, (argv, done.stderr)
        assert "Traceback" not in done.stderr, (argv, done.stderr)
        assert done.stdout.strip(), argv
