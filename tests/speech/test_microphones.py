"""The table's own microphones: one channel of a multi-channel input, and a second microphone
read only while push-to-talk is held.

This machine has no sound card, so the microphones here are real ALSA devices that
PortAudio opens like any other: a four-channel capture device whose samples come from a
file (ALSA's ``file`` plugin with an ``infile``), each channel a tone of its own loudness,
declared in the ``.asoundrc`` of a home directory made for the test (each run is a
subprocess, so PortAudio reads that configuration fresh).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support import deadline

ROOT = Path(__file__).resolve().parents[2]
#: the tones' amplitudes on channels 0 to 3 (their RMS is amplitude / sqrt 2)
AMPLITUDES = (1000, 4000, 12000, 200)

pytestmark = pytest.mark.skipif(not Path("/usr/share/alsa/alsa.conf").exists(),
                                reason="ALSA's configuration is not installed (libasound2)")


@pytest.fixture
def alsa_home(tmp_path: Path) -> Path:
    """A home directory whose .asoundrc declares ``quadmic``: four channels at 16 kHz."""
    t = np.arange(16_000 * 20) / 16_000
    tones = [(np.sin(2 * np.pi * f * t) * a).astype("<i2") for f, a in zip((300, 500, 700, 900), AMPLITUDES)]
    raw = tmp_path / "quad.raw"
    np.stack(tones, 1).tofile(raw)
    (tmp_path / ".asoundrc").write_text(f"""
pcm.quadfile {{
    type file
    slave {{ pcm "null" }}
    file "/dev/null"
    infile "{raw}"
    format "raw"
}}
pcm.quadmic {{
    type plug
    slave {{ pcm "quadfile" channels 4 rate 16000 format S16_LE }}
    hint {{ show on description "Four-channel test array" }}
}}
""", encoding="utf-8")
    return tmp_path


def run_python(home: Path, code: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=deadline(120),
                          cwd=ROOT, env={**os.environ, "HOME": str(home)}, check=False)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_one_channel_of_a_multi_channel_input_is_heard(alsa_home: Path) -> None:
    got = run_python(alsa_home, """
import itertools, json, numpy as np
from facilitator.speech.audio.devices import MicSource
out = {}
for channel in range(4):
    mic = MicSource("quadmic", channel=channel)
    frames = list(itertools.islice(mic.frames(), 30))
    mic.close()
    x = np.frombuffer(b"".join(f.pcm for f in frames[5:]), "<i2").astype(float)
    out[channel] = float(np.sqrt(np.mean(x * x)))
print(json.dumps(out))
""")
    for channel, amplitude in enumerate(AMPLITUDES):
        assert abs(float(got[str(channel)]) - amplitude / np.sqrt(2)) < 0.05 * amplitude


def test_a_channel_the_input_does_not_have_is_one_clear_error(alsa_home: Path) -> None:
    got = run_python(alsa_home, """
import json
from facilitator.errors import DeviceError
from facilitator.speech.audio.devices import MicSource
try:
    MicSource("quadmic", channel=500)
    print(json.dumps({"error": None}))
except DeviceError as exc:
    print(json.dumps({"error": str(exc)}))
""")
    assert "there is no channel 500" in str(got["error"])


def test_doctor_lists_the_inputs_channels_and_their_levels(alsa_home: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[devices]\ninput = "quadmic"\noutput = "quadmic"\ninput_channel = 2\n', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "facilitator", "doctor", "--config", str(config),
                           "--seconds", "1"], capture_output=True, text=True, timeout=deadline(180), cwd=ROOT,
                          env={**os.environ, "HOME": str(alsa_home), "FACILITATOR_CONFIG": str(config)},
                          check=False)
    assert "Traceback" not in done.stderr, done.stderr
    text = done.stdout
    assert "channels: " in text and "the table hears channel 2" in text
    line = next(line for line in text.splitlines() if "level of each channel" in line)
    levels = dict(part.split(": ") for part in line.split("dBFS: ")[1].split(" (")[0].split(", "))
    # the tones' levels: 1,000, 4,000, 12,000 and 200 in amplitude
    assert float(levels["2"]) > float(levels["1"]) > float(levels["0"]) > float(levels["3"])


class PacedSource:
    """Frames at the pace of the clock, numbered in their samples (ALSA's file device is not
    paced: it delivers as fast as it is read, so the held microphone's timing is tested here)."""

    def __init__(self) -> None:
        self.closed = False

    def frames(self):  # type: ignore[no-untyped-def]
        import time

        from facilitator.speech.base import FRAME_BYTES, FRAME_MS, Frame

        n = 0
        while not self.closed:
            time.sleep(FRAME_MS / 1000)
            yield Frame(bytes([n % 250 + 1]) * FRAME_BYTES, n * FRAME_MS / 1000)
            n += 1

    def close(self) -> None:
        self.closed = True


def test_the_second_microphone_is_heard_only_while_the_button_is_held() -> None:
    import time

    from facilitator.speech.audio.held import HeldMicrophone

    calls: list[tuple[str, int]] = []

    class Loop:
        def held_press(self, at: float | None = None) -> None:
            calls.append(("press", 0))

        def held_utterance(self, pcm: bytes, end: float | None = None) -> None:
            calls.append(("utterance", len(pcm)))

        def submit_text(self, line: str) -> None:
            calls.append(("text", len(line)))

    source = PacedSource()
    held = HeldMicrophone(Loop(), None, source=source)
    time.sleep(1.5)                     # up: nothing kept but the last half second
    held.press()
    time.sleep(1.0)
    held.release()
    time.sleep(1.0)                     # up again: nothing more
    held.close()
    assert [c[0] for c in calls] == ["press", "utterance"]
    seconds = calls[1][1] / 32_000
    assert 1.2 <= seconds <= 1.9        # the second held and the half second before the press
    assert source.closed
