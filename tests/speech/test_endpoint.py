"""Endpointing: utterances cut where the voice is, with padding, and closed early when complete."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from facilitator.speech.audio.devices import frames_of, read_wav
from facilitator.speech.audio.endpoint import Endpointer
from facilitator.speech.base import SAMPLE_RATE

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
    from facilitator.speech.engines.grammar_build import recognition_grammar
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer
    from facilitator.speech.engines.recognize import completion_check

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


def _background_talk(seconds: float, below_db: float, reference: bytes) -> np.ndarray:
    """Four chatter recordings talking at once, looped, ``below_db`` under ``reference``'s level."""
    clips = sorted((AUDIO.parent / "chatter").glob("*.wav"))[:8]
    n = int(seconds * SAMPLE_RATE)
    bed = np.zeros(n)
    for k in range(4):
        talker = np.concatenate([np.frombuffer(read_wav(p), dtype="<i2").astype(float)
                                 for p in clips[k::4] + clips[: k]])
        bed += np.resize(np.roll(talker, k * 3001), n)
    voice = np.frombuffer(reference, dtype="<i2").astype(float)
    voice_rms = np.sqrt(np.mean(voice[np.abs(voice) > 300] ** 2))
    return bed * voice_rms / np.sqrt(np.mean(bed**2)) * 10 ** (-below_db / 20)


@pytest.mark.parametrize("below_db", [20.0, 10.0])
def test_a_command_ends_where_the_player_stops_even_with_talk_behind_it(below_db: float) -> None:
    """Other people talking for the whole time is speech too: only a voice clearly louder
    than the tracked background counts, so the command ends at its end, not at the cap."""
    send = read_wav(AUDIO / "send_north_east_south_west.wav")
    lead, tail = 3.0, 4.0
    voice = np.concatenate([np.zeros(int(lead * SAMPLE_RATE)), np.frombuffer(send, dtype="<i2").astype(float),
                            np.zeros(int(tail * SAMPLE_RATE))])
    mixed = voice + _background_talk(len(voice) / SAMPLE_RATE, below_db, send)
    pcm = np.clip(np.round(mixed), -32768, 32767).astype("<i2").tobytes()
    _, end = _voiced_span(send)
    segments = [s for s in Endpointer(max_seconds=8.0).segments(frames_of(pcm)) if s.start < lead + end]
    assert segments, "the command was not heard at all"
    command = segments[-1]
    assert command.end <= lead + end + 0.3
    assert command.start >= lead - 0.3
    # webrtcvad alone hears the talk as voice and cannot find the end
    plain = [s for s in Endpointer(max_seconds=8.0, floor_margin_db=0).segments(frames_of(pcm))
             if s.start < lead + end]
    assert plain[-1].end > lead + end + 1.0


def test_the_noise_floor_follows_the_room() -> None:
    quiet = Endpointer()
    hum = (np.random.default_rng(5).normal(0, 300, 480)).astype("<i2").tobytes()
    for _ in range(100):
        quiet.above_floor(hum, 0.03)
    floor = quiet.noise_floor()
    assert abs(floor - Endpointer.energy_db(hum)) < 3.0
    loud = (np.random.default_rng(6).normal(0, 3000, 480)).astype("<i2").tobytes()
    assert quiet.above_floor(loud, 0.03)          # 20 dB above the room
    assert not quiet.above_floor(hum, 0.03)


def test_a_silent_input_is_cut_by_webrtcvad_alone() -> None:
    """Digital silence has no floor to rise above: the same utterances as without the floor."""
    send = read_wav(AUDIO / "send_north_east_south_west.wav")
    stream = _silence(1.5) + send + _silence(1.0) + send + _silence(1.0)
    with_floor = list(Endpointer().segments(frames_of(stream)))
    without = list(Endpointer(floor_margin_db=0).segments(frames_of(stream)))
    assert [(s.start, s.end, len(s.pcm)) for s in with_floor] == [(s.start, s.end, len(s.pcm)) for s in without]
