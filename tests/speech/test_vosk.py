"""The Vosk adapter: what runs here without an English model.

No English Vosk model can be fetched on the build machines, so these tests cover
the layout check, the child-process probe against real (broken) model files,
the fallback to pocketsphinx, and how results are read; decoding with a real
model is not exercised here (docs/speech.md says so).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from facilitator.errors import ModelError
from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer
from facilitator.speech.engines.recognize import make_recognizer
from facilitator.speech.engines.vosk_engine import (
    UNKNOWN,
    VoskRecognizer,
    check_layout,
    parse_result,
)


def _layout(root: Path, content: bytes = b"junk") -> Path:
    for name in ("am/final.mdl", "conf/mfcc.conf", "graph/HCLr.fst", "graph/Gr.fst"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(content)
    return root


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="does not exist"):
        check_layout(tmp_path / "nowhere")


def test_a_zip_instead_of_a_directory(tmp_path: Path) -> None:
    (tmp_path / "model.zip").write_bytes(b"PK")
    with pytest.raises(ModelError, match="not a directory .*unzip"):
        check_layout(tmp_path / "model.zip")


def test_empty_directory_names_every_missing_part(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        check_layout(tmp_path)
    message = str(caught.value)
    for part in ("am/final.mdl", "conf/mfcc.conf", "graph/HCLr.fst"):
        assert part in message


def test_junk_files_are_not_a_model(tmp_path: Path) -> None:
    (tmp_path / "README").write_text("hello")
    (tmp_path / "am").mkdir()
    (tmp_path / "am" / "final.mdl").write_bytes(b"")
    with pytest.raises(ModelError, match="is not a Vosk model: missing am/final.mdl"):
        check_layout(tmp_path)


def test_the_unzipped_parent_folder_gets_a_hint(tmp_path: Path) -> None:
    _layout(tmp_path / "vosk-model-small-en-us-0.15")
    with pytest.raises(ModelError, match="did you mean .*vosk-model-small-en-us-0.15"):
        check_layout(tmp_path)


def test_a_model_with_the_right_layout_passes_the_check(tmp_path: Path) -> None:
    assert check_layout(_layout(tmp_path)) == tmp_path


@pytest.mark.slow
def test_broken_model_files_fail_in_the_probe_not_in_this_process(tmp_path: Path) -> None:
    """Real vosk loads real (junk) files in a child process; this process gets a ModelError."""
    with pytest.raises(ModelError, match="vosk (cannot load|crashed loading)"):
        VoskRecognizer(_layout(tmp_path))


@pytest.mark.slow
def test_make_recognizer_warns_once_and_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the fallback is the default recognizer; without the second engine that is pocketsphinx alone
    monkeypatch.setenv("FACILITATOR_SECOND_ENGINE", "off")
    warnings: list[str] = []
    recognizer = make_recognizer(str(_layout(tmp_path)), warn=warnings.append)
    assert isinstance(recognizer, PocketsphinxRecognizer)
    assert len(warnings) == 1 and "using pocketsphinx instead" in warnings[0]
    monkeypatch.setenv("VOSK_MODEL_PATH", str(tmp_path / "missing"))
    warnings.clear()
    assert isinstance(make_recognizer(warn=warnings.append), PocketsphinxRecognizer)
    assert len(warnings) == 1 and "does not exist" in warnings[0]


def test_no_model_configured_means_pocketsphinx_and_no_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VOSK_MODEL_PATH", raising=False)
    monkeypatch.setenv("FACILITATOR_SECOND_ENGINE", "off")   # Whisper beside it: tests/speech/test_whisper.py
    warnings: list[str] = []
    assert isinstance(make_recognizer(warn=warnings.append), PocketsphinxRecognizer)
    assert warnings == []


@pytest.mark.parametrize("result,expected", [
    ({"text": "send north east south west"}, "send north east south west"),
    ({"text": ""}, None),
    ({}, None),
    ({"text": f"send north {UNKNOWN} west"}, None),
    ({"text": UNKNOWN}, None),
    ({"text": "north east"}, None),  # words of the grammar, but not a whole phrase
])
def test_results_with_unk_or_not_a_phrase_are_rejected(result: dict[str, str], expected: str | None) -> None:
    hyp = parse_result(result, frozenset({"send north east south west", "yes"}))
    assert (hyp.text if hyp else None) == expected
