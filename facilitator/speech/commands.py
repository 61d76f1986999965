"""The speech subcommands of the command line: ``recognize``, ``devices``, ``models``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import OptionsError

COMMANDS = ("recognize", "understand", "devices", "models")


def add_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the speech subcommands to the ``facilitator`` parser."""
    recognize = sub.add_parser("recognize", help="recognize WAV files: one JSON object a line")
    recognize.add_argument("--game", required=True, metavar="GAME", help="the game whose grammar to use")
    recognize.add_argument("--vosk-model", metavar="DIR",
                           help="decode with this Vosk model (default: pocketsphinx)")
    recognize.add_argument("--second-engine", choices=("auto", "off", "always"), metavar="MODE",
                           help="Whisper beside pocketsphinx: auto (always when installed), off or always "
                                "(see docs/speech.md)")
    recognize.add_argument("files", nargs="+", type=Path, metavar="FILE.wav")

    understand = sub.add_parser("understand", help="how typed lines are understood: one JSON object a line")
    understand.add_argument("--game", required=True, metavar="GAME", help="the game whose grammar to use")
    understand.add_argument("--asked", action="store_true",
                            help="read the lines as answers to an open question (yes, no, cancel, repeat)")
    understand.add_argument("lines", nargs="*", metavar="LINE",
                            help="lines as a player would type or say them (none: one a line from stdin)")

    sub.add_parser("devices", help="list audio input and output devices")

    models = sub.add_parser("models", help="install optional recognition models")
    models_sub = models.add_subparsers(dest="action", metavar="ACTION")
    install = models_sub.add_parser("install", help="download (or unzip) and verify a model")
    install.add_argument("name", metavar="NAME", help="vosk-small-en")
    install.add_argument("--from", dest="from_zip", type=Path, metavar="FILE.zip",
                         help="install from a zip fetched elsewhere instead of downloading")


def run_command(args: argparse.Namespace) -> int:
    """Run a speech subcommand; FacilitatorError goes up to the CLI's one-line report."""
    if args.command == "recognize":
        return _recognize(args)
    if args.command == "understand":
        return _understand(args)
    if args.command == "devices":
        return _devices()
    if args.command == "models":
        if args.action != "install":
            raise OptionsError("models needs an action: install NAME [--from FILE.zip]")
        from .engines.models import install_model

        target = install_model(args.name, from_zip=args.from_zip, progress=sys.stderr)
        print(f"installed {args.name} in {target}")
        print(f"use it with: --vosk-model {target}  (or VOSK_MODEL_PATH={target})")
        return 0
    raise OptionsError(f"unknown command {args.command!r}")


def _recognize(args: argparse.Namespace) -> int:
    from ..games import find_game
    from .engines.recognize import make_recognizer, recognize_files

    game = find_game(args.game).name
    recognizer = make_recognizer(args.vosk_model, second_engine=args.second_engine,
                                 warn=lambda message: print(f"facilitator: {message}", file=sys.stderr))
    for row in recognize_files(game, args.files, recognizer):
        print(json.dumps(row, ensure_ascii=False), flush=True)
    return 0


#: what an open question takes (the listen loop's answers)
ANSWERS = frozenset({"yes", "no", "cancel", "repeat"})


def _understand(args: argparse.Namespace) -> int:
    """Each line: the command and how it was found (the grammar, or meaning with its score),
    under the whole game's grammar (as ``recognize``), or as an answer (``--asked``)."""
    from ..games import find_game
    from ..grammar import load_grammar
    from ..meaning import stage_for, understand

    game = find_game(args.game).name
    grammar = load_grammar(game)
    lists = find_game(game).recognition_lists() or None
    stage = stage_for(game)
    lines = args.lines or [line.rstrip("\n") for line in sys.stdin]
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        found = understand(line, grammar=grammar, meaning=stage, lists=lists, answers=args.asked,
                           intents=ANSWERS if args.asked else None)
        print(json.dumps({"line": line, **found.to_json()}, ensure_ascii=False), flush=True)
    return 0


def _devices() -> int:
    from .audio.devices import list_devices

    devices = list_devices()
    if not devices:
        print("no audio devices found")
        return 0
    for d in devices:
        roles = []
        if d["inputs"]:
            roles.append(f"in {d['inputs']}ch" + (" (default)" if d["default_input"] else ""))
        if d["outputs"]:
            roles.append(f"out {d['outputs']}ch" + (" (default)" if d["default_output"] else ""))
        print(f"{d['index']:3d}  {d['name']}  [{', '.join(roles)}]  {d['default_rate']} Hz")
    return 0
