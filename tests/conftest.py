"""Shared fixtures: every test is isolated from the user's data directory.

Under emulation (``FACILITATOR_EMULATED`` set, as benchmarks/aarch64/run.sh does in its
arm64 root) the tests listed in benchmarks/aarch64/emulation-skips.toml are skipped with
their reasons, which pytest's summary shows; nowhere else is anything skipped here.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

EMULATION_SKIPS = Path(__file__).resolve().parent.parent / "benchmarks" / "aarch64" / "emulation-skips.toml"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    emulator = os.environ.get("FACILITATOR_EMULATED")
    if not emulator:
        return
    skips = tomllib.loads(EMULATION_SKIPS.read_text(encoding="utf-8"))["skip"]
    for item in items:
        for skip in skips:
            if item.nodeid.startswith(skip["test"]):
                item.add_marker(pytest.mark.skip(reason=f"cannot run under {emulator}: {skip['reason']}"))
                break


@pytest.fixture(autouse=True)
def _isolated_data(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test touches the real user data directory."""
    monkeypatch.setenv("FACILITATOR_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    # nor the user's settings file (a missing file means the defaults)
    monkeypatch.setenv("FACILITATOR_CONFIG", str(tmp_path_factory.mktemp("config") / "config.toml"))
    # the meaning stage's trained weights: made once for the run (and its subprocesses), kept
    # beside pytest's temporary folders so a second run on the same machine reads them back
    monkeypatch.setenv("FACILITATOR_CACHE_DIR", str(tmp_path_factory.getbasetemp().parent / "facilitator-cache"))


