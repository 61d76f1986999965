"""The pocketsphinx recognizer under per-state grammars (real decoding of golden clips)."""

from __future__ import annotations

from pathlib import Path

import pytest

from facilitator.grammar import load_grammar
from facilitator.speech.audio.devices import read_wav
from facilitator.speech.engines.grammar_build import recognition_grammar
from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer, with_noise_floor

AUDIO = Path(__file__).resolve().parent.parent / "audio"


@pytest.fixture(scope="module")
def recognizer() -> PocketsphinxRecognizer:
    return PocketsphinxRecognizer()


def test_a_narrowed_grammar_cannot_hear_a_command_that_is_not_legal_now(
        recognizer: PocketsphinxRecognizer) -> None:
    grammar = load_grammar("compass-code")
    confirming = recognition_grammar(grammar, intents=["yes", "no", "cancel"])
    heard_yes = recognizer.decode(read_wav(AUDIO / "compass-code" / "yes_please.wav"), confirming)
    assert heard_yes is not None and heard_yes.text == "yes please"
    heard = recognizer.decode(read_wav(AUDIO / "compass-code" / "send_north_east_south_west.wav"), confirming)
    assert heard is None or heard.text in confirming.phrases


def test_switching_grammars_reuses_the_searches(recognizer: PocketsphinxRecognizer) -> None:
    grammar = load_grammar("compass-code")
    everything = recognition_grammar(grammar)
    confirming = recognition_grammar(grammar, intents=["yes", "no"])
    clip = read_wav(AUDIO / "compass-code" / "no.wav")
    for _ in range(3):
        recognizer.decode(clip, everything)
        recognizer.decode(clip, confirming)
    assert {everything.key, confirming.key} <= set(recognizer._searches)
    assert len(recognizer._searches) <= 3


def test_silence_and_digital_zero_give_none(recognizer: PocketsphinxRecognizer) -> None:
    grammar = recognition_grammar(load_grammar("compass-code"))
    assert recognizer.decode(bytes(32000), grammar) is None
    assert recognizer.decode(b"", grammar) is None


def test_chatter_forced_into_a_short_command_is_rejected(recognizer: PocketsphinxRecognizer) -> None:
    """Most of the voice left to silence: the words did not explain the speech."""
    grammar = recognition_grammar(load_grammar("compass-code"))
    clip = read_wav(AUDIO / "chatter" / "pass_the_crisps_please.wav")
    assert recognizer.decode(clip, grammar) is None
    assert recognizer.last["text"] and recognizer.last["unexplained"] > recognizer.max_unexplained
    loose = PocketsphinxRecognizer(max_unexplained=None)
    assert loose.decode(clip, grammar) is not None  # the check, not the grammar, rejected it


def test_the_noise_floor_is_fixed_and_faint() -> None:
    pcm = bytes(3200)
    assert with_noise_floor(pcm) == with_noise_floor(pcm)
    import numpy as np

    x = np.frombuffer(with_noise_floor(pcm), dtype="<i2")
    assert 0 < np.abs(x).max() < 150


@pytest.mark.slow
def test_in_steady_noise_the_rejection_check_costs_no_command() -> None:
    """Room noise under and around a command is not 'unexplained voice'.

    White noise at 20 dB SNR, with 0.3 s of it before and after each command (as
    the endpointer's padding would hold): every command plain decoding gets right
    must survive the check.
    """
    import numpy as np

    grammar = load_grammar("compass-code")
    whole = recognition_grammar(grammar)
    checked, plain = PocketsphinxRecognizer(), PocketsphinxRecognizer(max_unexplained=None)
    rng = np.random.default_rng(5)
    kept = survived = 0
    for name in ("send_north_east_south_west", "is_west_in_position_three", "how_many_candidates",
                 "two_anchors_and_one_clockwise_step", "yes", "repeat", "stop_listening", "cancel"):
        voice = np.frombuffer(read_wav(AUDIO / "compass-code" / f"{name}.wav"), dtype="<i2").astype(float)
        voice = np.concatenate([np.zeros(4800), voice, np.zeros(4800)])
        noise = rng.normal(0, 1, len(voice))
        noise *= np.sqrt(np.mean(voice[voice != 0] ** 2) / 100)
        pcm = np.clip(voice + noise, -32768, 32767).astype("<i2").tobytes()
        if plain.decode(pcm, whole) is not None:
            kept += 1
            survived += checked.decode(pcm, whole) is not None
    assert kept >= 6 and survived == kept


class _Seg:
    """A decoded segment as pocketsphinx gives it (word, first and last 10 ms frame)."""

    def __init__(self, word: str, start_frame: int, end_frame: int) -> None:
        self.word, self.start_frame, self.end_frame = word, start_frame, end_frame


def test_a_words_decay_is_not_unexplained_voice_but_a_new_rise_is() -> None:
    from facilitator.speech.engines.pocketsphinx_engine import unexplained_frames

    # a word over frames 0-9, then silence 10-29: a falling tail (reverb), then a rise (more talk)
    level = [60.0] * 10 + [58.0 - 2 * k for k in range(10)] + [60.0] * 10
    voiced = [True] * 30
    segments = [_Seg("status", 0, 9), _Seg("<sil>", 10, 29)]
    share, seconds = unexplained_frames(segments, voiced, level)
    assert seconds == pytest.approx(0.10) and share == pytest.approx(10 / 30)   # only the rise counts
    # the same voice before the first word always counts: nothing decays into it
    leading = [_Seg("<sil>", 0, 9), _Seg("status", 10, 29)]
    assert unexplained_frames(leading, voiced, [60.0] * 30)[1] == pytest.approx(0.10)


def test_a_decay_lasts_at_most_the_limit() -> None:
    from facilitator.speech.engines.pocketsphinx_engine import MAX_DECAY_SECONDS, unexplained_frames

    level = [60.0] * 10 + [59.0 - 0.1 * k for k in range(90)]   # a slow fall for 0.9 s
    _, seconds = unexplained_frames([_Seg("yes", 0, 9), _Seg("<sil>", 10, 99)], [True] * 100, level)
    assert seconds == pytest.approx(0.9 - MAX_DECAY_SECONDS)


@pytest.mark.slow
def test_in_a_reverberant_room_a_word_s_tail_costs_no_command(tmp_path: Path) -> None:
    """A command said in a room with a 0.5 s reverb and quiet steady noise, cut by the product's
    endpointer: its reverb tail lies after the last word, decoded as silence, and must not
    refuse the hearing (before, counting it refused a quarter of the correct hearings)."""
    import numpy as np

    from benchmarks.rejection import cut, stream
    from benchmarks.session import room
    from facilitator.speech.engines.pocketsphinx_engine import (
        frame_levels,
        unexplained_frames,
        voiced_frames,
    )

    grammar = load_grammar("compass-code")
    whole = recognition_grammar(grammar)
    checked, plain = PocketsphinxRecognizer(), PocketsphinxRecognizer(max_unexplained=None)
    ir = room.impulse_response(rt60=0.5, seed=3)
    heard = kept = refused_before = 0
    names = ("status", "how_many_candidates", "yes", "repeat", "stop_listening", "cancel",
             "is_west_in_position_three", "send_north_east_south_west", "louder", "softer", "help", "no",
             "read_the_candidates", "restart_the_leg", "new_game", "start_listening")
    for k, name in enumerate(names):
        dry = np.frombuffer(read_wav(AUDIO / "compass-code" / f"{name}.wav"), dtype="<i2").astype(float)
        segment, _ = cut(stream(dry, ir, None, k, None), 2.0)
        assert segment is not None
        got = plain.decode(segment.pcm, whole)
        if got is None or got.text.replace(" ", "_") != name:
            continue
        heard += 1
        kept += checked.decode(segment.pcm, whole) is not None
        # the rule before: every voiced frame under silence counts, the tail too
        share, seconds = unexplained_frames(plain.last["segments"], voiced_frames(segment.pcm),
                                            frame_levels(segment.pcm), rise_db=0.0, max_decay_seconds=0.0)
        refused_before += share > checked.max_unexplained and seconds >= checked.min_unexplained_seconds
    assert heard >= len(names) // 2 and kept == heard
    assert refused_before >= 1   # the room is one where the old rule lost correct hearings
