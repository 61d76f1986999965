"""Shared by the screens tests: where chromium is, how long to wait, screenshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
#: generous waits: the machine is small and shared
WAIT_MS = 20_000


def screenshot(page: Any, name: str) -> Path:
    """Keep a full-page screenshot under tests/artifacts/ (gitignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"screens-{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path