"""The ``facilitator`` command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .errors import FacilitatorError, OptionsError
from .games import GAMES, find_game

EXIT_BAD = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="facilitator", description="An offline voice referee for party games.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help="referee a game (voice, or --text)")
    play.add_argument("game", metavar="GAME", help=", ".join(GAMES))
    play.add_argument("--text", action="store_true", help="read utterances from stdin, print announcements")
    play.add_argument("--players", type=int, help="number of players")
    play.add_argument("--names", help="comma-separated player names, seat 1 first")
    play.add_argument("--seed", type=int, help="make every draw reproducible")
    play.add_argument("--log", type=Path, help="write the event log (JSON Lines) here")
    play.add_argument("--resume", type=Path, metavar="LOG", help="continue the game logged in LOG")
    play.add_argument("--private", type=Path, metavar="PATH", help="append private messages here")
    play.add_argument("--screens", action="store_true",
                      help="serve the table screen and private seat screens (a local web app)")
    play.add_argument("--lan", action="store_true", help="with --screens: serve the local network too")
    play.add_argument("--port", type=int, default=8000, help="with --screens: the port (default 8000)")
    play.add_argument("--data-dir", type=Path, help="the table's data directory")
    play.add_argument("--mode", help="compass-code: standard, gentle or tight")
    play.add_argument("--keeper", help="compass-code: machine or human")
    play.add_argument("--routes", help="compass-code: three routes (ESNW,NESW,WSEN); lantern-links: card numbers")
    play.add_argument("--pool", action="store_true", default=None, help="lantern-links: shared-pool variant")
    play.add_argument("--packets", help="two-windows: six packet numbers (1,8,13,4,17,10)")
    play.add_argument("--practice", action="store_true", default=None,
                      help="two-windows: one round on the practice catalogue")
    play.add_argument("--extra", type=int, help="clover: extra cards at resolution, 1 to 4")
    from .speech.voice_play import add_arguments as add_voice_arguments

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
    demo.add_argument("--log", type=Path, help="write the event log (JSON Lines) here")
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

    apply_to_args(load(), args, game=None if args.resume else find_game(args.game).name)  # flags win
    if not args.text:
        from .speech import voice_play

        voice_play.voice_settings(args)  # bad --rate or --volume fail before the game starts
    if args.data_dir:
        import os

        os.environ["FACILITATOR_DATA_DIR"] = str(args.data_dir)
    if args.resume:
        if args.log and args.log != args.resume:
            raise OptionsError("--resume continues its own log; leave out --log")
        for flag in ("players", "names", "seed", *GAME_FLAGS):
            if getattr(args, flag) is not None:
                raise OptionsError(f"--{flag} cannot change a resumed game")
        session, reply, notes = Session.resume(args.resume, args.private, game=args.game)
        if not args.text and not args.screens:
            voice_play.check_private(session.referee.name, voice_play.resumed_options(session), args.private)
        for note in notes:
            print(f"facilitator: {note}", file=sys.stderr)
    else:
        names = [n.strip() for n in args.names.split(",")] if args.names else None
        if names is not None and (not all(names) or len(set(n.lower() for n in names)) != len(names)):
            raise OptionsError("--names needs distinct, non-empty names")
        options = _options(args)
        if not args.text and not args.screens:
            voice_play.check_private(find_game(args.game).name, options, args.private)
        session, reply = Session.start(args.game, players=args.players, names=names, seed=args.seed,
                                       options=options, log_path=args.log,
                                       private_path=args.private)
    if args.screens:
        from .screens.play import play_with_screens

        return play_with_screens(session, reply, args)
    if not args.text:
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


def main(argv: list[str] | None = None) -> int:
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
        return EXIT_BAD
    except ValueError as exc:  # find_game's unsupported game
        print(f"facilitator: {exc}", file=sys.stderr)
        return EXIT_BAD
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
