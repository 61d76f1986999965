"""What a Python command-line user expects of ``facilitator`` (issue 36), through real
subprocesses: ``--version``; a bare ``facilitator`` prints its help and exits 0, a
command without its action names it; a flag that does nothing where it was given
(a voice flag with ``--text``, a screen flag without ``--screens``, a voice espeak-ng
lacks) gets one line and exit 2 before anything starts, never silence."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from support import ROOT, run_cli

VOICE_FLAGS = [["--rate", "140"], ["--volume", "0.5"], ["--voice", "en-gb"], ["--audio-in", "x.wav"],
               ["--input-device", "USB"], ["--output-device", "USB"], ["--speech-out", "said"],
               ["--vosk-model", "model"], ["--second-engine", "off"], ["--voices", "off"], ["--wake-phrase"],
               ["--push-to-talk"]]


def one_line(stderr: str) -> bool:
    return stderr.count("\n") == 1 and stderr.startswith("facilitator: ") and "Traceback" not in stderr


def test_version() -> None:
    done = run_cli(["--version"])
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert done.returncode == 0 and done.stdout == f"facilitator {version}\n"


def test_a_bare_facilitator_prints_its_help_and_exits_0() -> None:
    done = run_cli([])
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("usage: facilitator")
    for command in ("play", "serve", "settings", "content", "demo"):
        assert f"    {command} " in done.stdout


def test_a_command_without_its_action_names_it() -> None:
    done = run_cli(["content"])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "facilitator: content needs an action: check [--content-dir DIR]\n"


@pytest.mark.parametrize("flag", VOICE_FLAGS, ids=lambda f: f[0])
def test_a_voice_flag_with_text_is_one_line(tmp_path: Path, flag: list[str]) -> None:
    for command in (["play", "compass-code", "--text"], ["serve", "--text"]):
        done = run_cli([*command, *flag], "status\n", env={"FACILITATOR_DATA_DIR": str(tmp_path)})
        assert done.returncode == 2 and done.stdout == "" and one_line(done.stderr), (command, done.stderr)
        assert done.stderr == f"facilitator: {flag[0]} is for voice play, not --text: leave one of them out\n"
    assert not (tmp_path / "games").exists()                      # no game started


@pytest.mark.parametrize("flag", [["--lan"], ["--port", "9000"], ["--host", "192.168.1.20"]], ids=lambda f: f[0])
def test_a_screen_flag_without_screens_is_one_line(tmp_path: Path, flag: list[str]) -> None:
    done = run_cli(["play", "compass-code", "--text", *flag], "status\n", env={"FACILITATOR_DATA_DIR": str(tmp_path)})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"facilitator: {flag[0]} is for the screens: add --screens\n"


def test_the_demo_by_text_has_no_voice_flags(tmp_path: Path) -> None:
    for flag in (["--speech-out", "said"], ["--mix-out", "mix.wav"], ["--no-speaker"]):
        done = run_cli(["demo", "--text", *flag])
        assert done.returncode == 2 and done.stdout == "" and one_line(done.stderr), done.stderr
        assert flag[0] in done.stderr and "--text" in done.stderr


def test_voice_keys_in_the_settings_file_are_not_refused_in_text_play(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[speech]\nrate_wpm = 140\nvoice = "en-gb"\n[listening]\ngate = "wake-phrase"\n',
                      encoding="utf-8")
    done = run_cli(["play", "compass-code", "--text", "--config", str(config)], "status\n")
    assert done.returncode == 0 and done.stdout.startswith("Leg 1 of 3"), done.stderr


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng tells its voices")
def test_an_unknown_voice_is_one_line_and_a_known_one_plays(tmp_path: Path) -> None:
    env = {"FACILITATOR_DATA_DIR": str(tmp_path)}
    for command in (["play", "compass-code"], ["serve"]):
        done = run_cli([*command, "--voice", "zz-unknown", "--input-device", "no-such-microphone"], "quit\n",
                       env=env)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr == "facilitator: espeak-ng has no voice 'zz-unknown' (espeak-ng --voices lists them)\n"
    known = run_cli(["play", "compass-code", "--voice", "en-gb", "--input-device", "no-such-microphone"],
                    "status\n", env=env)
    assert known.returncode == 0 and known.stdout.startswith("Leg 1 of 3"), known.stderr
