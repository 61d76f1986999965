"""The early-finish check hears under the decode's own grammar, so its hearing is the utterance's.

While listening for commands the check's grammar leaves out the wake phrase alone
(the command may follow in the same breath); it is the same decoding (JSGF and key)
with fewer whole phrases, so pocketsphinx's check and decode are one search and the
check that ends an utterance is its hearing.  Real parts: pocketsphinx, the
endpointer, the espeak-ng clips of ``tests/audio/wake``.
"""

from __future__ import annotations

from pathlib import Path

from loop.loop_fakes import OPENED, close_opened, compass_session  # noqa: F401 (the fixture closes the log)

from facilitator.speech.audio.devices import frames_of, read_wav
from facilitator.speech.audio.endpoint import Endpointer
from facilitator.speech.base import SAMPLE_RATE
from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer
from facilitator.speech.loop.grammars import LoopGrammars

WAKE = Path(__file__).resolve().parents[1] / "audio" / "wake"


def _grammars(tmp_path: Path) -> LoopGrammars:
    session = compass_session(tmp_path)
    OPENED.append(session)
    return LoopGrammars(session)


def test_the_check_grammar_is_the_decoding_less_the_wake_phrase_alone(tmp_path: Path) -> None:
    grammars = _grammars(tmp_path)
    decoding, check = grammars.listening(), grammars.listening(bare_wake=False)
    assert (check.key, check.jsgf) == (decoding.key, decoding.jsgf)
    wakes = set(grammars.wake_phrases())
    assert wakes and wakes <= set(decoding.phrases) and not wakes & set(check.phrases)
    assert set(check.phrases) == set(decoding.phrases) - wakes


def test_a_command_after_the_wake_phrase_is_decoded_once(tmp_path: Path) -> None:
    grammars = _grammars(tmp_path)
    decoding, check = grammars.listening(), grammars.listening(bare_wake=False)
    recognizer = PocketsphinxRecognizer()
    clip = read_wav(WAKE / "hey_referee_send_north_east_south_west.en-us.wav")
    stream = bytes(SAMPLE_RATE) + clip + bytes(3 * SAMPLE_RATE)
    checked: list[bool] = []

    def complete(pcm: bytes) -> bool:
        checked.append(recognizer.is_complete(pcm, check))
        return checked[-1]

    (segment,) = Endpointer(silence_seconds=1.0, complete=complete).segments(frames_of(stream))
    assert checked and checked[-1]
    heard = recognizer.decode(segment.pcm, decoding)
    assert heard is not None and heard.text.endswith("send north east south west")
    assert recognizer.last["reused"] is True
