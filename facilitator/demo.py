"""``facilitator demo``: a self-playing Compass Code voyage, in text.

A small scripted crew plays against the real referee through the real session:
each captain says a guess in the grammar's own words, and the crew uses the
bearing check when the candidates are still split before the final guess.  The
crew is a player, not the assistant: the assistant never suggests a guess.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import IO

from .games.compass_code import ALL_ROUTES, feedback
from .session import Session


def best_guess(candidates: list[str]) -> str:
    """The route whose worst-case feedback leaves the fewest candidates (a crew's tactic)."""
    if len(candidates) <= 2:
        return candidates[0]

    def worst(guess: str) -> tuple[int, bool]:
        split = Counter(feedback(guess, c) for c in candidates)
        return max(split.values()), guess not in candidates

    return min(ALL_ROUTES, key=worst)


def crew_line(session: Session) -> str:
    """What the crew says next, in the grammar's spoken words."""
    referee = session.referee
    state = session.state
    cands = referee.candidates(state)  # type: ignore[attr-defined]
    final = state.guess == state.max_guesses
    if final and len(cands) > 1 and state.has_check and state.check is None:
        route = cands[0]
        for position in range(4):
            if len({c[position] for c in cands}) > 1:
                canonical = f"check {route[position]} {position + 1}"
                break
    else:
        canonical = f"send {best_guess(cands)}"
    phrase = session.grammar.render(canonical)
    return phrase or canonical


def run_demo(seed: int = 7, out: IO[str] | None = None, players: int = 4) -> int:
    out = out or sys.stdout
    session, reply = Session.start("compass-code", players=players, seed=seed)
    for line in reply.public:
        out.write(line + "\n")
    turns = 0
    while not session.over and turns < 60:
        turns += 1
        captain = session.state.name(session.state.captain)
        if session.state.scored:
            asked = session.grammar.render("candidates") or "candidates"
            out.write(f"  {captain}: {asked}\n")
            for line in session.handle(asked).public:
                out.write(line + "\n")
        said = crew_line(session)
        out.write(f"  {captain}: {said}\n")
        for line in session.handle(said).public:
            out.write(line + "\n")
    out.flush()
    return 0
