"""Sound: volume steps are audible, earcons sit at speech loudness and follow the volume.

Levels are measured with sox on what the assistant actually renders (espeak-ng
through ``FileSpeaker``): speech with its pauses removed, earcons as they are.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from loop.loop_fakes import RecordingSpeaker, ScriptedRecognizer, compass_session, said

from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings
from facilitator.speech.voice_out.tts import FileSpeaker

_open: list[ListenLoop] = []


@pytest.fixture(autouse=True)
def _close() -> Iterator[None]:
    yield
    while _open:
        _open.pop().session.log.close()


def rms_db(path: Path, trim_pauses: bool) -> float:
    """RMS level in dBFS; with ``trim_pauses`` the silences between words are removed."""
    effects = ["silence", "-l", "1", "0.02", "2%", "-1", "0.05", "2%"] if trim_pauses else []
    done = subprocess.run(["sox", str(path), "-n", *effects, "stats"], capture_output=True, text=True,
                          check=True)
    line = next(x for x in done.stderr.splitlines() if x.startswith("RMS lev dB"))
    return float(line.split()[-1])


def levels(directory: Path) -> list[tuple[str, float]]:
    """Every file the speaker wrote, in order, with its level."""
    out = []
    for wav in sorted(directory.glob("*.wav")):
        speech = "-speech" in wav.name
        out.append(("speech" if speech else "earcon", rms_db(wav, trim_pauses=speech)))
    return out


@pytest.mark.slow
def test_earcons_sit_at_speech_loudness_and_follow_the_volume(tmp_path: Path) -> None:
    voice = VoiceSettings()
    speaker = FileSpeaker(tmp_path / "out", voice)
    loop = ListenLoop(compass_session(tmp_path), ScriptedRecognizer(), speaker, voice,
                      settings=LoopSettings(earcon_seconds=0.0))
    _open.append(loop)
    try:
        loop.hear(said("how many candidates", 1.0))     # earcon at 0.5, then the answer
        loop.hear(said("softer", 10.0))                 # earcon still at 0.5, then the reply at -3 dB
        # a one-sentence answer: status is paged now ("Say go on for more." would be a
        # fourth sentence), so the last query is one the table asks as often
        loop.hear(said("how many candidates", 20.0))    # earcon and answer at -3 dB
    finally:
        speaker.synthesizer.close()
    found = levels(tmp_path / "out")
    assert [kind for kind, _ in found] == ["earcon", "speech", "earcon", "speech", "earcon", "speech"]
    (_, e1), (_, s1), (_, e2), (_, s2), (_, e3), (_, s3) = found
    # earcons were 6-13 dB above speech; now within 3 dB of it at every volume
    assert abs(e1 - s1) <= 3.0 and abs(e3 - s3) <= 3.0
    # one "softer" lowers both by the same audible step
    assert e3 - e1 == pytest.approx(-3.0, abs=0.3)
    assert s2 - s1 == pytest.approx(-3.0, abs=1.5)    # a different sentence: its level differs a little
    assert e2 == pytest.approx(e1, abs=0.1)


def make(tmp_path: Path, volume: float = 0.5) -> tuple[ListenLoop, RecordingSpeaker]:
    voice = VoiceSettings(volume=volume)
    speaker = RecordingSpeaker(voice)
    loop = ListenLoop(compass_session(tmp_path), ScriptedRecognizer(), speaker, voice,
                      settings=LoopSettings(earcon_seconds=0.0))
    _open.append(loop)
    return loop, speaker


def test_louder_steps_3_db_from_the_default_and_says_when_at_the_top(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.run([said("louder", 1.0), said("louder", 5.0), said("louder", 9.0)])
    assert speaker.spoken == ["Louder, like this.", "Louder, like this.", "This is as loud as I go."]
    volumes = [v for v, _ in speaker.settings]
    assert volumes == [pytest.approx(0.5 * 10 ** (3 / 20), abs=1e-3), 1.0, 1.0]   # -3 dB, 0 dB


def test_softer_stops_at_the_bottom_and_says_so(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path, volume=0.13)
    loop.run([said("softer", 1.0), said("softer", 5.0)])
    assert speaker.spoken == ["Softer, like this.", "This is as soft as I go."]
    assert [v for v, _ in speaker.settings] == [0.1, 0.1]


def test_rate_limits_are_said_too(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.voice.rate_wpm = loop.settings.max_rate_wpm
    loop.hear(said("faster", 1.0))
    assert speaker.spoken == ["This is as fast as I go."]
