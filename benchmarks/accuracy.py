"""Decode every corpus clip in every condition, under the whole and the narrowed grammar.

*Whole*: the game's whole grammar with its recognition lists, parsed the way
``facilitator recognize`` does (``recognize_files``'s path, in process).
*Narrowed*: what the listen loop decodes with at the start of a game (the
commands legal then, the state's runtime lists); a command legal only later
(a keeper's totals, ``rewind``) is added to that set alone, and the answers to a
confirmation (``yes``, ``no``, ``cancel``) are decoded under the loop's
confirmation grammar, where they are heard.

A chatter clip is decoded under each game's grammars; an *accept* is any
decode that parses to a command.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from facilitator.command import Command
from facilitator.games import find_game
from facilitator.grammar import Grammar, load_grammar
from facilitator.speech.audio.devices import read_wav
from facilitator.speech.base import RecognitionGrammar
from facilitator.speech.engines.grammar_build import recognition_grammar
from facilitator.speech.loop.listen import CONFIRM_INTENTS

from .corpus import GAMES, Clip, babble_tracks, mix

CONDITIONS = ("clean", "babble-20", "babble-10", "babble-5", "white-20", "white-10", "white-5")
QUICK_CONDITIONS = ("clean", "babble-10", "white-10")


@dataclass(frozen=True)
class Row:
    clip: int
    condition: str
    grammar: str        # "whole" or "narrowed"
    game: str           # whose grammar decoded it
    got: str            # canonical command, "" when none
    text: str           # raw hypothesis
    seconds: float      # decode wall time
    audio_seconds: float
    snr_db: float


class _Grammars:
    """Per game: the whole decoding grammar and the start state's narrowed one."""

    def __init__(self) -> None:
        from facilitator.session import Session

        self.grammar: dict[str, Grammar] = {}
        self.whole_lists: dict[str, Any] = {}
        self.whole: dict[str, RecognitionGrammar] = {}
        self.legal: dict[str, frozenset[str]] = {}
        self.lists: dict[str, Any] = {}
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["FACILITATOR_DATA_DIR"] = tmp   # a start must not touch the user's record
            for game in GAMES:
                grammar = load_grammar(game)
                self.grammar[game] = grammar
                self.whole_lists[game] = find_game(game).recognition_lists() or None
                self.whole[game] = recognition_grammar(grammar, lists=self.whole_lists[game])
                session, _ = Session.start(game, seed=1)
                self.legal[game] = frozenset(session.legal_intents())
                self.lists[game] = session.referee.runtime_lists(session.state) or None
                session.log.close()

    def narrowed(self, game: str, clip: Clip) -> tuple[RecognitionGrammar, Any]:
        if clip.intent in CONFIRM_INTENTS - {"repeat"}:
            intents = CONFIRM_INTENTS
        else:
            intents = self.legal[game] | ({clip.intent} if clip.intent else set())
        lists = self.lists[game]
        grammar = self.grammar[game]
        if clip.want and not isinstance(grammar.parse(clip.text, typed=False, intents=intents, lists=lists),
                                        Command):
            lists = self.whole_lists[game]   # a name or tile not dealt in this state
        return recognition_grammar(grammar, intents=sorted(intents), lists=lists), lists


_worker: dict[str, Any] = {}


def _init(directory: str, clips: list[Clip], options: dict[str, Any]) -> None:
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

    _worker["dir"] = Path(directory)
    _worker["clips"] = clips
    _worker["babble"] = babble_tracks(Path(directory))
    _worker["grammars"] = _Grammars()
    _worker["recognizer"] = PocketsphinxRecognizer(**options)


def _task(job: tuple[int, str]) -> list[Row]:
    index, condition = job
    clip: Clip = _worker["clips"][index]
    grammars: _Grammars = _worker["grammars"]
    recognizer = _worker["recognizer"]
    kind, _, snr = condition.partition("-")
    pcm = read_wav(_worker["dir"] / "clean" / clip.file)
    pcm, measured = mix(pcm, kind, float(snr or 0), seed=index * 31 + len(condition), babble=_worker["babble"])
    audio_seconds = len(pcm) / 32_000
    games = [clip.game] if clip.want else list(GAMES)
    rows = []
    for game in games:
        grammar = grammars.grammar[game]
        for name in ("whole", "narrowed"):
            if name == "whole":
                decoding, lists = grammars.whole[game], grammars.whole_lists[game]
            else:
                decoding, lists = grammars.narrowed(game, clip)
            began = time.perf_counter()
            hyp = recognizer.decode(pcm, decoding)
            seconds = time.perf_counter() - began
            parsed = grammar.parse(hyp.text, typed=False, lists=lists) if hyp else None
            got = parsed.canonical if isinstance(parsed, Command) else ""
            rows.append(Row(index, condition, name, game, got, hyp.text if hyp else "", seconds,
                            audio_seconds, measured))
    return rows


def decode_all(directory: Path, clips: list[Clip], conditions: tuple[str, ...], workers: int = 2,
               options: dict[str, Any] | None = None) -> Iterator[Row]:
    """Every (clip, condition) decoded in ``workers`` processes."""
    jobs = [(i, c) for c in conditions for i in range(len(clips))]
    ctx = get_context("spawn")
    with ctx.Pool(workers, initializer=_init, initargs=(str(directory), clips, options or {})) as pool:
        for rows in pool.imap_unordered(_task, jobs, chunksize=8):
            yield from rows
