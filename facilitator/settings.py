"""The settings file: ``config.toml`` in the platform's config directory for ``facilitator``.

``$FACILITATOR_CONFIG`` names another file; ``--config PATH`` on a command wins over
both.  A missing file means the defaults, except one named by ``--config``.  Every key is documented in the project's
settings notes (``docs/settings.md``); an unknown key, a wrong type, a value out of
range or malformed TOML is refused with the file, the line and the reason
(``SettingsError``).  Command-line flags override the file (``apply_to_args``).

::

    [speech]    voice, rate_wpm, volume
    [devices]   input, output
    [listening] recognizer, vosk_model, gate, push_to_talk, second_engine, voices
    [data]      directory
    [screens]   enabled, lan, port, host, keep_phone_audio (the table and seat screens),
                result_seconds (``play --screens``: how long the result stays up)
    [service]   quit_stops
    [games.GAME] players, and the game's options (mode, keeper, pool, extra)
"""

from __future__ import annotations

import argparse
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import OptionsError

ENV = "FACILITATOR_CONFIG"
GATES = ("always", "wake-phrase", "push-to-talk")
RECOGNIZERS = ("pocketsphinx", "vosk")
#: the second engine (Whisper) beside pocketsphinx: see facilitator/speech/engines/hybrid.py
SECOND_ENGINES = ("auto", "off", "always")
#: who is speaking: see facilitator/speech/voices/voice_turns.py
VOICES = ("auto", "on", "off")
#: the second engine's Whisper model (facilitator/speech/engines/whisper_model.py)
SECOND_MODELS = ("tiny", "base")
#: game options a settings file may preset, by game (the rest are per-game choices)
GAME_KEYS: dict[str, tuple[str, ...]] = {
    "compass-code": ("players", "mode", "keeper"),
    "two-windows": ("players",),
    "lantern-links": ("players", "pool"),
    "clover": ("players", "extra"),
}
_OPTION_TYPES: dict[str, type] = {"mode": str, "keeper": str, "pool": bool, "extra": int}
_TYPE_WORDS: dict[type, str] = {str: "a string", bool: "true or false", int: "a whole number"}


class SettingsError(OptionsError):
    """A settings file that cannot be used: file, line (when known) and reason."""

    def __init__(self, file: Path, line: int | None, reason: str) -> None:
        self.file = file
        self.line = line
        self.reason = reason
        where = f"{file}, line {line}" if line else str(file)
        super().__init__(f"settings {where}: {reason}")


@dataclass(frozen=True)
class Speech:
    """Speech out: an espeak-ng voice name (None: its default), words per minute, volume 0.1-1."""

    voice: str | None = None
    rate_wpm: int = 165
    volume: float = 0.5


@dataclass(frozen=True)
class Devices:
    """Audio devices by name part or index (None: the system default)."""

    input: str | None = None
    output: str | None = None
    #: the input's channel to keep (0-based), opened at its own channel count (a microphone
    #: array's processed channel); None: the input opened mono
    input_channel: int | None = None
    #: a second microphone (a headset, a handheld) read only while push-to-talk is held
    ptt_input: str | None = None
    #: the input is a microphone array: ``respeaker-4mic-hat``, ``respeaker-usb-v2``, ``ps3-eye``
    #: or microphone positions in millimetres (``"x,y; x,y; ..."``); its raw channels give
    #: each utterance's bearing (facilitator/speech/voices/direction.py); None: no array
    array: str | None = None


@dataclass(frozen=True)
class Listening:
    """How commands are heard: recognizer, optional Vosk model, and the gate."""

    recognizer: str = "pocketsphinx"
    vosk_model: Path | None = None
    #: ``always`` listens to everything; ``wake-phrase`` waits for "hey referee";
    #: ``push-to-talk`` waits for ``push_to_talk`` (key, gpio:PIN or evdev:DEVICE)
    gate: str = "always"
    push_to_talk: str = "key"
    #: ``always`` decodes every utterance with pocketsphinx and Whisper, ``off`` with pocketsphinx
    #: alone, ``auto`` is ``always`` when Whisper's optional extra is installed, else ``off``
    second_engine: str = "auto"
    #: who is speaking (docs/speakers.md): ``auto`` learns the seats' voices when the
    #: speakers extra is installed and the second engine is on; ``on``; ``off``
    voices: str = "auto"
    #: the second engine's model: ``tiny`` (Whisper tiny.en) or ``base`` (Whisper base, the
    #: ``whisper-base`` extra: better in talk, about three times the cost)
    second_model: str = "tiny"


@dataclass(frozen=True)
class Screens:
    """``serve``'s screens: on or off, the local network too, the port (0: any free
    one), and the address phones use (None: this machine's address on the network).
    ``keep_phone_audio`` (``serve`` and ``play``): keep each utterance a phone sends
    as a WAV in the data directory (by default nothing a phone hears is stored)."""

    enabled: bool = False
    lan: bool = False
    port: int = 8000
    host: str | None = None
    keep_phone_audio: bool = False
    #: ``play --screens``: how long the screens keep showing the result after the game's
    #: end before play exits (0: at once); "quit" or Ctrl-C closes them sooner
    result_seconds: int = 300


@dataclass(frozen=True)
class Service:
    """The table service: whether "quit" in the lobby stops ``serve --service``
    (by default only its owner stops it, with systemctl)."""

    quit_stops: bool = False


@dataclass(frozen=True)
class Settings:
    speech: Speech = field(default_factory=Speech)
    devices: Devices = field(default_factory=Devices)
    listening: Listening = field(default_factory=Listening)
    data_directory: Path | None = None
    #: per game (canonical name): preset players and options
    games: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: the file these came from (None: defaults, no file)
    source: Path | None = None
    screens: Screens = field(default_factory=Screens)
    service: Service = field(default_factory=Service)

    def game_defaults(self, game: str) -> dict[str, Any]:
        return dict(self.games.get(game, {}))


def default_path() -> Path:
    """``$FACILITATOR_CONFIG``, else ``config.toml`` in the platform's config directory."""
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_config_dir("facilitator", appauthor=False)) / "config.toml"


def load(path: Path | None = None, *, named: bool = False) -> Settings:
    """The settings in ``path`` (default: ``default_path()``); defaults when it does not
    exist, unless the player ``named`` it (``--config PATH``): a file asked for by name
    and missing is a mistyped path, refused rather than silently replaced by defaults."""
    path = path or default_path()
    try:
        if path.exists() and not path.is_file():   # a directory, a FIFO (reading it would hang)
            raise SettingsError(path, None, "is not a regular file")
        with open(path, "rb") as f:
            raw = f.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        if named:
            raise SettingsError(path, None, "no such file (facilitator settings init --config "
                                            f"{path} writes one)") from None
        return Settings()
    except OSError as exc:
        raise SettingsError(path, None, f"cannot be read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SettingsError(path, line, "is not UTF-8 text") from None
    if len(raw) > MAX_SETTINGS_BYTES:
        raise SettingsError(path, None, f"is larger than {MAX_SETTINGS_BYTES // 1024} KB; not a settings file")
    return parse(text, path)


#: a settings file is a few hundred bytes; anything far larger is not one
MAX_SETTINGS_BYTES = 1024 * 1024


def parse(text: str, path: Path) -> Settings:
    """Validate settings TOML ``text`` (from ``path``, for messages)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"\(at line (\d+), column \d+\)", message)
        line = int(found.group(1)) if found else None
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", message)
        raise SettingsError(path, line, f"malformed TOML: {reason.lower()}") from None
    except RecursionError:
        raise SettingsError(path, None, "malformed TOML: nested too deeply") from None
    try:
        return _Validator(text, path).settings(data)
    except RecursionError:
        raise SettingsError(path, None, "nested too deeply") from None


class _Validator:
    def __init__(self, text: str, path: Path) -> None:
        self.lines = text.splitlines()
        self.path = path

    def line_of(self, table: str, key: str | None = None) -> int | None:
        """The line of ``key`` inside ``[table]`` (or of the header itself)."""
        current = ""
        header_line = None
        for number, line in enumerate(self.lines, 1):
            stripped = line.strip()
            head = re.fullmatch(r"\[\s*([^\[\]]+?)\s*\](\s*#.*)?", stripped)
            if head:
                current = ".".join(part.strip().strip('"') for part in head.group(1).split("."))
                if current == table:
                    header_line = number
                continue
            if key is not None and current == table:
                found = re.match(r'"?([\w-]+)"?\s*=', stripped)
                if found and found.group(1) == key:
                    return number
        if key is not None and table == "":
            return None
        return header_line

    def fail(self, table: str, key: str | None, reason: str) -> SettingsError:
        where = f"{table}.{key}" if table and key else (table or key or "")
        return SettingsError(self.path, self.line_of(table, key), f"{where}: {reason}" if where else reason)

    def section(self, data: dict[str, Any], name: str, known: tuple[str, ...]) -> dict[str, Any]:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise self.fail("", name, "must be a table ([" + name + "])")
        for key in value:
            if key not in known:
                raise self.fail(name, key, f"unknown key (known: {', '.join(known)})")
        return value

    def settings(self, data: dict[str, Any]) -> Settings:
        top = ("speech", "devices", "listening", "data", "games", "screens", "service")
        for key in data:
            if key not in top:
                line = self.line_of(key) or self._top_key_line(key)
                raise SettingsError(self.path, line, f"unknown key {key!r} (known: {', '.join(top)})")
        s = self.section(data, "speech", tuple(f.name for f in fields(Speech)))
        d = self.section(data, "devices", tuple(f.name for f in fields(Devices)))
        li = self.section(data, "listening", tuple(f.name for f in fields(Listening)))
        da = self.section(data, "data", ("directory",))
        speech = Speech(
            voice=self.text(s, "speech", "voice"),
            rate_wpm=self.number(s, "speech", "rate_wpm", int, 80, 400, Speech.rate_wpm),
            volume=self.number(s, "speech", "volume", float, 0.1, 1.0, Speech.volume),
        )
        channel = d.get("input_channel")
        if channel is not None and (not isinstance(channel, int) or isinstance(channel, bool) or channel < 0):
            raise self.fail("devices", "input_channel", f"must be a channel number from 0, not {channel!r}")
        array = self.text(d, "devices", "array")
        if array is not None:
            from .speech.voices.direction import find_geometry

            try:
                find_geometry(array)
            except ValueError as exc:
                raise self.fail("devices", "array", str(exc)) from None
        devices = Devices(input=self.device(d, "input"), output=self.device(d, "output"),
                          input_channel=channel, ptt_input=self.device(d, "ptt_input"), array=array)
        vosk = self.text(li, "listening", "vosk_model")
        listening = Listening(
            recognizer=self.choice(li, "listening", "recognizer", RECOGNIZERS, Listening.recognizer),
            vosk_model=Path(vosk).expanduser() if vosk else None,
            gate=self.choice(li, "listening", "gate", GATES, Listening.gate),
            push_to_talk=self.push_to_talk(li),
            second_engine=self.choice(li, "listening", "second_engine", SECOND_ENGINES,
                                      Listening.second_engine),
            voices=self.choice(li, "listening", "voices", VOICES, Listening.voices),
            second_model=self.choice(li, "listening", "second_model", SECOND_MODELS, Listening.second_model),
        )
        if listening.recognizer == "vosk" and listening.vosk_model is None:
            raise self.fail("listening", "recognizer", "vosk needs listening.vosk_model (a model directory)")
        sc = self.section(data, "screens", tuple(f.name for f in fields(Screens)))
        sv = self.section(data, "service", tuple(f.name for f in fields(Service)))
        screens = Screens(enabled=self.flag(sc, "screens", "enabled", Screens.enabled),
                          lan=self.flag(sc, "screens", "lan", Screens.lan),
                          port=self.number(sc, "screens", "port", int, 0, 65535, Screens.port),
                          host=self.text(sc, "screens", "host"),
                          keep_phone_audio=self.flag(sc, "screens", "keep_phone_audio",
                                                     Screens.keep_phone_audio),
                          result_seconds=self.number(sc, "screens", "result_seconds", int, 0, 86400,
                                                     Screens.result_seconds))
        if screens.lan and screens.host is not None:
            from .addresses import is_loopback

            if is_loopback(screens.host):   # serve would refuse it at every start
                raise self.fail("screens", "host", f"{screens.host!r} is a loopback address: phones "
                                                   "cannot open it (with screens.lan = true)")
        service = Service(quit_stops=self.flag(sv, "service", "quit_stops", Service.quit_stops))
        directory = self.text(da, "data", "directory")
        return Settings(speech, devices, listening, Path(directory).expanduser() if directory else None,
                        self.games(data.get("games", {})), self.path, screens, service)

    def flag(self, table: dict[str, Any], name: str, key: str, default: bool) -> bool:
        value = table.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(name, key, f"must be true or false, not {value!r}")
        return value

    def _top_key_line(self, key: str) -> int | None:
        for number, line in enumerate(self.lines, 1):
            if re.match(rf'\s*"?{re.escape(key)}"?\s*[=.]', line):
                return number
        return None

    def text(self, table: dict[str, Any], name: str, key: str) -> str | None:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.fail(name, key, f"must be a non-empty string, not {value!r}")
        return value.strip()

    def device(self, table: dict[str, Any], key: str) -> str | None:
        value = table.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return str(value)
        return self.text(table, "devices", key)

    def number(self, table: dict[str, Any], name: str, key: str, kind: type, low: float, high: float,
               default: Any) -> Any:
        value = table.get(key, default)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if kind is int and not isinstance(value, int):
            ok = False
        if not ok:
            raise self.fail(name, key, f"must be a {'whole ' if kind is int else ''}number, not {value!r}")
        if not low <= value <= high:
            raise self.fail(name, key, f"{value!r} is out of range: {low:g} to {high:g}")
        return kind(value)

    def choice(self, table: dict[str, Any], name: str, key: str, options: tuple[str, ...],
               default: str) -> str:
        value = table.get(key, default)
        if value not in options:
            raise self.fail(name, key, f"must be one of {', '.join(options)}, not {value!r}")
        return str(value)

    def push_to_talk(self, table: dict[str, Any]) -> str:
        value = self.text(table, "listening", "push_to_talk") or Listening.push_to_talk
        from .speech.audio.push_to_talk import check_spec

        try:
            check_spec(value)
        except OptionsError as exc:
            raise self.fail("listening", "push_to_talk", str(exc)) from None
        return value

    def games(self, value: Any) -> dict[str, dict[str, Any]]:
        from .games import find_game

        if not isinstance(value, dict):
            raise self.fail("", "games", "must be a table of games ([games.compass-code])")
        out: dict[str, dict[str, Any]] = {}
        for game, preset in value.items():
            table = f"games.{game}"
            try:
                referee = find_game(game)
            except ValueError:
                raise self.fail(table, None, f"unknown game {game!r} (games: {', '.join(GAME_KEYS)})") from None
            if not isinstance(preset, dict):
                raise self.fail("games", game, "must be a table")
            known = GAME_KEYS[referee.name]
            for key in preset:
                if key not in known:
                    raise self.fail(table, key, f"unknown key (known: {', '.join(known)})")
            players = preset.get("players")
            if players is not None and (not isinstance(players, int) or isinstance(players, bool) or not (
                    referee.min_players <= players <= referee.max_players)):
                raise self.fail(table, "players", f"must be {referee.min_players} to "
                                                  f"{referee.max_players}, not {players!r}")
            flags = {k: v for k, v in preset.items() if k != "players"}
            for key, val in flags.items():
                kind = _OPTION_TYPES[key]
                if not isinstance(val, kind) or (kind is int and isinstance(val, bool)):
                    raise self.fail(table, key, f"must be {_TYPE_WORDS[kind]}, not {val!r}")
                try:
                    options = referee.parse_options({key: val})
                    referee.check_options(options, players if players is not None else referee.default_players)
                except OptionsError as exc:
                    raise self.fail(table, key, str(exc)) from None
            if preset:   # an empty table (as ``settings show`` writes for a game left at its defaults) presets nothing
                out[referee.name] = dict(preset)
        return out


#: flags of ``facilitator play`` / ``serve`` filled from the file when not given
_FLAG_SOURCES: tuple[tuple[str, str, str], ...] = (
    ("rate", "speech", "rate_wpm"),
    ("volume", "speech", "volume"),
    ("voice", "speech", "voice"),
    ("input_device", "devices", "input"),
    ("output_device", "devices", "output"),
    ("input_channel", "devices", "input_channel"),
    ("ptt_input", "devices", "ptt_input"),
    ("array", "devices", "array"),
    ("second_model", "listening", "second_model"),
    ("vosk_model", "listening", "vosk_model"),
    ("second_engine", "listening", "second_engine"),
    ("voices", "listening", "voices"),
    ("data_dir", "", "data_directory"),
    ("keep_phone_audio", "screens", "keep_phone_audio"),
    ("result_seconds", "screens", "result_seconds"),
)


def apply_to_args(settings: Settings, args: argparse.Namespace, game: str | None = None) -> None:
    """Fill every flag left out on the command line from ``settings`` (flags win).

    Game presets fill ``players`` and the game's option flags when ``game`` is given
    (``--names`` counts as choosing the players)."""
    for flag, section, key in _FLAG_SOURCES:
        if not hasattr(args, flag) or getattr(args, flag) is not None:
            continue
        value = getattr(getattr(settings, section), key) if section else getattr(settings, key)
        if value is not None:
            setattr(args, flag, value)
    gate = settings.listening.gate
    explicit_gate = bool(getattr(args, "wake_phrase", False)) or bool(getattr(args, "push_to_talk", None))
    if not explicit_gate:
        if gate == "wake-phrase" and hasattr(args, "wake_phrase"):
            args.wake_phrase = True
        elif gate == "push-to-talk" and hasattr(args, "push_to_talk"):
            args.push_to_talk = settings.listening.push_to_talk
    if game is not None:
        preset = settings.game_defaults(game)
        for key, value in preset.items():
            if key == "players" and getattr(args, "names", None):
                continue
            if hasattr(args, key) and getattr(args, key) is None:
                setattr(args, key, value)


def render(settings: Settings) -> str:
    """``settings`` as a settings file (every key, defaults included) that loads back equal."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        text = str(v).replace("\\", "\\\\").replace('"', '\\"')
        return f'"{text}"'

    def entry(key: str, v: Any) -> str:
        return f"{key} = {value(v)}" if v is not None else f"# {key} = (not set)"

    out = ["[speech]"]
    out += [entry(f.name, getattr(settings.speech, f.name)) for f in fields(Speech)]
    out += ["", "[devices]"]
    out += [entry(f.name, getattr(settings.devices, f.name)) for f in fields(Devices)]
    out += ["", "[listening]"]
    out += [entry(f.name, getattr(settings.listening, f.name)) for f in fields(Listening)]
    out += ["", "[data]", entry("directory", settings.data_directory)]
    out += ["", "[screens]"]
    out += [entry(f.name, getattr(settings.screens, f.name)) for f in fields(Screens)]
    out += ["", "[service]"]
    out += [entry(f.name, getattr(settings.service, f.name)) for f in fields(Service)]
    for game, keys in GAME_KEYS.items():   # every game's keys; a default not set in the file is a comment
        preset = settings.games.get(game, {})
        defaults = game_key_defaults(game)
        out += ["", f"[games.{game}]"]
        out += [entry(k, preset[k]) if k in preset else f"# {k} = {value(defaults[k])}   (the default)"
                for k in keys]
    return "\n".join(out) + "\n"


def game_key_defaults(game: str) -> dict[str, Any]:
    """The value each ``[games.GAME]`` key has when the file leaves it out (the referee's own)."""
    from .games import find_game

    referee = find_game(game)
    options = referee.parse_options({})
    return {key: referee.default_players if key == "players" else options[key] for key in GAME_KEYS[game]}


TEMPLATE = """\
# facilitator settings.  Every key is optional; command-line flags override this file.
# The keys are described in the project's settings notes (docs/settings.md).

[speech]
# voice = "en-us"          # an espeak-ng voice name (espeak-ng --voices)
rate_wpm = 165             # words per minute, 80 to 400
volume = 0.5               # 0.1 to 1 (1 is the loudest; 0.5 leaves two "louder" steps)

[devices]
# input = "USB"            # microphone: part of its name, or its index (facilitator devices)
# output = "USB"           # speaker
# input_channel = 0        # keep one channel of a multi-channel input (a microphone array's)
# array = "respeaker-4mic-hat"  # a microphone array: each voice's bearing names its seat
# ptt_input = "Headset"    # a second microphone, heard only while push-to-talk is held

[listening]
recognizer = "pocketsphinx"  # or "vosk" (then vosk_model = "DIR")
gate = "always"              # always, wake-phrase ("hey referee") or push-to-talk
push_to_talk = "key"         # key, gpio:PIN or evdev:DEVICE (with gate = "push-to-talk")
second_engine = "auto"       # auto, off or always: Whisper beside pocketsphinx (extra [whisper])
voices = "auto"              # auto, on or off: learn each seat's voice (extra [speakers])
second_model = "tiny"        # tiny or base: the second engine's Whisper (base: extra [whisper-base])

[data]
# directory = "~/facilitator-data"   # logs, records; default: the platform's data directory

[screens]
enabled = false              # serve: the table screen and the players' phones
lan = false                  # true: phones on the local network can join
port = 8000
# host = "192.168.1.20"      # the address phones use (default: this machine's, found by itself)
keep_phone_audio = false     # true: keep each phone's utterance as a WAV in the data directory
result_seconds = 300         # play --screens: the result stays on the screens this long after the end

[service]
quit_stops = false           # true: "quit" in the lobby stops the service (else only systemctl does)

# What the lobby starts when a game is chosen without a player count, and what play
# takes when no flag says otherwise (the values below are the defaults).
[games.compass-code]
players = 4                  # 2 to 8
mode = "standard"            # standard, gentle or tight
keeper = "machine"           # machine or human (a human keeper needs a private screen)

[games.two-windows]
players = 3                  # 3 to 6

[games.lantern-links]
players = 3                  # 2 to 6
pool = false                 # true: the shared-pool variant

[games.clover]
players = 4                  # 3 to 6
extra = 1                    # extra cards at each resolution, 1 to 4
"""
