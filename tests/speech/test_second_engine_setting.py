"""``[listening] second_engine`` in the settings file: checked, and a flag on the command line wins."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from facilitator import settings as settings_mod


def test_second_engine_defaults_to_auto_and_reads_off_and_always(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert settings_mod.parse("", path).listening.second_engine == "auto"
    for mode in ("off", "always"):
        text = f'[listening]\nsecond_engine = "{mode}"\n'
        assert settings_mod.parse(text, path).listening.second_engine == mode


def test_an_unknown_second_engine_is_refused_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(settings_mod.SettingsError, match=r"line 3: listening\.second_engine: must be one of "
                                                         r"auto, off, always, not 'verify'"):
        settings_mod.parse('[listening]\ngate = "always"\nsecond_engine = "verify"\n', tmp_path / "c.toml")


def test_the_flag_wins_over_the_file(tmp_path: Path) -> None:
    loaded = settings_mod.parse('[listening]\nsecond_engine = "off"\n', tmp_path / "c.toml")
    from_file = argparse.Namespace(second_engine=None)
    settings_mod.apply_to_args(loaded, from_file)
    assert from_file.second_engine == "off"
    flagged = argparse.Namespace(second_engine="always")
    settings_mod.apply_to_args(loaded, flagged)
    assert flagged.second_engine == "always"


def test_the_starting_file_lists_the_key_and_loads_back(tmp_path: Path) -> None:
    rendered = settings_mod.render(settings_mod.Settings())
    assert "second_engine" in rendered
    assert settings_mod.parse(rendered, tmp_path / "c.toml") == settings_mod.Settings(source=tmp_path / "c.toml")
