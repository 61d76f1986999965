"""The commands of a table left running: ``serve``, ``settings``, ``doctor``, ``install-service``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import settings as settings_mod
from .errors import OptionsError

COMMANDS = ("serve", "settings", "doctor", "install-service")


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from .lobby_run import add_arguments as add_serve_arguments

    serve = sub.add_parser("serve", help="the lobby: choose, play and resume games by voice (or --text)")
    add_serve_arguments(serve)

    st = sub.add_parser("settings", help="the settings file: show, path, init, check")
    st.add_argument("action", nargs="?", metavar="{show,path,init,check}",
                    help="show the settings, print the file's path, write a commented file, or check it")
    st.add_argument("--config", type=Path, metavar="PATH", help="this settings file instead")
    st.add_argument("--force", action="store_true", help="init: replace an existing file")

    doc = sub.add_parser("doctor", help="check microphone, speaker, espeak-ng, recognizer, data, memory")
    doc.add_argument("--config", type=Path, metavar="PATH", help="settings file (default: the platform's)")
    doc.add_argument("--data-dir", type=Path, help="the table's data directory")
    doc.add_argument("--input-device", metavar="NAME|INDEX", help="microphone by name or index")
    doc.add_argument("--output-device", metavar="NAME|INDEX", help="speaker by name or index")
    doc.add_argument("--vosk-model", type=Path, metavar="DIR", help="check this Vosk model")
    doc.add_argument("--seconds", type=float, default=None, metavar="S",
                     help="how long the level meter listens (default 3)")
    doc.add_argument("--quiet", action="store_true", help="do not play the test phrase or listen")

    svc = sub.add_parser("install-service", help="write and enable a systemd user unit that runs serve")
    svc.add_argument("--print", dest="print_only", action="store_true",
                     help="show the unit without installing it")
    svc.add_argument("--config", type=Path, metavar="PATH", help="settings file the service uses")
    svc.add_argument("--data-dir", type=Path, help="data directory the service uses")
    svc.add_argument("--screens", action="store_true",
                     help="the service also serves the table screen and the players' phones")
    svc.add_argument("--lan", action="store_true", help="with --screens: phones on the local network can join")
    svc.add_argument("--port", type=int, help="with --screens: the port (default 8000)")


def load_settings(path: Path | None) -> settings_mod.Settings:
    """The settings; a file named by ``--config`` must exist (a missing default file is the defaults)."""
    return settings_mod.load(path, named=path is not None)


def run_command(args: argparse.Namespace) -> int:
    if args.command == "serve":
        from .cli_checks import check_voice, refuse_voice_flags
        from .lobby_run import run

        refuse_voice_flags(args)                    # typed on the command line, before the file fills any
        loaded = load_settings(args.config)
        settings_mod.apply_to_args(loaded, args)
        if not args.text:
            check_voice(args.voice)
        if args.push_to_talk and not args.text:
            from .speech.audio.push_to_talk import check_available

            check_available(args.push_to_talk)
        if not args.text:   # read before the data directory is taken: a bad file leaves nothing held
            from .lobby_run import open_recording

            args.recording = open_recording(args)
        return run(args, loaded)
    if args.command == "settings":
        return _settings(args)
    if args.command == "doctor":
        return _doctor(args)
    if args.command == "install-service":
        return _install_service(args)
    raise OptionsError(f"unknown command {args.command!r}")


#: what ``facilitator settings`` does, and the one line for none or another
SETTINGS_ACTIONS = ("show", "path", "init", "check")
SETTINGS_USAGE = "show, path, init [--force] or check [--config PATH]"


def _settings(args: argparse.Namespace) -> int:
    if args.action is None:
        raise OptionsError(f"settings needs an action: {SETTINGS_USAGE}")
    if args.action not in SETTINGS_ACTIONS:
        raise OptionsError(f"settings has no action {args.action!r}: {SETTINGS_USAGE}")
    if args.force and args.action != "init":
        raise OptionsError(f"--force is for settings init (it replaces the file), not {args.action}: leave it out")
    path = args.config or settings_mod.default_path()
    if args.action == "path":
        print(path)
        return 0
    if args.action == "init":
        if path.exists() and not path.is_file():
            raise OptionsError(f"{path} is not a file (a directory?); --force replaces only a settings file")
        if path.exists() and not args.force:
            raise OptionsError(f"{path} exists; use --force to replace it")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(settings_mod.TEMPLATE, encoding="utf-8")
        except OSError as exc:
            raise OptionsError(f"cannot write the settings file {path}: {exc.strerror or exc}") from None
        settings_mod.load(path)   # the template itself must be valid
        print(f"wrote {path}")
        return 0
    loaded = load_settings(args.config) if args.config is not None else settings_mod.load(path)
    if args.action == "check":
        from . import systemd_unit

        problem = systemd_unit.start_problem(loaded)
        if problem is not None and systemd_unit.unit_path().exists():
            raise OptionsError(f"{path}: {problem}")
        print(f"{path}: valid" if path.exists() else f"{path}: no file; defaults are used")
        if problem is not None:
            print(f"note: {problem}", file=sys.stderr)
        return 0
    print(f"# {path}" + ("" if path.exists() else " (no file: these are the defaults)"))
    sys.stdout.write(settings_mod.render(loaded))
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from .doctor import Doctor, SystemMachine, report, show
    from .grammar import load_grammar
    from .paths import data_dir
    from .speech.base import VoiceSettings

    path = args.config or settings_mod.default_path()
    problem = None
    try:
        loaded = load_settings(args.config) if args.config is not None else settings_mod.load(path)
    except settings_mod.SettingsError as exc:
        problem = str(exc)
        loaded = settings_mod.Settings()
    settings_mod.apply_to_args(loaded, args)
    voice = VoiceSettings(rate_wpm=loaded.speech.rate_wpm, volume=loaded.speech.volume,
                          voice=loaded.speech.voice)
    doctor = Doctor(SystemMachine(voice), settings_path=path, data_directory=data_dir(args.data_dir),
                    input_device=args.input_device, output_device=args.output_device,
                    input_channel=loaded.devices.input_channel, ptt_input=loaded.devices.ptt_input,
                    array=loaded.devices.array,
                    vosk_model=args.vosk_model, settings_problem=problem,
                    level_seconds=args.seconds or 3.0,
                    test_phrase=load_grammar("lobby").responses["doctor-test"],
                    listen=not args.quiet, speak=not args.quiet, screens=loaded.screens)
    checks = doctor.checks(progress=lambda check: show(check, sys.stdout))
    return report(checks, sys.stdout)


def _install_service(args: argparse.Namespace) -> int:
    import os

    from . import systemd_unit

    loaded = load_settings(args.config)
    problem = systemd_unit.start_problem(loaded)
    if problem is not None:   # the unit would restart every 10 s forever
        raise OptionsError(f"{loaded.source or 'the settings'}: {problem}")
    extra: list[str] = []
    if args.screens:
        extra.append("--screens")
        if args.lan:
            extra.append("--lan")
        if args.port is not None:
            if not 0 <= args.port <= 65535:
                raise OptionsError(f"--port takes 0 to 65535, not {args.port}")
            extra += ["--port", str(args.port)]
    environment = {settings_mod.ENV: os.environ[settings_mod.ENV]} \
        if os.environ.get(settings_mod.ENV) and args.config is None else {}
    text = systemd_unit.unit_text(systemd_unit.executable(), config=args.config.resolve() if args.config else None,
                                  data_dir=args.data_dir.resolve() if args.data_dir else None,
                                  extra_args=extra, environment=environment)
    if args.print_only:
        sys.stdout.write(text)
        return 0
    done = systemd_unit.install(text, systemd_unit.unit_path())
    for note in done.notes:
        print(note)
    return 0
