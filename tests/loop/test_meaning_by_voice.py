"""The three natural lines that became wrong actions (issue 47), said by real synthesizers and
heard by the real recognizers through the listen loop: "um card one goes top right" never places
another card than card one; "okay so submit south west east north" and "um not this time" never
change the referee's voice.
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path

import pytest
from loop.loop_fakes import OPENED, CaptionLog, RecordingSpeaker, close_opened  # noqa: F401
from support import read_jsonl, speak

from facilitator.session import Session
from facilitator.speech.audio.devices import convert
from facilitator.speech.base import SAMPLE_RATE, SAMPLE_WIDTH, Segment, VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("flite") is None,
                       reason="espeak-ng and flite are needed"),
]

#: a voice the speech rules were tuned on, and two of a synthesizer held out
VOICES = (("espeak", "en-us"), ("flite", "slt"), ("flite", "kal16"))


def _said(text: str, voice: tuple[str, str], tmp: Path) -> bytes:
    kind, name = voice
    if kind == "espeak":
        return speak(text, name, tmp)
    path = tmp / "flite.wav"
    subprocess.run(["flite", "-voice", name, "-t", text, "-o", str(path)], check=True, capture_output=True)
    with wave.open(str(path)) as w:
        return convert(w.readframes(w.getnframes()), w.getframerate(), w.getnchannels(), w.getsampwidth())


def _loop(session: Session) -> tuple[ListenLoop, RecordingSpeaker]:
    from facilitator.speech.engines.recognize import make_recognizer

    voice = VoiceSettings()
    speaker = RecordingSpeaker(voice, seconds=1.5)
    loop = ListenLoop(session, make_recognizer(second_engine="always"), speaker, voice, CaptionLog(),
                      LoopSettings(earcon_seconds=0.0, implicit_window_seconds=3.0))
    OPENED.append(loop)
    return loop, speaker


def _hear_all(loop: ListenLoop, lines: list[bytes], start: float = 30.0) -> None:
    t = start
    for pcm in lines:
        seconds = len(pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)
        loop.hear(Segment(pcm, t, t + seconds))
        t += seconds + 25.0
        loop.tick(t)        # any question times out, any window closes: nothing is answered


def test_um_card_one_goes_top_right_never_places_another_card(tmp_path: Path) -> None:
    pytest.importorskip("faster_whisper")
    session, _ = Session.start("clover", seed=2, players=3, log_path=tmp_path / "log.jsonl",
                               private_path=tmp_path / "private.jsonl")
    for seat in (1, 2, 3):
        for zone, clue in zip(("top", "right", "bottom", "left"), ("apple", "river", "stone", "cloud")):
            session.handle(f"clue {seat} {zone} {clue}")
    assert "place" in session.legal_intents()
    loop, _ = _loop(session)
    _hear_all(loop, [_said("um card one goes top right", voice, tmp_path) for voice in VOICES])
    placed = [e["card"] for e in read_jsonl(tmp_path / "log.jsonl") if e["type"] == "card-placed"]
    assert set(placed) <= {1}, placed


@pytest.mark.parametrize("game, line", [
    ("compass-code", "okay so submit south west east north"),
    ("lantern-links", "um not this time"),
])
def test_natural_lines_never_change_the_voice(tmp_path: Path, game: str, line: str) -> None:
    pytest.importorskip("faster_whisper")
    session, _ = Session.start(game, seed=1, log_path=tmp_path / "log.jsonl")
    loop, _ = _loop(session)
    before = (loop.voice.volume, loop.voice.rate_wpm)
    _hear_all(loop, [_said(line, voice, tmp_path) for voice in VOICES])
    assert (loop.voice.volume, loop.voice.rate_wpm) == before
