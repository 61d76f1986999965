"""The ``facilitator`` command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .command import GAMES
from .errors import FacilitatorError, LogError, OptionsError
from .games import find_game

EXIT_BAD = 2


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
        if value is not None:
            check_regular(value, what)
    if args.data_dir is not None and args.data_dir.exists() and not args.data_dir.is_dir():
        raise OptionsError(f"--data-dir {str(args.data_dir)!r} is not a directory")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="facilitator", description="An offline voice referee for party games.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="referee a game (voice, or --text)")
    play.add_argument("game", metavar="GAME", help=", ".join(GAMES))
    play.add_argument("--text", action="store_true", help="read utterances from stdin, print announcements")
    play.add_argument("--players", type=int, help="number of players")
    play.add_argument("--names", help="comma-separated player names, seat 1 first")
    play.add_argument("--seed", type=int, help="make every draw reproducible")
    play.add_argument("--log", type=_path, help="write the event log (JSON Lines) here")
    play.add_argument("--resume", type=_path, metavar="LOG", help="continue the game logged in LOG")
    play.add_argument("--private", type=_path, metavar="PATH", help="append private messages here")
    play.add_argument("--screens", action="store_true",
                      help="serve the table screen and private seat screens (a local web app)")
    play.add_argument("--lan", action="store_true", help="with --screens: serve the local network too")
    play.add_argument("--port", type=int, default=8000, help="with --screens: the port (default 8000)")
    play.add_argument("--host", metavar="ADDRESS",
                      help="with --screens --lan: the address phones use (default: this machine's LAN address)")
    play.add_argument("--result-seconds", type=int, metavar="SECONDS",
                      help="with --screens: how long the screens show the result after the game's end "
                           "(default 300; 0: close at once; quit or Ctrl-C closes them sooner)")
    play.add_argument("--data-dir", type=_path, help="the table's data directory")
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
    demo.add_argument("--seed", type=int, default=7)
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
    from .session import Session
    from .settings import apply_to_args, load

    _file_paths(args)
    apply_to_args(load(), args, game=None if args.resume else find_game(args.game).name)  # flags win
    if not args.text:
        from .speech.loop import voice_play

        voice_play.voice_settings(args)  # bad --rate or --volume fail before the game starts
    if args.data_dir:
        import os

        os.environ["FACILITATOR_DATA_DIR"] = str(args.data_dir)
    from .hidden import check_private
    from .locks import lock_data_dir
    from .paths import data_dir

    lock_data_dir(data_dir())   # one facilitator per table: held until the process ends
    if args.resume:
        if args.log and args.log != args.resume:
            raise OptionsError("--resume continues its own log; leave out --log")
        for flag in ("players", "names", "seed", *GAME_FLAGS):
            if getattr(args, flag) is not None:
                raise OptionsError(f"--{flag} cannot change a resumed game")
        session, reply, notes = Session.resume(args.resume, args.private, game=args.game)
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
        session, reply = Session.start(
            args.game, players=args.players, names=names, seed=args.seed, options=options,
            log_path=args.log, private_path=args.private,
            check=lambda game, opts: check_private(game, opts, args.private, bool(args.screens)))
    code = _run_session(session, reply, args)
    session.log.close()   # a clean stop (after a fault the log stays marked as not closed)
    return code


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
    from .content import check_all

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
    args = parser.parse_args(argv)
    try:
        if args.command == "play":
            return _play(args)
        if args.command == "content" and args.action == "check":
            return _content_check(args)
        if args.command == "demo":
            from .demo import run_demo

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
