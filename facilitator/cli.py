"""The ``facilitator`` command line."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any, ClassVar, NoReturn

from .command import GAMES
from .errors import FacilitatorError, LogError, OptionsError, StdoutError, WriteError
from .games import find_game

EXIT_BAD = 2


class _Newest:
    """``--resume`` given without a log: the newest unfinished game of its kind in the
    data directory (not a string, so argparse leaves it as it is)."""


NEWEST = _Newest()


def _path(text: str) -> Path | str:
    """A path argument; an empty one stays ``""`` (``Path("")`` would be the current directory)."""
    return Path(text) if text else ""


def _file_paths(args: argparse.Namespace) -> None:
    """One line for a file argument that cannot be a file: empty, a directory, a device."""
    from .log import check_regular

    for flag in ("log", "resume", "private", "data_dir"):
        value = getattr(args, flag, None)
        if value == "":
            raise OptionsError(f"--{flag.replace('_', '-')} needs a path, not an empty string")
    for flag, what in (("log", "--log"), ("resume", "--resume"), ("private", "--private")):
        value = getattr(args, flag, None)
        if value is not None and value is not NEWEST:   # the newest log is looked up once the table is ours
            check_regular(value, what)
    if args.data_dir is not None and args.data_dir.exists() and not args.data_dir.is_dir():
        raise OptionsError(f"--data-dir {str(args.data_dir)!r} is not a directory")


def _version() -> str:
    """The installed distribution's version, else the package's own."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("facilitator")
    except PackageNotFoundError:
        from . import __version__

        return __version__


class _Parser(argparse.ArgumentParser):
    """A parser whose errors are the one line every refusal is (``facilitator: `` first,
    exit 2), naming the command they belong to and where its flags are listed.

    Each parser is kept by its ``prog`` (``facilitator serve``), so that a command's
    unknown arguments are told by that command (``_refuse_unknown``): argparse leaves
    them to the top-level parser, which told them with its own usage."""

    made: ClassVar[dict[str, _Parser]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _Parser.made[self.prog] = self

    def error(self, message: str) -> NoReturn:
        command = self.prog.partition(" ")[2]
        self.exit(EXIT_BAD, f"facilitator: {command + ': ' if command else ''}{message} "
                            f"({self.prog} --help lists what it takes)\n")


def _refuse_unknown(parser: argparse.ArgumentParser, args: argparse.Namespace, extra: list[str]) -> None:
    """Arguments no parser took: told by the innermost command given (``content check``)."""
    if not extra:
        return
    words = ["facilitator", args.command, getattr(args, "action", None)]
    for length in (3, 2):
        named = _Parser.made.get(" ".join(str(w) for w in words[:length]))
        if named is not None and None not in words[:length]:
            named.error(f"unrecognized arguments: {' '.join(extra)}")
    parser.error(f"unrecognized arguments: {' '.join(extra)}")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="facilitator", description="An offline voice referee for party games.")
    p.add_argument("--version", action="version", version=f"facilitator {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="referee a game (voice, or --text)")
    play.add_argument("game", metavar="GAME", help=", ".join(GAMES))
    play.add_argument("--text", action="store_true", help="read utterances from stdin, print announcements")
    play.add_argument("--players", type=int, help="number of players")
    play.add_argument("--names", help="comma-separated player names, seat 1 first")
    play.add_argument("--seed", type=int, help="make every draw reproducible")
    play.add_argument("--log", type=_path,
                      help="write the event log (JSON Lines) here (default: a new log in the data directory)")
    play.add_argument("--resume", type=_path, nargs="?", const=NEWEST, metavar="LOG",
                      help="continue the game logged in LOG (without LOG: the newest unfinished "
                           "game of GAME in the data directory)")
    play.add_argument("--private", type=_path, metavar="PATH", help="append private messages here")
    play.add_argument("--screens", action="store_true",
                      help="serve the table screen and private seat screens (a local web app)")
    play.add_argument("--lan", action="store_true", help="with --screens: serve the local network too")
    play.add_argument("--port", type=int, help="with --screens: the port (default 8000)")
    play.set_defaults(keep_phone_audio=None)   # [screens] keep_phone_audio (settings only)
    play.add_argument("--host", metavar="ADDRESS",
                      help="with --screens --lan: the address phones use (default: this machine's LAN address)")
    play.add_argument("--result-seconds", type=int, metavar="SECONDS",
                      help="with --screens: how long the screens show the result after the game's end "
                           "(default 300; 0: close at once; quit or Ctrl-C closes them sooner)")
    play.add_argument("--data-dir", type=_path, help="the table's data directory")
    play.add_argument("--config", type=Path, metavar="PATH", help="settings file (default: the platform's)")
    play.add_argument("--mode", help="compass-code: standard, gentle or tight")
    play.add_argument("--keeper", help="compass-code: machine or human")
    play.add_argument("--routes", help="compass-code: three routes (ESNW,NESW,WSEN); lantern-links: card numbers")
    play.add_argument("--pool", action="store_true", default=None, help="lantern-links: shared-pool variant")
    play.add_argument("--packets", help="two-windows: six packet numbers (1,8,13,4,17,10)")
    play.add_argument("--practice", action="store_true", default=None,
                      help="two-windows: one round on the practice catalogue")
    play.add_argument("--extra", type=int, help="clover: extra cards at resolution, 1 to 4")
    from .speech.loop.voice_play import add_arguments as add_voice_arguments

    add_voice_arguments(play)

    content = sub.add_parser("content", help="check the decks in content/")
    content_sub = content.add_subparsers(dest="action", metavar="ACTION")
    check = content_sub.add_parser("check", help="validate every content file")
    check.add_argument("--content-dir", type=Path, help="check this directory instead")

    demo = sub.add_parser("demo", help="a self-playing Compass Code voyage, by synthesized voices")
    demo.add_argument("--seed", type=int, default=7,
                      help="the voyage's draws: the same seed plays the same three routes (default 7)")
    demo.add_argument("--text", action="store_true", help="the same crew, typed instead of spoken")
    demo.add_argument("--speech-out", type=Path, metavar="DIR",
                      help="keep the assistant's speech as WAV files in DIR")
    demo.add_argument("--log", type=_path, help="write the event log (JSON Lines) here")
    demo.add_argument("--mix-out", type=Path, metavar="FILE",
                      help="keep one mixed WAV of the whole session, crew and assistant")
    demo.add_argument("--no-speaker", action="store_true",
                      help="do not play the session on the speaker (it plays when one exists)")
    from .speech.commands import add_commands as add_speech_commands

    add_speech_commands(sub)
    from .table_cli import add_commands as add_service_commands

    add_service_commands(sub)
    return p


GAME_FLAGS = ("mode", "keeper", "routes", "pool", "packets", "practice", "extra")


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """Game options from the flags, as the game records them in ``game-started``."""
    flags = {f: getattr(args, f) for f in GAME_FLAGS if getattr(args, f) is not None}
    return find_game(args.game).parse_options(flags)


def _play(args: argparse.Namespace) -> int:
    from . import textplay
    from .cli_checks import (
        check_output_directory,
        check_voice,
        refuse_screen_flags,
        refuse_voice_flags,
    )
    from .session import Session
    from .settings import apply_to_args, load

    _file_paths(args)
    args.typed = dict(vars(args))                  # what was typed, before the settings file fills any
    refuse_voice_flags(args)                       # typed on the command line, before the file fills any
    refuse_screen_flags(args, bool(args.screens))
    settings = load(args.config, named=args.config is not None)
    apply_to_args(settings, args, game=None if args.resume else find_game(args.game).name)  # flags win
    if not args.text:
        from .speech.loop import voice_play

        voice_play.voice_settings(args)  # bad --rate or --volume fail before the game starts
        check_voice(args.voice)          # and a voice espeak-ng does not have
        check_output_directory(args.speech_out, "--speech-out")
        args.recording = voice_play.open_recording(args)   # and an --audio-in that cannot be heard
    if args.screens and args.port is None:
        args.port = 8000
    if args.data_dir:
        import os

        os.environ["FACILITATOR_DATA_DIR"] = str(args.data_dir)
    from .hidden import check_private
    from .locks import lock_data_dir
    from .paths import data_dir

    lock_data_dir(data_dir())   # one facilitator per table: held until the process ends
    kept = False   # a log the player did not name, kept in the data directory
    if args.resume is NEWEST:
        args.resume = _newest_unfinished(find_game(args.game).name, args.log)
        print(f"facilitator: continuing the game in {args.resume}", file=sys.stderr, flush=True)
    if args.resume:
        if args.log and args.log != args.resume:
            raise OptionsError("--resume continues its own log; leave out --log")
        for flag in ("players", "names", "seed", *GAME_FLAGS):
            if getattr(args, flag) is not None:
                raise OptionsError(f"--{flag} cannot change a resumed game")
        session, reply, notes = Session.resume(args.resume, args.private, game=args.game,
                                               screens=bool(args.screens))
        for note in notes:
            print(f"facilitator: {note}", file=sys.stderr)
        if session.over:
            # its end is said again and its records and private messages were brought
            # up to the log (a crash may have come between them), but nothing is left to play
            session.log.close()
            textplay.show(reply, sys.stdout)
            raise LogError(f"the game in {str(args.resume)!r} is over; nothing to resume")
        try:
            check_private(session.referee.name, {"keeper": getattr(session.state, "keeper_kind", None)},
                          args.private, bool(args.screens))
        except OptionsError:
            session.log.close()
            raise
    else:
        names = [n.strip() for n in args.names.split(",")] if args.names else None
        if names is not None and (not all(names) or len({n.lower() for n in names}) != len(names)):
            raise OptionsError("--names needs distinct, non-empty names")
        options = _options(args)
        kept = args.log is None
        if kept:   # every game is logged, so that it can go on after EOF, "quit" or a crash
            from .lobby import GameStore

            args.log = GameStore(data_dir()).new_log(find_game(args.game).name)
        session, reply = Session.start(
            args.game, players=args.players, names=names, seed=args.seed, options=options,
            log_path=args.log, private_path=args.private, screens=bool(args.screens),
            check=lambda game, opts: check_private(game, opts, args.private, bool(args.screens)))
    log = session.log.path
    try:
        code = _run_session(session, reply, args)
    except StdoutError as exc:   # the log holds what could not be shown: say where it goes on
        raise WriteError(f"cannot write to standard output: {exc.reason}; the game is logged in "
                         f"{str(log)!r}; continue it with: {_resume_command(session, args, log)}") from None
    session.log.close()   # a clean stop (after a fault the log stays marked as not closed)
    if kept and not session.over:   # where it went: the player named no --log
        print(f"facilitator: the game is kept in {args.log}; continue it with: {_resume_command(session, args)}",
              file=sys.stderr)
    return code


#: flags that say how this table plays, kept in the command line that continues a game as
#: they were typed (the settings file fills the rest again); ``--audio-in`` is left out: the
#: recording was heard, and hearing it again would repeat its commands
RESUME_FLAGS = ("private", "screens", "lan", "port", "host", "result_seconds", "data_dir", "config",
                "input_device", "input_channel", "ptt_input", "output_device", "speech_out", "vosk_model",
                "second_engine", "second_model", "voices", "wake_phrase", "push_to_talk", "rate", "volume",
                "voice")


def _resume_command(session: Any, args: argparse.Namespace, log: Path | None = None) -> str:
    """The command line that continues this game: ``--resume`` (with ``log`` when given,
    else the newest unfinished game is found) and every flag typed that says how the table
    plays (``RESUME_FLAGS``), so that the screens come back on the port the phones know."""
    typed = getattr(args, "typed", None) or vars(args)
    words = ["facilitator", "play", session.referee.name]
    if args.text:
        words.append("--text")
    words.append("--resume")
    if log is not None:
        words.append(shlex.quote(str(log)))
    for dest in RESUME_FLAGS:
        value = typed.get(dest)
        if value is None or value is False:
            continue
        flag = "--" + dest.replace("_", "-")
        if value is True:
            words.append(flag)
        elif dest == "push_to_talk" and value == "key":
            words.append(flag)   # its bare form: a value after it would be read as GAME's
        else:
            words += [flag, shlex.quote(str(value))]
    return " ".join(words)


def _newest_unfinished(game: str, log: Path | str | None) -> Path:
    """``--resume`` without a log: the newest unfinished ``game`` in the data directory's
    ``games/`` (where ``play`` without ``--log`` and the lobby keep every game)."""
    from .lobby import GameStore
    from .paths import data_dir

    if log:
        raise OptionsError("--resume continues its own log; leave out --log")
    store = GameStore(data_dir())
    found = store.unfinished(lambda message: print(f"facilitator: {message}", file=sys.stderr), game=game)
    if found is None:
        raise OptionsError(f"no unfinished {game} game in {store.games}; name its log: --resume LOG")
    return found.log


def _run_session(session: Any, reply: Any, args: argparse.Namespace) -> int:
    from . import textplay

    if args.screens:
        from .screens.play import play_with_screens

        return play_with_screens(session, reply, args)
    if not args.text:
        from .speech.loop import voice_play

        return voice_play.run(session, reply, args)
    textplay.show(reply, sys.stdout)
    return textplay.run(session)


def _content_check(args: argparse.Namespace) -> int:
    import os

    from .content import check_all
    from .paths import CONTENT_ENV

    given = ("--content-dir", args.content_dir) if args.content_dir is not None else \
        (CONTENT_ENV, Path(os.environ[CONTENT_ENV])) if os.environ.get(CONTENT_ENV) else None
    if given is not None and not given[1].is_dir():   # a bad argument, not a content problem
        what = "does not exist" if not given[1].exists() else "is not a directory"
        raise OptionsError(f"{given[0]} {str(given[1])!r} {what}; it names a folder of decks like content/")

    report, problems = check_all(args.content_dir)
    for line in report:
        print(line)
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    if problems:
        print(f"{len(problems)} content problem(s)", file=sys.stderr)
        return 1
    print("content: all files valid")
    return 0


def _quiet_stdout() -> None:
    """After a failed write to stdout, point it at /dev/null so that Python's own flush at
    exit cannot add a traceback to the one line already said."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


def _stdout_usable() -> bool:
    import os

    try:
        os.fstat(1)
    except OSError:
        return False
    return sys.stdout is not None


def main(argv: list[str] | None = None) -> int:
    import signal

    if hasattr(signal, "SIGXFSZ"):   # a file-size limit: a write fails with EFBIG, not a kill
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if not _stdout_usable():
        # a closed stdout: a file opened next would take its descriptor and receive announcements
        print("facilitator: standard output is closed; run with stdout open (a terminal, a file or a pipe)",
              file=sys.stderr)
        return EXIT_BAD
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    _refuse_unknown(parser, args, extra)
    if args.command is None:   # a bare ``facilitator``: what it can do
        parser.print_help()
        return 0
    try:
        if args.command == "play":
            return _play(args)
        if args.command == "content":
            if args.action != "check":
                raise OptionsError("content needs an action: check [--content-dir DIR]")
            return _content_check(args)
        if args.command == "demo":
            from .cli_checks import DEMO_VOICE_FLAGS, refuse_voice_flags
            from .demo import run_demo

            refuse_voice_flags(args, DEMO_VOICE_FLAGS)

            return run_demo(seed=args.seed, text=args.text, speech_dir=args.speech_out, log_path=args.log,
                            mix_path=args.mix_out, use_speaker=not args.no_speaker)
        from .table_cli import COMMANDS as SERVICE_COMMANDS

        if args.command in SERVICE_COMMANDS:
            from .table_cli import run_command as run_service_command

            return run_service_command(args)
        from .speech.commands import COMMANDS as SPEECH_COMMANDS

        if args.command in SPEECH_COMMANDS:
            from .speech.commands import run_command as run_speech_command

            return run_speech_command(args)
        parser.print_help()
        return EXIT_BAD
    except FacilitatorError as exc:
        print(f"facilitator: {exc}", file=sys.stderr)
        _quiet_stdout()
        return EXIT_BAD
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except OSError as exc:   # a file the project does not name itself: still one line
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"facilitator: {exc.strerror or exc}{where}", file=sys.stderr)
        _quiet_stdout()
        return EXIT_BAD
    except RecursionError:
        print("facilitator: input nested too deeply", file=sys.stderr)
        return EXIT_BAD
    except ValueError as exc:  # find_game's unsupported game
        print(f"facilitator: {exc}", file=sys.stderr)
        return EXIT_BAD
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
