"""Meaning beside the templates: what a table says in its own words, placed among the
commands legal now, to be asked ("Did you mean ...?"), never applied by itself.

``understand`` is the one entry point: the grammar first (``by = "grammar"``), then the
meaning stage (``by = "meaning"``, with its score and margin) for a line the grammar
does not parse.  ``stage_for(game)`` gives a game's stage, made once a process.
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path

from ..grammar import load_grammar
from ..paths import cache_dir, grammars_dir
from .stage import DEFAULT, Limits, MeaningStage, Placed
from .understand import TAKEN_BY_MEANING, Understood, understand

__all__ = ["DEFAULT", "TAKEN_BY_MEANING", "Limits", "MeaningStage", "Placed", "Understood", "stage_for", "understand",
           "warm"]

_made = threading.Lock()


@cache
def _stage(game: str, directory: str) -> MeaningStage:
    from ..games import find_game
    from .encoder import EncoderMissing, model_dir, shared

    grammar = load_grammar(game, Path(directory))
    lists = find_game(game).recognition_lists() or None
    try:
        folder = model_dir()
        encoder_id = f"minilm-{(folder / 'model.safetensors').stat().st_size}"
        encode = shared().encode
    except (EncoderMissing, OSError):
        encode, encoder_id = None, ""
    return MeaningStage(game, grammar, lists, cache=cache_dir() / "meaning", encode=encode,
                        encoder_id=encoder_id)


def warm(stage: MeaningStage | None) -> None:
    """Train (or read back) ``stage``'s model in a thread of its own, so the first line the
    grammar does not parse is not kept waiting (a model trained afresh takes seconds)."""
    if stage is not None:
        threading.Thread(target=stage.model, name="facilitator-meaning", daemon=True).start()


def stage_for(game: str) -> MeaningStage:
    """``game``'s meaning stage (the sentence encoder when its package is installed, the
    words alone otherwise)."""
    with _made:
        return _stage(game, str(grammars_dir()))
