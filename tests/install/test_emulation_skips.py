"""What the aarch64 emulation run skips is named, with a reason, and still exists:
a renamed test must not leave a stale entry (or silently start being skipped)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPS = tomllib.loads((ROOT / "benchmarks" / "aarch64" / "emulation-skips.toml").read_text())["skip"]


def test_every_skip_names_existing_tests_and_says_why() -> None:
    assert SKIPS
    for skip in SKIPS:
        assert len(skip["reason"]) > 40, skip
        path, _, name = skip["test"].partition("::")
        if name:
            source = (ROOT / path).read_text()
            assert re.search(rf"^def {re.escape(name)}\(", source, re.MULTILINE), skip["test"]
        else:
            assert list(ROOT.glob(path + "*.py")), skip["test"]
