"""The settings file: round trip, refusals with file, line and reason, flags over the file."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from support import run_cli

from facilitator import settings as s
from facilitator.settings import Devices, Listening, Settings, SettingsError, Speech


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_missing_file_means_the_defaults(tmp_path: Path) -> None:
    assert s.load(tmp_path / "none.toml") == Settings()


def test_the_template_written_by_init_is_valid_and_documented(tmp_path: Path) -> None:
    loaded = s.load(write(tmp_path, s.TEMPLATE))
    assert loaded.speech.rate_wpm == 165
    assert loaded.game_defaults("compass-code") == {"players": 4, "mode": "standard", "keeper": "machine"}
    doc = (Path(__file__).resolve().parents[2] / "docs" / "settings.md").read_text(encoding="utf-8")
    for section, cls in (("speech", Speech), ("devices", Devices), ("listening", Listening)):
        for name in cls.__dataclass_fields__:
            assert f"`{section}.{name}`" in doc, f"{section}.{name} is not documented"
    assert "`data.directory`" in doc
    for game, keys in s.GAME_KEYS.items():
        for key in keys:
            assert f"`games.{game}.{key}`" in doc, f"games.{game}.{key} is not documented"


def test_a_full_file_round_trips(tmp_path: Path) -> None:
    text = """
[speech]
voice = "en-gb"
rate_wpm = 140
volume = 0.5
[devices]
input = "USB PnP"
output = 3
[listening]
recognizer = "vosk"
vosk_model = "models/vosk-small"
gate = "push-to-talk"
push_to_talk = "gpio:17"
[data]
directory = "table-data"
[games.compass-code]
players = 5
mode = "gentle"
keeper = "human"
[games.clover]
extra = 2
[games.lantern-links]
pool = true
"""
    loaded = s.load(write(tmp_path, text))
    assert loaded.speech == Speech("en-gb", 140, 0.5)
    assert loaded.devices == Devices("USB PnP", "3")
    assert loaded.listening == Listening("vosk", Path("models/vosk-small"), "push-to-talk", "gpio:17")
    assert loaded.data_directory == Path("table-data")
    again = s.parse(s.render(loaded), tmp_path / "again.toml")
    assert again == Settings(loaded.speech, loaded.devices, loaded.listening, loaded.data_directory,
                             loaded.games, tmp_path / "again.toml")


@hsettings(max_examples=40, deadline=None)
@given(rate=st.integers(80, 400), volume=st.floats(0.1, 1.0, allow_nan=False),
       voice=st.none() | st.text("abcdefghij-+", min_size=1, max_size=8),
       gate=st.sampled_from(s.GATES), players=st.integers(2, 8))
def test_render_then_parse_gives_the_same_settings(rate: int, volume: float, voice: str | None,
                                                    gate: str, players: int) -> None:
    original = Settings(Speech(voice, rate, volume), Devices(), Listening(gate=gate),
                        None, {"compass-code": {"players": players}})
    back = s.parse(s.render(original), Path("config.toml"))
    assert (back.speech, back.listening, back.games) == (original.speech, original.listening, original.games)


@pytest.mark.parametrize("text, line, reason", [
    ("[speech]\nrate_wpm = 165\ncolour = 'red'\n", 3, "speech.colour: unknown key"),
    ("[speach]\nrate_wpm = 165\n", 1, "unknown key 'speach'"),
    ("[speech]\nrate_wpm = 165\n\n[games.chess]\nplayers = 2\n", 4, "unknown game 'chess'"),
    ("[games.compass-code]\nplayers = 4\npool = true\n", 3, "games.compass-code.pool: unknown key"),
    ("[speech]\nrate_wpm = 20\n", 2, "speech.rate_wpm: 20 is out of range: 80 to 400"),
    ("[speech]\nvolume = 'loud'\n", 2, "speech.volume: must be a number"),
    ("[speech]\nrate_wpm = 1.5\n", 2, "must be a whole number"),
    ("[listening]\ngate = 'clap'\n", 2, "listening.gate: must be one of always, wake-phrase, push-to-talk"),
    ("[listening]\npush_to_talk = 'gpio'\n", 2, "gpio needs a pin"),
    ("[listening]\nrecognizer = 'vosk'\n", 2, "vosk needs listening.vosk_model"),
    ("[games.compass-code]\nmode = 'easy'\n", 2, "unknown mode 'easy'"),
    ("[games.clover]\nextra = 9\n", 2, "--extra takes a number from 1 to 4"),
    ("[games.two-windows]\nplayers = 9\n", 2, "must be 3 to 6, not 9"),
    ("[speech]\nrate_wpm = \n", 2, "malformed TOML"),
    ("[speech\nrate_wpm = 100\n", 1, "malformed TOML"),
    ("[speech]\nrate_wpm = 100\nrate_wpm = 120\n", 3, "malformed TOML"),
])
def test_a_bad_file_is_refused_with_file_line_and_reason(tmp_path: Path, text: str, line: int,
                                                          reason: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(SettingsError) as caught:
        s.load(path)
    assert caught.value.file == path
    assert caught.value.line == line
    assert reason in str(caught.value)
    assert f"{path}, line {line}:" in str(caught.value)


def test_a_file_that_is_not_utf8_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"[speech]\nvoice = '\xff'\n")
    with pytest.raises(SettingsError, match="line 2: is not UTF-8"):
        s.load(path)


def _args(**given: object) -> argparse.Namespace:
    base = {"rate": None, "volume": None, "voice": None, "input_device": None, "output_device": None,
            "vosk_model": None, "data_dir": None, "wake_phrase": None, "push_to_talk": None,
            "players": None, "names": None, "mode": None, "keeper": None}
    base.update(given)
    return argparse.Namespace(**base)


def test_flags_override_the_file_and_the_file_fills_the_rest(tmp_path: Path) -> None:
    loaded = s.load(write(tmp_path, "[speech]\nrate_wpm = 120\nvolume = 0.4\n[devices]\ninput = 'USB'\n"
                                    "[listening]\ngate = 'wake-phrase'\n"
                                    "[games.compass-code]\nplayers = 6\nmode = 'gentle'\n"))
    args = _args(rate=200, players=3)
    s.apply_to_args(loaded, args, game="compass-code")
    assert (args.rate, args.volume, args.input_device) == (200, 0.4, "USB")
    assert args.wake_phrase is True
    assert (args.players, args.mode, args.keeper) == (3, "gentle", None)


def test_names_on_the_command_line_beat_the_files_player_count(tmp_path: Path) -> None:
    loaded = s.load(write(tmp_path, "[games.compass-code]\nplayers = 6\n"))
    args = _args(names="Ann,Bob,Cy")
    s.apply_to_args(loaded, args, game="compass-code")
    assert args.players is None


def test_a_push_to_talk_flag_beats_the_files_wake_phrase(tmp_path: Path) -> None:
    loaded = s.load(write(tmp_path, "[listening]\ngate = 'wake-phrase'\n"))
    args = _args(push_to_talk="gpio:17")
    s.apply_to_args(loaded, args)
    assert args.wake_phrase is None and args.push_to_talk == "gpio:17"


def test_cli_settings_init_show_and_a_refused_file(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "config.toml"
    env = {"FACILITATOR_CONFIG": str(path)}
    assert run_cli(["settings", "path"], env=env).stdout.strip() == str(path)
    made = run_cli(["settings", "init"], env=env)
    assert made.returncode == 0 and path.exists()
    again = run_cli(["settings", "init"], env=env)
    assert again.returncode == 2 and "--force" in again.stderr
    shown = run_cli(["settings", "show"], env=env)
    assert "rate_wpm = 165" in shown.stdout and "[games.compass-code]" in shown.stdout
    path.write_text("[speech]\nrate_wpm = 165\nspeed = 3\n", encoding="utf-8")
    bad = run_cli(["settings", "check"], env=env)
    assert bad.returncode == 2
    assert bad.stderr.strip() == (f"facilitator: settings {path}, line 3: speech.speed: unknown key "
                                  "(known: voice, rate_wpm, volume)")
    assert "Traceback" not in bad.stderr


def test_play_takes_its_players_from_the_file_unless_a_flag_says_otherwise(tmp_path: Path) -> None:
    path = write(tmp_path, "[games.compass-code]\nplayers = 6\n")
    env = {"FACILITATOR_CONFIG": str(path)}
    log = tmp_path / "log.jsonl"
    run_cli(["play", "compass-code", "--text", "--seed", "1", "--log", str(log)], env=env)
    assert '"players":6' in log.read_text(encoding="utf-8")
    log2 = tmp_path / "log2.jsonl"
    run_cli(["play", "compass-code", "--text", "--seed", "1", "--players", "3", "--log", str(log2)], env=env)
    assert '"players":3' in log2.read_text(encoding="utf-8")
    path.write_text("[games.compass-code]\nplayers = 'many'\n", encoding="utf-8")
    bad = run_cli(["play", "compass-code", "--text"], env=env)
    assert bad.returncode == 2 and "line 2" in bad.stderr and "Traceback" not in bad.stderr


def test_the_files_voice_reaches_voice_play(tmp_path: Path) -> None:
    from facilitator.speech.loop.voice_play import voice_settings

    loaded = s.load(write(tmp_path, "[speech]\nvoice = 'en-gb'\nrate_wpm = 140\n"))
    args = _args()
    s.apply_to_args(loaded, args)
    voice = voice_settings(args)
    assert (voice.voice, voice.rate_wpm, voice.volume) == ("en-gb", 140, 0.5)


DOCUMENTED_GAME_KEYS = [(game, key) for game, keys in s.GAME_KEYS.items() for key in keys]


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


def test_show_and_init_hold_every_games_key_the_docs_list(tmp_path: Path) -> None:
    """Issue 36: `settings show` and `settings init` held no [games.*] key but compass code's."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "settings.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"`games\.([a-z-]+)\.([a-z_]+)`", doc))
    assert listed == set(DOCUMENTED_GAME_KEYS)
    path = tmp_path / "conf" / "config.toml"
    env = {"FACILITATOR_CONFIG": str(path)}
    shown = run_cli(["settings", "show"], env=env)              # no file: every key, as its default
    assert shown.returncode == 0, shown.stderr
    for game, key in DOCUMENTED_GAME_KEYS:
        default = s.game_key_defaults(game)[key]
        section = shown.stdout.split(f"[games.{game}]\n", 1)[1].split("\n\n", 1)[0]
        assert f"# {key} = {toml_value(default)}   (the default)" in section, (game, key, section)
    assert run_cli(["settings", "init"], env=env).returncode == 0
    written = s.load(path)
    for game, key in DOCUMENTED_GAME_KEYS:                    # init writes each, at its default
        assert written.game_defaults(game)[key] == s.game_key_defaults(game)[key], (game, key)
    again = run_cli(["settings", "show"], env=env).stdout
    assert "[games.clover]\nplayers = 4\nextra = 1\n" in again and "(the default)" not in again


def test_check_refuses_lan_with_a_loopback_host_as_serve_would(tmp_path: Path) -> None:
    path = write(tmp_path, '[screens]\nenabled = true\nlan = true\nhost = "127.0.0.1"\n')
    env = {"FACILITATOR_CONFIG": str(path)}
    checked = run_cli(["settings", "check"], env=env)
    assert checked.returncode == 2 and checked.stdout == ""
    assert checked.stderr == (f"facilitator: settings {path}, line 4: screens.host: '127.0.0.1' is a loopback "
                              "address: phones cannot open it (with screens.lan = true)\n")
    served = run_cli(["serve", "--text", "--data-dir", str(tmp_path / "data")], "quit\n", env=env)
    assert served.returncode == 2 and served.stderr == checked.stderr
    write(tmp_path, '[screens]\nlan = true\nhost = "192.168.1.20"\n')
    assert run_cli(["settings", "check"], env=env).returncode == 0


@pytest.mark.parametrize("command", [
    ["settings", "show"], ["settings", "check"], ["serve", "--text"], ["play", "compass-code", "--text"],
    ["install-service", "--print"], ["play", "compass-code", "--text", "--resume"],
])
def test_a_named_settings_file_that_is_missing_is_refused(tmp_path: Path, command: list[str]) -> None:
    missing = tmp_path / "nonexistent.toml"
    done = run_cli([*command, "--config", str(missing)], "quit\n",
                   env={"FACILITATOR_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr == (f"facilitator: settings {missing}: no such file (facilitator settings init "
                           f"--config {missing} writes one)\n")
    assert not (tmp_path / "data" / "games").exists()        # nothing started


def test_a_named_file_may_be_made_and_the_default_file_may_be_missing(tmp_path: Path) -> None:
    missing = tmp_path / "new.toml"
    assert run_cli(["settings", "path", "--config", str(missing)]).stdout == f"{missing}\n"
    assert run_cli(["settings", "init", "--config", str(missing)]).returncode == 0 and missing.exists()
    default = run_cli(["settings", "check"], env={"FACILITATOR_CONFIG": str(tmp_path / "absent.toml")})
    assert default.returncode == 0 and "no file; defaults are used" in default.stdout


def test_play_takes_a_settings_file_by_config(tmp_path: Path) -> None:
    path = write(tmp_path, "[games.clover]\nextra = 3\n")
    log = tmp_path / "log.jsonl"
    done = run_cli(["play", "clover", "--text", "--config", str(path), "--private", str(tmp_path / "p.jsonl"),
                    "--log", str(log)], "status\n")
    assert done.returncode == 0, done.stderr
    assert '"extra":3' in log.read_text(encoding="utf-8")
