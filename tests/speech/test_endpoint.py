"""Endpointing: utterances cut where the voice is, with padding, and closed early when complete."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from facilitator.speech.audio import frames_of, read_wav
from facilitator.speech.base import SAMPLE_RATE
from facilitator.speech.endpoint import Endpointer

AUDIO = Path(__file__).resolve().parent.parent / "audio" / "compass-code"


def _silence(seconds: float) -> bytes:
    return bytes(int(seconds * SAMPLE_RATE) * 2)


def _voiced_span(pcm: bytes) -> tuple[float, float]:
    """Where the clip's voice is: first and last 10 ms block above a quiet level."""
    x = np.abs(np.frombuffer(pcm, dtype="<i2").astype(float))
    blocks = x[: len(x) // 160 * 160].reshape(-1, 160).max(axis=1)
    loud = np.flatnonzero(blocks > 1000)
    return loud[0] / 100, (loud[-1] + 1) / 100


def test_two_commands_give_two_segments_at_their_times() -> None:
    send = read_wav(AUDIO / "send_north_east_south_west.wav")
    yes = read_wav(AUDIO / "yes.wav")
    stream = _silence(1.0) + send + _silence(1.0) + yes + _silence(1.0)
    segments = list(Endpointer().segments(frames_of(stream)))
    assert len(segments) == 2
    offsets = [1.0, 1.0 + len(send) / 32000 + 1.0]
    for segment, clip, offset in zip(segments, (send, yes), offsets):
        start, end = _voiced_span(clip)
        assert abs(segment.start - (offset + start)) < 0.1
        assert abs(segment.end - (offset + end)) < 0.1
        # padding keeps the voice whole
        assert len(segment.pcm) / 32000 >= end - start


def test_silence_and_a_knock_give_nothing() -> None:
    knock = (np.random.default_rng(3).normal(0, 12000, 800)).astype("<i2").tobytes()  # 50 ms
    stream = _silence(1.0) + knock + _silence(1.5)
    assert list(Endpointer().segments(frames_of(stream))) == []


def test_a_long_utterance_is_cut_at_max_seconds() -> None:
    send = read_wav(AUDIO / "send_north_east_south_west.wav")
    voice = (send * 4)[: int(6 * SAMPLE_RATE) * 2]
    segments = list(Endpointer(max_seconds=2.0).segments(frames_of(_silence(0.5) + voice + _silence(1))))
    assert segments and segments[0].end - segments[0].start <= 2.05


def test_an_utterance_open_at_the_end_of_the_stream_is_closed() -> None:
    send = read_wav(AUDIO / "send_north_east_south_west.wav")
    segments = list(Endpointer().segments(frames_of(_silence(0.5) + send)))
    assert len(segments) == 1


@pytest.mark.slow
def test_a_complete_command_ends_before_the_full_silence() -> None:
    """With the recognizer's completeness check, a short pause after a whole command is enough."""
    from facilitator.grammar import load_grammar
    from facilitator.speech.grammar_build import recognition_grammar
    from facilitator.speech.pocketsphinx_engine import PocketsphinxRecognizer

    from facilitator.speech.recognize import completion_check

    recognizer = PocketsphinxRecognizer()
    grammar = recognition_grammar(load_grammar("compass-code"))
    asked: list[int] = []
    check = completion_check(recognizer, lambda: grammar)
    assert check is not None

    def complete(pcm: bytes) -> bool:
        asked.append(len(pcm))
        return check(pcm)

    send = read_wav(AUDIO / "send_north_east_south_west.wav")
    stream = _silence(0.5) + send + _silence(2.0)
    plain = list(Endpointer(silence_seconds=1.0).segments(frames_of(stream)))
    early = list(Endpointer(silence_seconds=1.0, complete=complete).segments(frames_of(stream)))
    assert len(plain) == len(early) == 1 and asked
    assert len(early[0].pcm) < len(plain[0].pcm)
    assert recognizer.decode(early[0].pcm, grammar) is not None


def test_aggressiveness_is_checked() -> None:
    with pytest.raises(ValueError):
        Endpointer(aggressiveness=5)
