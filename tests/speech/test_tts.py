"""Speech out: real espeak-ng audio, settings that change it, and no hangs."""

from __future__ import annotations

import shutil
import sys
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from facilitator.errors import SpeechError
from facilitator.paths import audio_dir
from facilitator.speech.base import VoiceSettings
from facilitator.speech.voice_out.tts import EARCONS, FileSpeaker, Synthesizer, load_earcon


def _seconds(audio: tuple[bytes, int]) -> float:
    pcm, rate = audio
    return len(pcm) / 2 / rate


def test_pyttsx3_worker_renders_speech() -> None:
    synthesizer = Synthesizer(VoiceSettings())
    try:
        pcm, rate = synthesizer.synthesize("Guess one is north east south west.")
        assert rate == 22050 and 1.0 < _seconds((pcm, rate)) < 5.0
        assert np.abs(np.frombuffer(pcm, dtype="<i2")).max() > 3000
        assert synthesizer.fallbacks == 0
    finally:
        synthesizer.close()


def test_slower_speech_is_longer_and_softer_speech_is_quieter() -> None:
    settings = VoiceSettings(rate_wpm=200, volume=1.0)
    synthesizer = Synthesizer(settings, engine="espeak-ng")
    fast = synthesizer.synthesize("The bearing check is unused.")
    settings.rate_wpm, settings.volume = 110, 0.3
    slow = synthesizer.synthesize("The bearing check is unused.")
    assert _seconds(slow) > 1.4 * _seconds(fast)
    loud = np.abs(np.frombuffer(fast[0], dtype="<i2")).max()
    soft = np.abs(np.frombuffer(slow[0], dtype="<i2")).max()
    assert soft < 0.6 * loud


def test_missing_espeak_ng_is_one_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert shutil.which("espeak-ng") is None
    began = time.monotonic()
    with pytest.raises(SpeechError) as caught:
        Synthesizer(VoiceSettings())
    assert time.monotonic() - began < 1.0
    message = str(caught.value)
    assert "espeak-ng is not installed" in message and "install espeak-ng" in message
    assert "\n" not in message


def test_a_hung_worker_is_killed_and_espeak_ng_says_the_sentence(tmp_path: Path) -> None:
    """pyttsx3's runAndWait can hang: the sentence must still come out, promptly."""
    hang = tmp_path / "hang.py"
    hang.write_text("import sys, time\nprint('{\"ready\": true}', flush=True)\nsys.stdin.readline()\n"
                    "time.sleep(60)\n")
    synthesizer = Synthesizer(VoiceSettings(), worker_command=[sys.executable, str(hang)],
                              worker_timeout_seconds=0.5)
    began = time.monotonic()
    audio = synthesizer.synthesize("Leg one of three.")
    assert time.monotonic() - began < 5.0
    assert _seconds(audio) > 0.5 and synthesizer.fallbacks == 1
    synthesizer.close()


def test_a_worker_that_cannot_start_falls_back(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("print('{\"ready\": false, \"error\": \"no libespeak-ng\"}', flush=True)\n")
    synthesizer = Synthesizer(VoiceSettings(), worker_command=[sys.executable, str(broken)])
    assert _seconds(synthesizer.synthesize("Status.")) > 0.2
    assert synthesizer.fallbacks == 1


def test_file_speaker_writes_numbered_speech_and_earcons(tmp_path: Path) -> None:
    speaker = FileSpeaker(tmp_path / "out", VoiceSettings())
    seconds = speaker.speak("Four anchors! Leg one is solved.")
    speaker.earcon("understood")
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files == ["0001-speech.txt", "0001-speech.wav", "0002-earcon-understood.wav"]
    with wave.open(str(tmp_path / "out" / "0001-speech.wav")) as w:
        assert abs(w.getnframes() / w.getframerate() - seconds) < 0.01
    assert speaker.spoken == ["Four anchors! Leg one is solved."] and speaker.earcons == ["understood"]
    speaker.synthesizer.close()


def test_earcons_are_short_distinct_and_mono() -> None:
    sounds = {name: load_earcon(name) for name in EARCONS}
    peaks = {}
    for name, (pcm, rate) in sounds.items():
        assert rate == 16000 and 0.05 < _seconds((pcm, rate)) < 0.5
        x = np.frombuffer(pcm, dtype="<i2").astype(float)
        peaks[name] = int(np.argmax(np.abs(np.fft.rfft(x[: len(x) // 2], n=8192))))
    assert len(set(peaks.values())) == len(EARCONS)
    assert sorted(p.name for p in audio_dir().glob("*.wav")) == sorted(f"{n}.wav" for n in EARCONS)


def test_an_unknown_earcon_is_refused() -> None:
    with pytest.raises(SpeechError, match="unknown earcon"):
        load_earcon("fanfare")
