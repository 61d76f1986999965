"""What a careless or hostile user still met at the command line (issue 43, "Play and
the log" and "The command line"), through real subprocesses in temporary directories."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from support import ROOT, deadline

NEEDED = "a WAV recording is needed: 16-bit PCM at any rate"


def run(args: Sequence[str], cwd: Path, stdin: str = "", env: dict[str, str] | None = None,
        stdout: int | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m facilitator ARGS`` run in ``cwd`` (relative paths are the user's)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "facilitator", *args], input=stdin, text=True,
                          stdout=subprocess.PIPE if stdout is None else stdout, stderr=subprocess.PIPE,
                          timeout=deadline(120), env=full_env, cwd=cwd, check=False)


def one_line(stderr: str) -> bool:
    return stderr.count("\n") == 1 and stderr.startswith("facilitator: ") and "Traceback" not in stderr


def nothing_written(where: Path, data: Path) -> bool:
    """No log, no lock note, no game in the data directory."""
    games = data / "games"
    return (not any(p.suffix in (".jsonl", ".pid") for p in where.iterdir())
            and not (games.exists() and any(games.iterdir())))


# -- Play and the log ------------------------------------------------------------

def _bad_audio(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.wav"
    if kind == "junk":
        path.write_bytes(b"\x00\x93junk" * 20)
    elif kind == "float-as-stereo-channel-5":
        subprocess.run(["sox", "-n", "-r", "22050", "-c", "2", "-b", "32", "-e", "floating-point", str(path),
                        "synth", "0.3", "sine", "440"], check=True)
    return path


@pytest.mark.skipif(shutil.which("sox") is None, reason="sox makes the recording")
@pytest.mark.parametrize("kind", ["missing", "junk", "float-as-stereo-channel-5"])
def test_a_bad_audio_in_is_refused_before_anything_is_written(tmp_path: Path, kind: str) -> None:
    audio = _bad_audio(tmp_path, kind)
    data = tmp_path / "data"
    extra = ["--input-channel", "5"] if "channel" in kind else []
    env = {"FACILITATOR_DATA_DIR": str(data)}
    for log in (["--log", "a.jsonl"], []):
        for _ in range(2):   # the same command again says the same, not "already holds a game"
            done = run(["play", "compass-code", "--audio-in", audio.name, *extra, *log], tmp_path, env=env)
            assert done.returncode == 2 and done.stdout == "" and one_line(done.stderr), done.stderr
            assert "already holds" not in done.stderr
            assert nothing_written(tmp_path, data), sorted(p.name for p in tmp_path.iterdir())
    if kind == "junk":
        assert done.stderr == f"facilitator: 'junk.wav' is not a WAV file (it does not start with RIFF…WAVE); " \
                              f"{NEEDED} and channel count (8-, 24- and 32-bit PCM, 32- or 64-bit float, " \
                              "A-law and µ-law are converted)\n"
    if kind == "missing":
        assert done.stderr == "facilitator: no such audio file: 'missing.wav'\n"
    if "channel" in kind:
        assert "has 2 channel(s), 0 to 1; there is no channel 5" in done.stderr


def test_a_speech_out_that_is_a_file_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    (tmp_path / "said").write_text("a file\n")
    data = tmp_path / "data"
    for out in ("said", "said/more"):
        done = run(["play", "compass-code", "--speech-out", out, "--log", "a.jsonl"], tmp_path,
                   env={"FACILITATOR_DATA_DIR": str(data)})
        assert done.returncode == 2 and one_line(done.stderr), done.stderr
        assert "--speech-out" in done.stderr and "'said' is a file" in done.stderr
        assert nothing_written(tmp_path, data)
