"""``facilitator play`` without --text, as a real subprocess: devices that are missing,
options that cannot work.  Never a traceback, never a hang."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import read_jsonl, run_cli

pytestmark = pytest.mark.slow

LINES = "send north east south west\nstatus\n"


def test_a_missing_microphone_says_so_once_and_play_goes_on_in_text(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    done = run_cli(["play", "compass-code", "--seed", "1", "--input-device", "no-such-microphone",
                    "--log", str(log)], stdin=LINES, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    complaints = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(complaints) == 1
    assert "continuing in text mode" in complaints[0]
    assert "no-such-microphone" in complaints[0] or "no audio input device" in complaints[0]
    out = done.stdout.splitlines()
    assert out[0].startswith("Leg 1 of 3")
    assert any(line.startswith("North east south west: ") for line in out)          # the typed guess was played
    assert any(line.startswith("Leg 1 of 3, guess 2 of 4") for line in out)
    types = [e["type"] for e in read_jsonl(log)]
    assert "guess-scored" in types                                     # typed: not confirmed


def test_a_missing_recording_is_a_clear_error(tmp_path: Path) -> None:
    done = run_cli(["play", "compass-code", "--audio-in", str(tmp_path / "absent.wav"),
                    "--speech-out", str(tmp_path / "said")], timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "absent.wav" in done.stderr


@pytest.mark.parametrize("flags, complaint", [
    (["--rate", "5"], "--rate 5"),
    (["--volume", "3"], "--volume 3"),
    (["--push-to-talk", "pedal:3"], "unknown --push-to-talk 'pedal:3'"),
])
def test_bad_voice_options_exit_2(tmp_path: Path, flags: list[str], complaint: str) -> None:
    done = run_cli(["play", "compass-code", "--input-device", "no-such-microphone", *flags], timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert complaint in done.stderr


@pytest.mark.parametrize("game, flags", [
    ("compass-code", ["--keeper", "human"]),
    ("two-windows", []),
    ("clover", []),
])
def test_hidden_information_needs_private_in_voice_play(tmp_path: Path, game: str, flags: list[str]) -> None:
    log = tmp_path / "log.jsonl"
    done = run_cli(["play", game, "--input-device", "no-such-microphone", "--log", str(log), *flags],
                   timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "needs --private" in done.stderr
    assert not log.exists()                    # refused before anything was started


@pytest.mark.parametrize("spec, complaint", [
    ("gpio:17", "needs gpiozero"),
    ("evdev:/dev/input/event0", "needs evdev"),
    ("key", "needs a terminal"),
])
def test_push_to_talk_that_cannot_work_here_is_refused_before_the_game(
        tmp_path: Path, spec: str, complaint: str) -> None:
    if spec.startswith("gpio") and _importable("gpiozero") or spec.startswith("evdev") and _importable("evdev"):
        pytest.skip(f"{spec.split(':')[0]} is installed here")
    log = tmp_path / "log.jsonl"
    done = run_cli(["play", "compass-code", "--input-device", "no-such-microphone", "--push-to-talk", spec,
                    "--log", str(log)], timeout=60)   # stdin is a pipe, not a terminal
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert complaint in done.stderr
    assert not log.exists()


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None

