"""Shared fixtures: every test is isolated from the user's data directory."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_data(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test touches the real user data directory."""
    monkeypatch.setenv("FACILITATOR_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    # nor the user's settings file (a missing file means the defaults)
    monkeypatch.setenv("FACILITATOR_CONFIG", str(tmp_path_factory.mktemp("config") / "config.toml"))


