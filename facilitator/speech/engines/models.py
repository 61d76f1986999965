"""``facilitator models install``: fetch, verify and unpack optional recognition models.

Only the official small English Vosk model is known.  Its zip is checked
against a pinned SHA-256 (the publisher prints none; this one is the size and
hash of the file at the official address, as recorded by several independent
projects), unpacked into a temporary folder beside the target, checked for the
Vosk layout, and only then moved into place, so a failed install leaves nothing
half-written.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ...errors import ModelError
from ...paths import data_dir
from .vosk_engine import check_layout


@dataclass(frozen=True)
class ModelSpec:
    name: str
    folder: str
    url: str
    sha256: str
    size: int


MODELS = {
    "vosk-small-en": ModelSpec(
        name="vosk-small-en",
        folder="vosk-model-small-en-us-0.15",
        url="https://alphacephei.com/vosk/models/vosk-model-small-en-us-0.15.zip",
        sha256="30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498",
        size=41_205_931,
    ),
}


def models_dir() -> Path:
    """Where installed models live: ``models/`` in the table's data directory."""
    return data_dir() / "models"


def install_model(name: str, from_zip: Path | None = None, progress: IO[str] | None = None,
                  target_root: Path | None = None) -> Path:
    """Install model ``name`` (downloaded, or from ``from_zip``); return its directory.

    ModelError with the reason when the name is unknown, the network fails,
    the checksum differs or the zip is not a Vosk model.
    """
    spec = MODELS.get(name)
    if spec is None:
        raise ModelError(f"unknown model {name!r}; known: {', '.join(sorted(MODELS))}")
    root = target_root or models_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(f"cannot create {str(root)!r}: {exc}") from None
    with tempfile.TemporaryDirectory(prefix=".install-", dir=root) as tmp:
        work = Path(tmp)
        if from_zip is None:
            archive = work / f"{spec.folder}.zip"
            _download(spec, archive, progress)
            _verify(spec, archive, strict=True)
        else:
            archive = Path(from_zip)
            if not archive.is_file():
                raise ModelError(f"no such file: {str(archive)!r}")
            if not zipfile.is_zipfile(archive):
                raise ModelError(f"{str(archive)!r} is not a zip file")
            _verify(spec, archive, strict=False, progress=progress)
        unpacked = _unzip(archive, work / "unpacked")
        target = root / spec.folder
        if target.exists():
            shutil.rmtree(target)
        shutil.move(str(unpacked), str(target))
    return target


def _download(spec: ModelSpec, archive: Path, progress: IO[str] | None) -> None:
    try:
        with urllib.request.urlopen(spec.url, timeout=30) as response, open(archive, "wb") as out:
            total = int(response.headers.get("Content-Length") or spec.size)
            done = 0
            while True:
                chunk = response.read(1 << 16)
                if not chunk:
                    break
                out.write(chunk)
                done += len(chunk)
                _bar(progress, done, total)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ModelError(f"cannot download {spec.url} ({reason}); with no network here, fetch the "
                         f"zip elsewhere and run: facilitator models install {spec.name} --from FILE.zip"
                         ) from None
    finally:
        if progress is not None:
            progress.write("\n")
            progress.flush()


def _bar(progress: IO[str] | None, done: int, total: int) -> None:
    if progress is None:
        return
    share = min(1.0, done / total) if total else 0.0
    filled = int(share * 30)
    progress.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {share * 100:5.1f}%  "
                   f"{done / 1e6:6.1f} of {total / 1e6:.1f} MB")
    progress.flush()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _verify(spec: ModelSpec, archive: Path, strict: bool, progress: IO[str] | None = None) -> None:
    """The official zip must match the pinned hash; another zip (``--from``) is then
    accepted on its layout alone, with a note that it is not the official file."""
    got = sha256_of(archive)
    if got == spec.sha256:
        return
    if strict:
        raise ModelError(f"checksum mismatch for {spec.url}: got {got}, expected {spec.sha256}; "
                         "the download is corrupt or not the official file")
    if progress is not None:
        progress.write(f"note: {archive.name} is not the official {spec.folder}.zip "
                       f"(sha256 {got[:12]}...); installing it after checking its layout\n")


def _unzip(archive: Path, into: Path) -> Path:
    """Unpack safely (no paths outside ``into``) and return the model folder inside."""
    try:
        with zipfile.ZipFile(archive) as z:
            for member in z.infolist():
                name = Path(member.filename)
                if name.is_absolute() or ".." in name.parts:
                    raise ModelError(f"{archive.name} holds an unsafe path {member.filename!r}")
            z.extractall(into)
    except zipfile.BadZipFile:
        raise ModelError(f"{str(archive)!r} is not a zip file") from None
    candidates = [into] + sorted(p for p in into.iterdir() if p.is_dir())
    for candidate in candidates:
        if (candidate / "am" / "final.mdl").exists():
            check_layout(candidate)
            return candidate
    raise ModelError(f"{archive.name} holds no Vosk model (no am/final.mdl at its top or in one folder)")
