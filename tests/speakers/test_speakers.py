"""Who is speaking: the embedder on real synthetic voices, and the pure verdict and ruling."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from facilitator.speech.voices.speakers import Limits, Verdict, identify, rule, similarities

from .voices import say

LIMITS = Limits(match=0.55, margin=0.12, stranger=0.30, refuse_margin=0.14)


# -- the verdict -----------------------------------------------------------------
def test_one_seat_clearly_closest_is_sure() -> None:
    assert identify({1: 0.8, 2: 0.3, 3: 0.2}, LIMITS) == Verdict("seat", 1, 0.8)


def test_two_seats_close_together_is_unsure_never_a_seat() -> None:
    verdict = identify({1: 0.80, 2: 0.75}, LIMITS)
    assert verdict.kind == "unsure" and verdict.seat == 1 and not verdict.sure


def test_below_the_match_threshold_is_unsure() -> None:
    assert identify({1: 0.5, 2: 0.1}, LIMITS).kind == "unsure"


def test_a_voice_far_from_every_seat_is_a_stranger() -> None:
    assert identify({1: 0.2, 2: 0.1}, LIMITS) == Verdict("stranger", None, 0.2)


def test_a_per_seat_threshold_overrides_the_default() -> None:
    strict = Limits(match=0.55, margin=0.12, stranger=0.30, seat_match={1: 0.85})
    assert identify({1: 0.8, 2: 0.3}, strict).kind == "unsure"
    assert identify({2: 0.8, 1: 0.3}, strict).kind == "seat"


def test_nobody_enrolled_knows_nothing() -> None:
    assert identify({}, LIMITS).kind == "unsure"


# -- the ruling ------------------------------------------------------------------
def test_a_voice_clearly_another_seats_is_refused_a_roles_command() -> None:
    assert rule({1: 0.40, 2: 0.80}, frozenset({1}), LIMITS) == "refuse"


def test_refusal_needs_only_that_the_owner_is_clearly_not_the_voice() -> None:
    # seats 2 and 3 are too close to name either, but the voice is not seat 1's
    scores = {1: 0.40, 2: 0.80, 3: 0.78}
    assert not identify(scores, LIMITS).sure
    assert rule(scores, frozenset({1}), LIMITS) == "refuse"


def test_the_owners_voice_and_open_commands_are_taken() -> None:
    assert rule({1: 0.80, 2: 0.40}, frozenset({1}), LIMITS) == "take"
    assert rule({1: 0.40, 2: 0.80}, None, LIMITS) == "take"


def test_a_voice_near_the_owner_falls_back_to_todays_behaviour() -> None:
    assert rule({1: 0.70, 2: 0.80}, frozenset({1}), LIMITS) == "take"     # within the margin


def test_an_owner_not_enrolled_is_never_refused() -> None:
    assert rule({1: 0.90, 2: 0.10}, frozenset({3}), LIMITS) == "take"


def test_any_owner_of_several_may_act() -> None:
    assert rule({1: 0.20, 3: 0.85, 4: 0.40}, frozenset({1, 3}), LIMITS) == "take"
    assert rule({1: 0.35, 2: 0.85, 3: 0.40}, frozenset({1, 3}), LIMITS) == "refuse"


def test_a_per_seat_refusal_margin_overrides_the_default() -> None:
    wide = Limits(refuse_margin=0.14, seat_refuse_margin={1: 0.5})
    assert rule({1: 0.40, 2: 0.80}, frozenset({1}), wide) == "take"


def test_a_stranger_is_chatter_even_for_open_commands() -> None:
    assert rule({1: 0.20, 2: 0.10}, None, LIMITS) == "chatter"
    assert rule({1: 0.20, 2: 0.10}, frozenset({1}), LIMITS) == "chatter"


def test_nobody_enrolled_takes_everything() -> None:
    assert rule({}, frozenset({1}), LIMITS) == "take"


# -- the embedder on real voices -------------------------------------------------
def test_features_match_the_packages_own_recipe() -> None:
    librosa = pytest.importorskip("librosa")
    from facilitator.speech.voices.speaker_embed import log_mel, pcm_to_float

    x = pcm_to_float(say("espeak:en-us", "I am ready to play"))
    spectrum = librosa.feature.melspectrogram(y=x, sr=16000, n_fft=512, win_length=400,
                                              hop_length=160, n_mels=40, window="hamming",
                                              center=False, power=2.0)
    assert np.abs(np.log10(spectrum + 1e-10).T - log_mel(x)).max() < 1e-4


@pytest.mark.slow
def test_a_voice_is_closest_to_its_own_enrollment() -> None:
    from facilitator.speech.voices.speaker_embed import DIMENSION, Embedder

    embedder = Embedder()
    voices = ["espeak:en-us", "espeak:en-us+f3"]
    voices += ["flite:slt", "flite:awb"] if shutil.which("flite") else []
    prints = {seat: [embedder.embed(say(v, "I'm ready to play"))] for seat, v in enumerate(voices, 1)}
    assert prints[1][0].shape == (DIMENSION,)
    assert abs(float(np.linalg.norm(prints[1][0])) - 1.0) < 1e-4
    for seat, voice in enumerate(voices, 1):
        heard = embedder.embed(say(voice, "send north east south west"))
        scores = similarities(heard, prints)
        assert max(scores, key=lambda s: scores[s]) == seat, (voice, scores)
