"""``[listening] voices`` in the settings file: checked, rendered, and a flag on the command line wins;
``auto`` leaves voice turns off in the light mode."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from facilitator import settings as settings_mod


def test_voices_defaults_to_auto_and_reads_on_and_off(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    assert settings_mod.parse("", path).listening.voices == "auto"
    for mode in ("on", "off"):
        assert settings_mod.parse(f'[listening]\nvoices = "{mode}"\n', path).listening.voices == mode


def test_an_unknown_voices_mode_is_refused_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(settings_mod.SettingsError,
                       match=r"line 2: listening\.voices: must be one of auto, on, off, not 'maybe'"):
        settings_mod.parse('[listening]\nvoices = "maybe"\n', tmp_path / "c.toml")


def test_the_flag_wins_and_the_starting_file_lists_the_key(tmp_path: Path) -> None:
    loaded = settings_mod.parse('[listening]\nvoices = "off"\n', tmp_path / "c.toml")
    from_file = argparse.Namespace(voices=None)
    settings_mod.apply_to_args(loaded, from_file)
    assert from_file.voices == "off"
    flagged = argparse.Namespace(voices="on")
    settings_mod.apply_to_args(loaded, flagged)
    assert flagged.voices == "on"
    rendered = settings_mod.render(settings_mod.Settings())
    assert "voices" in rendered
    assert settings_mod.parse(rendered, tmp_path / "c.toml") == settings_mod.Settings(source=tmp_path / "c.toml")


def test_auto_is_off_in_the_light_mode_and_off_is_off(tmp_path: Path) -> None:
    from loop.loop_fakes import RecordingSpeaker, ScriptedRecognizer, compass_session

    from facilitator.speech.base import VoiceSettings
    from facilitator.speech.loop.listen import ListenLoop
    from facilitator.speech.voices.voice_turns import VoiceTurns

    session = compass_session(tmp_path)
    try:
        loop = ListenLoop(session, ScriptedRecognizer(), RecordingSpeaker(VoiceSettings()))
        assert VoiceTurns.attach(loop, "auto", second_engine="off") is None
        assert VoiceTurns.attach(loop, "off", second_engine="always") is None
        assert loop.voices is None
    finally:
        session.log.close()


def test_auto_asks_only_a_live_table_and_on_holds_for_a_recording() -> None:
    from facilitator.speech.loop.voice_play import voices_mode

    assert voices_mode(argparse.Namespace(voices=None), live=True) == "auto"
    assert voices_mode(argparse.Namespace(voices="auto"), live=False) == "off"    # --audio-in
    assert voices_mode(argparse.Namespace(voices="on"), live=False) == "on"
    assert voices_mode(argparse.Namespace(voices="off"), live=True) == "off"
