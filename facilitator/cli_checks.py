"""Flags given where they do nothing: one line and exit 2, never silence.

A flag that does not apply to what was asked (``--rate`` with ``--text``, ``--lan``
without ``--screens``) is refused before anything starts, so a table never plays
believing it set something.  Only flags typed on the command line are judged: the
settings file may hold voice keys that a ``--text`` game simply does not use.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path

from .errors import OptionsError

#: the flags of voice play (``play`` and ``serve`` without ``--text``)
VOICE_FLAGS = ("audio_in", "input_device", "input_channel", "ptt_input", "output_device", "speech_out",
               "vosk_model", "second_engine", "second_model", "voices", "wake_phrase", "push_to_talk", "rate",
               "volume", "voice", "array")
#: the flags of the screens
SCREEN_FLAGS = ("lan", "port", "host", "result_seconds")
#: the demo's flags for its voices, which ``demo --text`` has none of
DEMO_VOICE_FLAGS = ("speech_out", "mix_out", "no_speaker")


def flag_name(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def given(args: argparse.Namespace, dest: str) -> bool:
    return getattr(args, dest, None) not in (None, False)


def refuse_voice_flags(args: argparse.Namespace, flags: tuple[str, ...] = VOICE_FLAGS) -> None:
    """With ``--text`` a voice flag does nothing: say so."""
    if not args.text:
        return
    for dest in flags:
        if given(args, dest):
            raise OptionsError(f"{flag_name(dest)} is for voice play, not --text: leave one of them out")


def refuse_screen_flags(args: argparse.Namespace, screens: bool) -> None:
    """Without the screens a screen flag does nothing: say so."""
    if screens:
        return
    for dest in SCREEN_FLAGS:
        if given(args, dest):
            raise OptionsError(f"{flag_name(dest)} is for the screens: add --screens")


def check_voice(name: str | None) -> None:
    """An espeak-ng voice it does not know would speak nothing: refuse it by name.

    When espeak-ng is missing nothing can be told here (the speaker then says why)."""
    program = shutil.which("espeak-ng")
    if not name or program is None:
        return
    try:
        probe = subprocess.run([program, "-q", "-v", name, ""], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return
    if probe.returncode != 0:
        raise OptionsError(f"espeak-ng has no voice {name!r} (espeak-ng --voices lists them)")


def check_output_directory(path: Path | None, flag: str) -> None:
    """A directory the game will write into (``--speech-out``): refused before the game is
    written when it is a file, or lies under one, or cannot be written."""
    if path is None:
        return
    if path.exists() and not path.is_dir():
        raise OptionsError(f"{flag} {str(path)!r} is a file; it needs a directory (made when missing)")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        raise OptionsError(f"{flag} {str(path)!r} cannot be made: {str(existing)!r} is a file")
    if existing.exists() and not os.access(existing, os.W_OK | os.X_OK):
        raise OptionsError(f"{flag} {str(path)!r} cannot be written: {str(existing)!r} is read-only for this user")
