"""Choosing a recognizer, and ``facilitator recognize`` over WAV files.

The default is pocketsphinx (its wheel carries the English model, so nothing is
downloaded).  Vosk is used when a model directory is given (``--vosk-model`` or
``$VOSK_MODEL_PATH``); a missing or broken one gives one warning and falls back.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ...command import Command
from ...errors import ModelError, OptionsError
from ...games import find_game
from ...grammar import load_grammar
from ..audio.devices import read_wav
from ..base import RecognitionGrammar, Recognizer
from .grammar_build import recognition_grammar
from .hybrid import MODES, HybridRecognizer
from .pocketsphinx_engine import PocketsphinxRecognizer
from .whisper_model import NOT_INSTALLED

VOSK_ENV = "VOSK_MODEL_PATH"
SECOND_ENGINE_ENV = "FACILITATOR_SECOND_ENGINE"


def _ignore(message: str) -> None:
    pass


def make_recognizer(vosk_model: str | Path | None = None,
                    warn: Callable[[str], None] = _ignore, second_engine: str | None = None,
                    second_model: str | None = None, threads: int | None = None) -> Recognizer:
    """Vosk on ``vosk_model`` (else ``$VOSK_MODEL_PATH``) when given, else pocketsphinx.

    A Vosk model that cannot be used is reported once through ``warn`` and the
    pocketsphinx recognizer is returned instead.  ``second_engine`` (``auto``,
    ``off``, ``always``; None or ``auto``: ``$FACILITATOR_SECOND_ENGINE`` when
    set, else ``auto``) adds Whisper beside pocketsphinx, see ``second_engine_recognizer``;
    ``second_model`` is its model (``tiny``, the default, or ``base``), ``threads`` its CPU
    threads (None: the board's cores, up to four).
    """
    path = vosk_model or os.environ.get(VOSK_ENV) or None
    if path:
        from .vosk_engine import VoskRecognizer

        try:
            return VoskRecognizer(path)
        except ModelError as exc:
            warn(f"{exc}; using pocketsphinx instead")
    mode = second_engine or "auto"
    if mode == "auto":   # the environment may settle what the settings left to auto
        mode = os.environ.get(SECOND_ENGINE_ENV) or "auto"
    return second_engine_recognizer(mode, warn, second_model or "tiny", threads)


def second_engine_recognizer(mode: str, warn: Callable[[str], None] = _ignore, model: str = "tiny",
                             threads: int | None = None) -> Recognizer:
    """pocketsphinx, with Whisper beside it as ``mode`` says (``hybrid.py``).

    ``auto`` means ``always`` when the optional ``whisper`` extra is installed and
    pocketsphinx alone, silently, when it is not (the light mode).  A model
    whose files are altered, or an explicit ``always`` without the
    extra, is reported once through ``warn`` and pocketsphinx answers alone.
    """
    if mode not in ("auto", *MODES):
        raise OptionsError(f"unknown second engine {mode!r} (auto, {', '.join(MODES)})")
    if mode == "off":
        return PocketsphinxRecognizer()
    try:
        from .whisper_engine import WhisperRecognizer

        whisper = WhisperRecognizer(model=model, threads=threads)
    except ModelError as exc:
        if mode != "auto" or not str(exc).startswith(NOT_INSTALLED):
            warn(f"{exc}; using pocketsphinx alone")
        return PocketsphinxRecognizer()
    return HybridRecognizer("always", whisper=whisper)


def completion_check(recognizer: Recognizer,
                     grammar: Callable[[], RecognitionGrammar]) -> Callable[[bytes], bool] | None:
    """A ``complete`` callback for ``Endpointer``: does the audio so far hold a whole command?

    ``grammar()`` gives the grammar of the current state at each pause.  None
    when the recognizer cannot tell (Vosk here), so the endpointer waits for
    the full silence as before.
    """
    is_complete = getattr(recognizer, "is_complete", None)
    if is_complete is None:
        return None
    return lambda pcm: bool(is_complete(pcm, grammar()))


def recognize_files(game: str, paths: Iterable[str | Path], recognizer: Recognizer) -> list[dict[str, Any]]:
    """One ``{"file", "text", "command", "by"}`` per WAV file, under the whole game's grammar.

    ``text`` is the recognizers' phrase (empty when they chose none); when it is no
    command and a free transcriber wrote words (``free``: both engines), the meaning stage
    places them as play would for a line from the table's microphone with no word to the
    referee (``by = "meaning"``, with its ``score`` and ``margin``: play asks such a
    command, never applies it as heard).  Every file is read first, so a file
    that is not a WAV stops the run with a SpeechError naming it before anything is decoded.
    """
    from ...meaning import stage_for, understand

    grammar = load_grammar(game)
    lists = find_game(game).recognition_lists() or None   # runtime values, e.g. catalogue names
    decoding = recognition_grammar(grammar, lists=lists)
    clips = [(str(path), read_wav(path)) for path in paths]
    out = []
    for name, pcm in clips:
        hyp = recognizer.decode(pcm, decoding)
        text = hyp.text if hyp is not None else ""
        parsed = grammar.parse(text, typed=False, lists=lists) if text else None
        command = parsed.canonical if isinstance(parsed, Command) else None
        row: dict[str, Any] = {"file": name, "text": text, "command": command,
                               "by": "grammar" if command is not None else None}
        free = hyp.free if hyp is not None else ()
        if free:
            row["free"] = free[0]
        if command is None and free:
            # as heard at the table's microphone, with no word to the referee (the stricter limit)
            found = understand(free[0], grammar=grammar, meaning=stage_for(game), typed=False, lists=lists,
                               addressed=False)
            row.update(found.to_json())
        out.append(row)
    return out
