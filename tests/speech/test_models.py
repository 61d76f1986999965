"""``facilitator models install``: checksums, layouts, unsafe zips, and no network."""

from __future__ import annotations

import hashlib
import http.server
import io
import os
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import deadline

from facilitator.errors import ModelError
from facilitator.speech.engines import models
from facilitator.speech.engines.models import MODELS, ModelSpec, install_model

ROOT = Path(__file__).resolve().parents[2]
PARTS = ("am/final.mdl", "conf/mfcc.conf", "graph/HCLr.fst", "graph/Gr.fst", "README")


def _zip(path: Path, folder: str = "vosk-model-small-en-us-0.15", parts: tuple[str, ...] = PARTS,
         extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for part in parts:
            z.writestr(f"{folder}/{part}" if folder else part, b"model bytes")
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return path


def test_from_zip_installs_into_the_data_directory(tmp_path: Path) -> None:
    out = io.StringIO()
    target = install_model("vosk-small-en", from_zip=_zip(tmp_path / "m.zip"), progress=out)
    assert target.name == "vosk-model-small-en-us-0.15"
    assert target.parent == models.models_dir()
    assert (target / "am" / "final.mdl").read_bytes() == b"model bytes"
    assert "not the official" in out.getvalue()
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary left


def test_a_zip_with_the_model_at_its_top_level_installs_too(tmp_path: Path) -> None:
    target = install_model("vosk-small-en", from_zip=_zip(tmp_path / "m.zip", folder=""))
    assert (target / "graph" / "Gr.fst").exists()


@pytest.mark.parametrize("parts,words", [
    (("README",), "holds no Vosk model"),
    (("am/final.mdl", "README"), "missing conf/mfcc.conf"),
])
def test_a_zip_without_the_layout_installs_nothing(tmp_path: Path, parts: tuple[str, ...],
                                                  words: str) -> None:
    with pytest.raises(ModelError, match=words):
        install_model("vosk-small-en", from_zip=_zip(tmp_path / "m.zip", parts=parts))
    assert not (models.models_dir() / "vosk-model-small-en-us-0.15").exists()


def test_not_a_zip_and_no_file(tmp_path: Path) -> None:
    (tmp_path / "m.zip").write_text("<html>404</html>")
    with pytest.raises(ModelError, match="is not a zip file"):
        install_model("vosk-small-en", from_zip=tmp_path / "m.zip")
    with pytest.raises(ModelError, match="no such file"):
        install_model("vosk-small-en", from_zip=tmp_path / "absent.zip")


def test_a_zip_reaching_outside_its_folder_is_refused(tmp_path: Path) -> None:
    bad = _zip(tmp_path / "m.zip", extra={"../../escape.txt": b"x"})
    with pytest.raises(ModelError, match="unsafe path"):
        install_model("vosk-small-en", from_zip=bad)
    assert not (tmp_path.parent / "escape.txt").exists()


def test_unknown_model_name() -> None:
    with pytest.raises(ModelError, match="unknown model 'vosk-big'; known: vosk-small-en"):
        install_model("vosk-big")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A local HTTP server holding one model zip (the download path, without the internet)."""
    archive = _zip(tmp_path / "served.zip")
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, format: str, *args: object) -> None:
            """Keep the test's output clean: the server's request lines are not needed."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/served.zip", archive
    finally:
        server.shutdown()
        server.server_close()


def test_download_checks_the_pinned_checksum_and_shows_progress(served: tuple[str, Path],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    url, archive = served
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    spec = ModelSpec("vosk-small-en", "vosk-model-small-en-us-0.15", url, digest, archive.stat().st_size)
    monkeypatch.setitem(MODELS, "vosk-small-en", spec)
    out = io.StringIO()
    target = install_model("vosk-small-en", progress=out)
    assert (target / "am" / "final.mdl").exists()
    assert "100.0%" in out.getvalue()


def test_a_download_with_the_wrong_checksum_installs_nothing(served: tuple[str, Path],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    url, _ = served
    spec = ModelSpec("vosk-small-en", "vosk-model-small-en-us-0.15", url, "0" * 64, 1)
    monkeypatch.setitem(MODELS, "vosk-small-en", spec)
    with pytest.raises(ModelError, match="checksum mismatch"):
        install_model("vosk-small-en")
    assert not (models.models_dir() / "vosk-model-small-en-us-0.15").exists()


def test_no_network_is_one_clear_message_naming_the_offline_way(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = MODELS["vosk-small-en"]
    dead = ModelSpec(spec.name, spec.folder, "http://127.0.0.1:9/vosk.zip", spec.sha256, spec.size)
    monkeypatch.setitem(MODELS, "vosk-small-en", dead)
    with pytest.raises(ModelError) as caught:
        install_model("vosk-small-en")
    assert "cannot download" in str(caught.value) and "--from FILE.zip" in str(caught.value)



def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "facilitator", *args], capture_output=True, text=True,
                          timeout=deadline(120), cwd=ROOT, env=env, check=False)


@pytest.mark.slow
def test_cli_install_without_network_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """A proxy on a closed port makes the download fail the way an offline machine does."""
    env = {**os.environ, "FACILITATOR_DATA_DIR": str(tmp_path / "data"),
           "https_proxy": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}
    done = _cli("models", "install", "vosk-small-en", env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot download" in lines[0] and "--from FILE.zip" in lines[0]


@pytest.mark.slow
def test_cli_install_from_zip_says_where_and_how_to_use_it(tmp_path: Path) -> None:
    env = {**os.environ, "FACILITATOR_DATA_DIR": str(tmp_path / "data")}
    done = _cli("models", "install", "vosk-small-en", "--from", str(_zip(tmp_path / "m.zip")), env=env)
    assert done.returncode == 0, done.stderr
    target = tmp_path / "data" / "models" / "vosk-model-small-en-us-0.15"
    assert (target / "am" / "final.mdl").exists()
    assert f"--vosk-model {target}" in done.stdout
    missing = _cli("models", env=env)
    assert missing.returncode == 2 and "models needs an action" in missing.stderr
