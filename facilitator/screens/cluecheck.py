"""Clover clue feedback as the player types, before anything is submitted.

The same pure check the referee applies on submit (``check_clue`` against the
seat's own sixteen board words), said with the referee's own phrases.  It reads
the state only: nothing is logged until the player presses Submit.
"""

from __future__ import annotations

from typing import Any

from ..games.clover.board import all_words
from ..games.clover.clues import check_clue
from ..games.clover.referee import Clover
from ..session import Session

ZONES = ("top", "right", "bottom", "left")
MAX_CLUE = 60


def preview(session: Session, seat: int, zone: str, clue: str) -> dict[str, Any] | None:
    """``{"verdict": "refused" | "noted" | "ok", "text": ...}``; None when no clue can be
    written now (another game, clues closed, an unknown zone or seat)."""
    referee, state = session.referee, session.state
    if (not isinstance(referee, Clover) or "clue" not in referee.legal_intents(state) or zone not in ZONES
            or seat not in state.boards or len(clue) > MAX_CLUE):
        return None
    verdict = check_clue(clue, all_words(state.boards[seat]), referee.words_known())
    fields = {"clue": clue, "zone": zone}
    if verdict.refused is not None:
        text = session.phrases.say(f"cl-refused-{verdict.refused.value}", word=verdict.word or "", **fields)
        return {"verdict": "refused", "text": text}
    if verdict.notes:
        texts = [session.phrases.say(f"cl-noted-{note.kind.value}", word=note.word or "", **fields)
                 for note in verdict.notes]
        return {"verdict": "noted", "text": " ".join(texts)}
    return {"verdict": "ok", "text": ""}
