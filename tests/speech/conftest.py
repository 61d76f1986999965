"""Fixtures for the speech tests: the golden clips and their expected commands."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

AUDIO = Path(__file__).resolve().parent.parent / "audio"


def golden_clips() -> list[tuple[str, Path, str | None]]:
    """(section, file, expected command or None) for every clip in tests/audio/golden.toml."""
    spec = tomllib.loads((AUDIO / "golden.toml").read_text(encoding="utf-8"))
    out = []
    for section, body in spec.items():
        for name, command in body["clips"].items():
            out.append((section, AUDIO / section / f"{name}.wav", command or None))
    return out


@pytest.fixture(scope="session")
def compass_grammar():  # type: ignore[no-untyped-def]
    from facilitator.grammar import load_grammar

    return load_grammar("compass-code")
