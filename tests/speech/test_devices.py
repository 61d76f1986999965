"""No sound card: a clear DeviceError, never a traceback or a hang.

These machines have no sound card, so the no-device paths run for real; where a
card exists they are skipped (the message paths are then covered by name lookups).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import deadline

from facilitator.errors import DeviceError
from facilitator.speech.audio.devices import MicSource, find_device, list_devices, play_pcm

ROOT = Path(__file__).resolve().parents[2]


def _has(kind: str) -> bool:
    return any(d["inputs" if kind == "input" else "outputs"] for d in list_devices())


@pytest.mark.skipif(_has("input"), reason="this machine has a microphone")
def test_no_microphone_is_a_clear_device_error() -> None:
    with pytest.raises(DeviceError, match="no audio input device found .*microphone"):
        MicSource()


@pytest.mark.skipif(_has("output"), reason="this machine has a speaker")
def test_no_speaker_is_a_clear_device_error() -> None:
    with pytest.raises(DeviceError, match="no audio output device found .*speaker"):
        play_pcm(b"\0\0" * 160, 16000)


@pytest.mark.skipif(_has("output"), reason="this machine has a speaker")
def test_no_speaker_means_no_sound_speaker() -> None:
    from facilitator.speech.base import VoiceSettings
    from facilitator.speech.voice_out.tts import SoundSpeaker

    with pytest.raises(DeviceError):
        SoundSpeaker(VoiceSettings())


def test_a_device_name_that_matches_nothing_lists_what_exists() -> None:
    if not _has("input"):
        with pytest.raises(DeviceError, match="no audio input device found"):
            find_device("USB PnP microphone", "input")
    else:
        with pytest.raises(DeviceError, match="input devices:"):
            find_device("no device is called this", "input")


def test_devices_command_lists_or_says_none() -> None:
    done = subprocess.run([sys.executable, "-m", "facilitator", "devices"], check=False,
                          capture_output=True, text=True, timeout=deadline(60), cwd=ROOT)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert done.stdout.strip() == "no audio devices found" if not list_devices() else "Hz" in done.stdout


def test_portaudio_missing_is_a_device_error(tmp_path: Path) -> None:
    """Without libportaudio2, importing sounddevice raises OSError; it must become a DeviceError.

    A module named ``sounddevice`` that fails the way the real one does when the
    library is absent stands in for uninstalling a system package.
    """
    (tmp_path / "sounddevice.py").write_text("raise OSError('PortAudio library not found')\n")
    script = ("from facilitator.speech.audio.devices import MicSource\n"
              "from facilitator.errors import DeviceError\n"
              "try:\n    MicSource()\nexcept DeviceError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True,
                          timeout=deadline(60), cwd=ROOT,
                          env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "PortAudio is missing" in done.stdout and "libportaudio2" in done.stdout
