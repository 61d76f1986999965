"""Inputs that never hang and are never played absurdly (issue 49), through real
subprocesses: ``--audio-in`` (``play``, ``serve``) and ``recognize`` given a named pipe,
a device, a socket, or a WAV header with a rate no recording has are refused in one
line, exit 2, with nothing written and the data directory left free."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, deadline

from facilitator.errors import SpeechError
from facilitator.speech.audio.devices import read_wav

#: a process given a FIFO used to wait for a writer for ever: this bounds the wait
HANG_SECONDS = 60

#: each command that takes a recording, with the recording's place marked
COMMANDS = {
    "play": ["play", "compass-code", "--audio-in", "{audio}", "--second-engine", "off"],
    "serve": ["serve", "--audio-in", "{audio}", "--second-engine", "off"],
    "recognize": ["recognize", "--game", "compass-code", "--second-engine", "off", "{audio}"],
}


def run(args: list[str], cwd: Path, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FACILITATOR_DATA_DIR": str(data)}
    return subprocess.run([sys.executable, "-m", "facilitator", *args], stdin=subprocess.DEVNULL, text=True,
                          capture_output=True, timeout=deadline(HANG_SECONDS), env=env, cwd=cwd, check=False)


def wav_with_rate(path: Path, rate: int, seconds: float = 0.2) -> Path:
    """A 16-bit mono WAV of silence whose header says ``rate`` (a field of 32 bits)."""
    frames = int(16_000 * seconds)
    data = bytes(2 * frames)
    fmt = struct.pack("<HHIIHH", 1, 1, rate, (rate * 2) & 0xFFFFFFFF, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def refused_cleanly(done: subprocess.CompletedProcess[str], says: str, data: Path) -> None:
    """One line on stderr saying ``says``, exit 2, nothing on stdout, nothing in ``data``."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("facilitator: "), done.stderr
    assert "Traceback" not in done.stderr and says in done.stderr, done.stderr
    assert done.stdout == ""
    assert not data.exists() or not any(data.rglob("*")), sorted(str(p) for p in data.rglob("*"))


def data_dir_is_free(cwd: Path, data: Path) -> None:
    """Another facilitator can take the table's data directory (nothing holds it)."""
    done = subprocess.run([sys.executable, "-m", "facilitator", "serve", "--text"], input="quit\n", text=True,
                          capture_output=True, timeout=deadline(HANG_SECONDS), cwd=cwd, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "FACILITATOR_DATA_DIR": str(data)})
    assert done.returncode == 0 and "in use" not in done.stderr.lower(), done.stderr


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_named_pipe_is_refused_at_once_and_nothing_is_held(tmp_path: Path, command: str) -> None:
    """A FIFO with no writer used to hang each command for ever with no word (``serve``
    holding the data directory meanwhile)."""
    fifo = tmp_path / "in.wav"
    os.mkfifo(fifo)
    data = tmp_path / "data"
    args = [a.replace("{audio}", fifo.name) for a in COMMANDS[command]]
    done = run(args, tmp_path, data)
    refused_cleanly(done, "'in.wav' is a named pipe (FIFO), not a WAV file; a WAV recording is needed", data)
    data_dir_is_free(tmp_path, data)


@pytest.mark.parametrize("rate", [0, 7_999, 384_001, 4_294_967_295])
def test_a_header_with_a_rate_no_recording_has_is_refused(tmp_path: Path, rate: int) -> None:
    """4,294,967,295 Hz was taken: the game was written, nothing heard, exit 0 with "the
    game is kept"."""
    path = wav_with_rate(tmp_path / "odd.wav", rate)
    with pytest.raises(SpeechError) as refused:
        read_wav(path)
    if rate:
        assert f"whose header gives {rate:,} Hz, a rate no recording has" in str(refused.value)
    assert "8,000 to 384,000 Hz" in str(refused.value)
    data = tmp_path / "data"
    for command in ("play", "recognize"):
        done = run([a.replace("{audio}", path.name) for a in COMMANDS[command]], tmp_path, data)
        refused_cleanly(done, "'odd.wav' is a WAV file", data)


def test_the_highest_rate_4_294_967_295_is_refused_by_serve_too(tmp_path: Path) -> None:
    path = wav_with_rate(tmp_path / "odd.wav", 4_294_967_295)
    data = tmp_path / "data"
    done = run([a.replace("{audio}", path.name) for a in COMMANDS["serve"]], tmp_path, data)
    refused_cleanly(done, "whose header gives 4,294,967,295 Hz", data)
    data_dir_is_free(tmp_path, data)


@pytest.mark.parametrize("rate", [8_000, 44_100, 384_000])
def test_every_rate_in_the_range_is_heard(tmp_path: Path, rate: int) -> None:
    pcm = read_wav(wav_with_rate(tmp_path / "ok.wav", rate, seconds=0.5))
    assert abs(len(pcm) // 2 - 16_000 * 0.5 * 16_000 / rate) <= 2


def test_a_device_and_a_socket_are_refused_for_what_they_are(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = run([a.replace("{audio}", "/dev/zero") for a in COMMANDS["play"]], tmp_path, data)
    refused_cleanly(done, "'/dev/zero' is a character device, not a WAV file", data)
    path = tmp_path / "s.wav"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listening:
        listening.bind(str(path))
        listening.listen(1)
        done = run([a.replace("{audio}", path.name) for a in COMMANDS["serve"]], tmp_path, data)
        refused_cleanly(done, "'s.wav' is a socket, not a WAV file", data)
    with pytest.raises(SpeechError, match="is a directory, not a WAV file"):
        read_wav(tmp_path)
