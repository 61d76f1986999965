"""What the players say next in each game: a simple scripted strategy per game.

Compass Code uses the demo crew's tactic (the best splitting guess, a bearing
check before a split final guess).  The other games pick, with a seeded random
generator, one of the commands that are legal now and that the game's own
grammar can say (any game intent, now and then a question such as "status"),
which is what a table of beginners does.  Clover's clues are written on the
players' screens, so the scripted table types them (``typed_opening``).
"""

from __future__ import annotations

import random

from facilitator.command import Command
from facilitator.errors import IllegalCommandError
from facilitator.session import CONFIRMATIONS, CONTROLS, LOBBY, Reply, Session
from facilitator.speech.loop.listen import ListenLoop

#: never said by the scripted players: leaving, restarting, and screen seats
AVOID = frozenset({"quit", "help", "read rules", "release seat", "repeat", "cancel"})
#: the line a seat says when the referee asks it to enrol ("Ann, say: I'm ready to play.")
ENROLL_LINE = "I'm ready to play"
#: a question now and then (the rest are game moves)
QUESTION_SHARE = 0.12
#: Clover's clue words per zone, in the order tried, made unique per seat with the seat's number
#: (a word that holds one of the seat's own keywords is refused: the next one is written)
CLUE_WORDS = {
    "top": ("harbor", "quarry", "glacier"),
    "right": ("orchard", "thimble", "canyon"),
    "bottom": ("meadow", "saddle", "lagoon"),
    "left": ("lantern", "biscuit", "tundra"),
}


def type_opening(game: str, session: Session) -> tuple[list[str], Reply | None]:
    """Type the lines a table types on its screens before talking (Clover's clues) into
    ``session``; a clue the rules refuse is written again with the next word, as a
    player does.  Returns the lines accepted, in order, and the last reply."""
    if game != "clover":
        return [], None
    from facilitator.games.clover.board import ZONES

    typed: list[str] = []
    reply: Reply | None = None
    for seat in range(1, session.state.players + 1):
        for zone in ZONES:
            for word in CLUE_WORDS[zone.value]:
                line = f"clue {seat} {zone.value} {word}{seat}"
                reply = session.handle(line)
                if not any(e.get("type") == "clue-refused" for e in reply.logged):
                    typed.append(line)
                    break
    return typed, reply


def next_command(game: str, session: Session, loop: ListenLoop, rng: random.Random) -> tuple[str, Command] | None:
    """(what to say, the command it means), or None when nothing can be said now."""
    if game == "compass-code" and rng.random() >= QUESTION_SHARE:
        from facilitator.demo import crew_line

        text = crew_line(session)
        parsed = session.parse(text, typed=False)
        if isinstance(parsed, Command):
            return text, parsed
    choices = legal_phrases(session, loop)
    if not choices:
        return None
    questions = {i: p for i, p in choices.items() if i in session.referee.queries}
    moves = {i: p for i, p in choices.items() if i not in session.referee.queries}
    pool = questions if (questions and (not moves or rng.random() < QUESTION_SHARE)) else moves
    intent = rng.choice(sorted(pool))
    return rng.choice(pool[intent])


def legal_phrases(session: Session, loop: ListenLoop) -> dict[str, list[tuple[str, Command]]]:
    """Spoken phrases of the grammar legal now, by intent, that the referee would accept."""
    out: dict[str, list[tuple[str, Command]]] = {}
    skip = CONTROLS | CONFIRMATIONS | LOBBY | AVOID
    for phrase in loop.recognition_grammar(None).phrases:
        parsed = session.parse(phrase, typed=False, narrow=True)
        if not isinstance(parsed, Command) or parsed.intent in skip:
            continue
        if parsed.intent not in session.referee.queries:
            try:
                session.referee.decide(session.state, parsed, random.Random(0))
            except IllegalCommandError:
                continue
        out.setdefault(parsed.intent, []).append((phrase, parsed))
    return out
