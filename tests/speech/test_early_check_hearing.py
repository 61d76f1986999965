"""The early-finish check's hearing is the utterance's hearing: the same audio is not decoded twice.

Real parts: pocketsphinx on the committed espeak-ng clips, the real endpointer.
"""

from __future__ import annotations

from pathlib import Path

from facilitator.grammar import load_grammar
from facilitator.speech.audio.devices import frames_of, read_wav
from facilitator.speech.audio.endpoint import Endpointer
from facilitator.speech.base import SAMPLE_RATE
from facilitator.speech.engines.grammar_build import recognition_grammar
from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

AUDIO = Path(__file__).resolve().parent.parent / "audio" / "compass-code"


def _silence(seconds: float) -> bytes:
    return bytes(int(seconds * SAMPLE_RATE) * 2)


def test_the_check_that_ended_the_utterance_is_its_hearing() -> None:
    grammar = recognition_grammar(load_grammar("compass-code"))
    recognizer = PocketsphinxRecognizer()
    checked: list[bytes] = []

    def complete(pcm: bytes) -> bool:
        checked.append(pcm)
        return recognizer.is_complete(pcm, grammar)

    stream = _silence(0.5) + read_wav(AUDIO / "send_north_east_south_west.wav") + _silence(1.5)
    (segment,) = Endpointer(silence_seconds=1.0, complete=complete).segments(frames_of(stream))
    assert checked and checked[-1] == segment.pcm    # the check saw the audio the utterance is
    heard = recognizer.decode(segment.pcm, grammar)
    assert recognizer.last["reused"] is True
    fresh = PocketsphinxRecognizer().decode(segment.pcm, grammar)
    assert heard is not None and fresh is not None
    assert (heard.text, heard.score) == (fresh.text, fresh.score)
    assert recognizer.last["segments"]


def test_other_audio_or_another_grammar_is_decoded_again() -> None:
    grammar = recognition_grammar(load_grammar("compass-code"))
    confirming = recognition_grammar(load_grammar("compass-code"), intents=["yes", "no", "cancel"])
    recognizer = PocketsphinxRecognizer()
    yes = read_wav(AUDIO / "yes.wav")
    assert recognizer.is_complete(yes, grammar)
    recognizer.decode(yes + _silence(0.1), grammar)
    assert recognizer.last["reused"] is False
    recognizer.decode(yes, confirming)
    assert recognizer.last["reused"] is False
    recognizer.decode(yes, confirming)
    assert recognizer.last["reused"] is True
