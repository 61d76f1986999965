"""What each seat may do now: the buttons and forms of a screen, from the game.

A control turns into the same canonical command a player would type (invariant 5):
the screen posts the control's id and its fields, and the server builds the text
from the control, so a seat can only send what its screen offers.

The game's screen (``facilitator.games.screen``) gives its own controls and says who
may act; on top of them, every command the game's grammar can say without a value
(``pass``, ``commit``, ``more``...) that is legal now gets a button, so a new
command of a game gets a button without any change here.  Questions (status,
help, the game's read-outs) are everyone's.
"""

from __future__ import annotations

from dataclasses import replace

from ..games.screen import Control, Field, GameScreen, screen_for
from ..session import Session
from .labels import labels

__all__ = ["Control", "Field", "find", "prompt", "seat_controls", "table_controls"]

#: common questions every screen offers (the ``ALWAYS`` ones always; the others while legal)
COMMON_QUERIES = ("repeat", "go on", "status", "help", "read rules")
#: offered whatever the game's state: repeat, and "go on" (the rest of a long answer)
ALWAYS = frozenset({"repeat", "go on"})
#: common commands that are never buttons: voice settings, confirmations, the lobby's
NOT_BUTTONS = frozenset({"yes", "no", "cancel", "louder", "softer", "slower", "faster",
                         "stop listening", "start listening", "new game", "resume", "quit",
                         "release seat"})


def _slotless(session: Session) -> dict[str, str]:
    """intent -> its canonical text, for the commands the grammar only ever says with no
    value (an intent that also takes values, like "feedback 4 0", gets the game's form)."""
    out: dict[str, str] = {}
    valued = {form.intent for form in session.grammar.forms if "{" in form.output}
    for form in session.grammar.forms:
        if form.intent not in valued and form.intent not in out:
            out[form.intent] = form.output
    return out


def _derived(session: Session, screen: GameScreen, taken: set[str], legal: set[str],
             queries: bool, seat: int | None) -> list[Control]:
    """Buttons for the legal commands without values that the game's controls do not
    already cover: its questions (``queries``) or its moves (for seats that may act)."""
    out: list[Control] = []
    referee, state = session.referee, session.state
    common = session.grammar.common_intents
    for intent, output in _slotless(session).items():
        if intent in taken or intent in NOT_BUTTONS or intent not in legal or intent in common:
            continue
        if (intent in referee.queries) != queries:
            continue
        if seat is not None and not queries and not screen.may_act(state, seat, intent):
            continue
        out.append(Control(intent.replace(" ", "-"), screen.control_label(intent, output), output,
                           intent=intent))
    return out


def _queries(session: Session, screen: GameScreen, legal: set[str]) -> list[Control]:
    words = labels()["controls"]
    out = [Control(q.replace(" ", "-"), words[q], q, intent=q)
           for q in COMMON_QUERIES if q in ALWAYS or q in legal]
    games = screen.query_controls(session.state, legal)
    taken = {c.intent for c in out + games}
    found = out + _derived(session, screen, taken, legal, True, None) + games
    # questions are marked: a phone folds them behind one control
    return [replace(c, extra={**c.extra, "query": True}) for c in found]


def seat_controls(session: Session, seat: int) -> list[Control]:
    """The controls seat ``seat`` has now (game moves first, then the questions)."""
    referee, state = session.referee, session.state
    if referee.is_over(state):
        return []
    legal = referee.legal_intents(state)
    screen = screen_for(referee)
    moves = screen.seat_controls(state, seat, legal)
    moves += _derived(session, screen, {c.intent for c in moves}, legal, False, seat)
    return moves + _queries(session, screen, legal) + _voice(session, seat)


def _voice(session: Session, seat: int) -> list[Control]:
    """With voice turns on (docs/speakers.md): "Learn my voice" asks this seat to speak
    its line to the table's microphone (the typed ``enrol N``)."""
    if not getattr(session, "learns_voices", False):
        return []
    return [Control("enrol", labels()["controls"]["enrol"], f"enrol {seat}", intent="enrol")]


def table_controls(session: Session) -> list[Control]:
    """The table screen's moves (those the game makes there) and the questions."""
    referee, state = session.referee, session.state
    if referee.is_over(state):
        return []
    legal = referee.legal_intents(state)
    screen = screen_for(referee)
    moves = screen.table_controls(state, legal)
    if moves:   # a game that moves from the table gets its plain commands there too (commit)
        taken = {c.intent for c in moves}
        moves += [c for c in _derived(session, screen, taken, legal, False, None)]
    return moves + _queries(session, screen, legal)


def find(controls: list[Control], control_id: str) -> Control | None:
    return next((c for c in controls if c.id == control_id), None)


def prompt(session: Session, seat: int) -> str | None:
    """Whose move it is, for the seat's assertive live region (None: not this seat's)."""
    referee, state = session.referee, session.state
    if referee.is_over(state):
        return None
    return screen_for(referee).prompt(state, seat)


def check_field(controls: list[Control], control_id: str) -> tuple[Control, Field] | None:
    """The control and its checked text field, when ``control_id`` has one."""
    control = find(controls, control_id)
    if control is None:
        return None
    field = next((f for f in control.fields if f.check), None)
    return (control, field) if field is not None else None

