"""What sending a field would answer, shown while the player types (nothing is logged).

One check for both: the text goes through the same path Submit takes (the grammar's
parse, then the referee's ``decide``, both pure), and the answer is the same sentence
the session would give; only the log write is left out.  The game's screen says
whether the events it would log mean refused, noted or fine.
"""

from __future__ import annotations

import random
from typing import Any

from ..command import NotRecognized
from ..errors import IllegalCommandError
from ..events import Audience
from ..games.screen import screen_for
from ..session import Session, asked_not_told, unfit_line


def preview(session: Session, text: str, readers: frozenset[Audience]) -> dict[str, Any]:
    """``{"verdict": "refused" | "noted" | "ok", "text": ...}`` for the command ``text``;
    ``readers``: whose private lines the asking seat may read."""
    phrases, referee = session.phrases, session.referee
    refusal = unfit_line(text)      # the session's own checks of a typed line, before and after parsing
    if refusal is not None:
        return {"verdict": "refused", "text": phrases.say(refusal.key, **refusal.fields)}
    command = session.parse(text)
    if isinstance(command, NotRecognized):
        return {"verdict": "refused", "text": phrases.say("say-again")}
    refusal = asked_not_told(session, text, command)
    if refusal is not None:
        return {"verdict": "refused", "text": phrases.say(refusal.key, **refusal.fields)}
    try:
        events = referee.decide(session.state, command, random.Random(0))
    except IllegalCommandError as exc:
        return {"verdict": "refused", "text": phrases.say(exc.key, **exc.fields)}
    verdict, telling = screen_for(referee).judge(events)
    state, lines = session.state, []
    for event in events:
        state = referee.evolve(state, event)
        if event in telling and not event.public and event.audience in readers:
            said = referee.private_text(state, event, phrases)
            if said is not None:
                lines.append(said)
    return {"verdict": verdict, "text": " ".join(lines)}
