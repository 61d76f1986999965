"""What each seat may do now: the buttons and forms of a private screen.

A control turns into the same canonical command a player would type (invariant 5):
the screen posts the control's id and its fields, and the server builds the text
from the control's ``template``, so a seat can only send what its screen offers.
Who may act follows the table: the captain sends, the keeper gives totals, an
informant team locks its fact, the decoder answers, the current Lantern player
plays, each Clover seat writes its own clues and the committer moves the cards.
Queries are everyone's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..session import Session

DIRECTIONS = ("N", "E", "S", "W")
MAX_CLUE = 60
ZONES = ("top", "right", "bottom", "left")
SLOTS = ("top-left", "top-right", "bottom-right", "bottom-left")


@dataclass(frozen=True)
class Field:
    """One input of a form: a choice among ``options`` (value, shown), or free text.
    ``label`` is a key of ``labels.toml``."""

    name: str
    label: str
    options: tuple[tuple[str, str], ...] = ()
    text: bool = False


@dataclass(frozen=True)
class Control:
    """One button (no fields), one form (fields), or a row of ``choices`` buttons.
    ``label`` is a key of ``labels.toml`` (screen words live there, not in code).

    ``template`` is the canonical command with ``{field}`` holes; for choices each
    choice carries its own complete command."""

    id: str
    label: str
    template: str = ""
    fields: tuple[Field, ...] = ()
    choices: tuple[tuple[str, str], ...] = ()   # (label, command)
    kind: str = "button"
    extra: dict[str, Any] = field(default_factory=dict)

    def command(self, values: dict[str, str]) -> str | None:
        """The command text for posted ``values``; None when a value is not offered."""
        if self.choices:
            try:
                return self.choices[int(values.get("choice", ""))][1]
            except (ValueError, IndexError):
                return None
        filled = {}
        for f in self.fields:
            value = " ".join(str(values.get(f.name, "")).split())
            if f.options and value not in {v for v, _ in f.options}:
                return None
            if f.text and len(value) > MAX_CLUE:
                return None
            filled[f.name] = value
        return self.template.format(**filled)


QUERIES = (Control("repeat", "repeat", "repeat"), Control("status", "status", "status"),
           Control("help", "help", "help"), Control("go-on", "go-on", "go on"))
#: offered whatever the game's state: repeat, and "go on" (the rest of a long answer)
ALWAYS = frozenset({"repeat", "go-on"})


def _choices(values: Any) -> tuple[tuple[str, str], ...]:
    return tuple((str(v), str(v)) for v in values)


def seat_controls(session: Session, seat: int) -> list[Control]:
    """The controls seat ``seat`` has now (game moves first, then the queries)."""
    referee, state = session.referee, session.state
    if referee.is_over(state):
        return []
    legal = referee.legal_intents(state)
    game = referee.name
    moves: list[Control] = []
    if game == "compass-code":
        moves = _compass(state, seat, legal, referee)
    elif game == "two-windows":
        moves = _two_windows(state, seat, legal, referee)
    elif game == "lantern-links":
        moves = _lantern(state, seat, legal, referee)
    elif game == "clover":
        moves = _clover_clues(state, seat, legal)
        if "place" in legal and seat == state.committer():
            moves += clover_board_controls(state)
    return moves + query_controls(state, legal)


def query_controls(state: Any, legal: set[str]) -> list[Control]:
    """Questions anyone may ask now (they change nothing and log nothing)."""
    queries = [q for q in QUERIES if q.id in ALWAYS or q.id in legal]
    for intent in ("candidates", "read candidates", "hands", "read cards", "read clues", "read rules"):
        if intent in legal:
            queries.append(Control(intent.replace(" ", "-"), intent.replace(" ", "-"), intent))
    layout = getattr(state, "layout", None)
    if "read card" in legal and layout is not None:
        cards = _choices(range(1, len(layout.cards) + 1))
        queries.append(Control("read-card", "read-card", "read card {card}", (Field("card", "card", cards),),
                               kind="form"))
    return queries


def _compass(state: Any, seat: int, legal: set[str], referee: Any) -> list[Control]:
    out: list[Control] = []
    if seat == state.captain and "send" in legal:
        picks = tuple(Field(k, f"position-{i}", _choices(DIRECTIONS)) for i, k in enumerate("abcd", 1))
        out.append(Control("send", "send", "send {a}{b}{c}{d}", picks, kind="form"))
        if "check" in legal:
            out.append(Control("check", "check", "check {direction} {position}",
                               (Field("direction", "direction", _choices(DIRECTIONS)),
                                Field("position", "position", _choices(range(1, 5)))), kind="form"))
    if seat == state.keeper and "feedback" in legal:
        out.append(Control("feedback", "feedback", "feedback {anchors} {clockwise}",
                           (Field("anchors", "anchors", _choices(range(5))),
                            Field("clockwise", "clockwise", _choices(range(5)))), kind="form"))
    return out


def _two_windows(state: Any, seat: int, legal: set[str], referee: Any) -> list[Control]:
    out: list[Control] = []
    audiences = referee.seat_audiences(state, seat)
    for holder in ("a", "b"):
        if holder in audiences and f"{holder} sends" in legal:
            view = referee.private_view(state, holder) or {}
            choices = tuple((fact, f"{holder} sends {fact}") for fact in view.get("facts", []))
            out.append(Control(f"{holder}-sends", "lock-fact", choices=choices, kind="choices"))
    from ..games.two_windows.teams import team_of

    if team_of(seat).value == state.decoder:
        if "final" in legal:
            names = referee.deck(state.practice).names
            out.append(Control("final", "final", "final {name}",
                               (Field("name", "name", _choices(names)),), kind="form"))
        if "more" in legal:
            out.append(Control("more", "more", "more"))
        if "replace packet" in legal:
            out.append(Control("replace-packet", "replace-packet", "replace packet"))
    return out


def _lantern(state: Any, seat: int, legal: set[str], referee: Any) -> list[Control]:
    if seat != state.turn:
        return []
    out: list[Control] = []
    if "play" in legal:
        tiles = state.pool if state.pool_variant else state.hands[seat - 1]
        choices = tuple((f"{t}: {' / '.join(state.words[t])}", f"play {t}") for t in tiles)
        out.append(Control("play", "play", choices=choices, kind="choices"))
    for intent in ("pass", "rewind", "finish"):
        if intent in legal:
            out.append(Control(intent, intent, intent))
    return out


def _clover_clues(state: Any, seat: int, legal: set[str]) -> list[Control]:
    if "clue" not in legal:
        return []
    return [Control(f"clue-{zone}", f"clue-{zone}", f"clue {seat} {zone} {{clue}}",
                    (Field("clue", f"clue-{zone}", text=True),), kind="clue",
                    extra={"zone": zone})
            for zone in ZONES]


def clover_board_controls(state: Any) -> list[Control]:
    """Place, turn and commit (the committer's screen and the table's board)."""
    layout = state.layout
    if layout is None:
        return []
    cards = _choices(range(1, len(layout.cards) + 1))
    return [
        Control("place", "place", "place {card} {slot}",
                (Field("card", "card", cards), Field("slot", "slot", tuple((s, s) for s in SLOTS))),
                kind="form"),
        Control("turn", "turn", "turn {card}", (Field("card", "card", cards),), kind="form"),
        Control("commit", "commit", "commit"),
    ]


def table_controls(session: Session) -> list[Control]:
    """The table screen's moves: Clover's board, and the queries."""
    referee, state = session.referee, session.state
    if referee.is_over(state):
        return []
    legal = referee.legal_intents(state)
    moves = clover_board_controls(state) if referee.name == "clover" and "place" in legal else []
    return moves + query_controls(state, legal)


def find(controls: list[Control], control_id: str) -> Control | None:
    return next((c for c in controls if c.id == control_id), None)


def prompt(session: Session, seat: int) -> str | None:
    """Whose move it is, for the seat's assertive live region (None: not this seat's)."""
    referee, state = session.referee, session.state
    if referee.is_over(state):
        return None
    game = referee.name
    if game == "compass-code":
        if state.pending is not None:
            return "keeper" if seat == state.keeper else None
        return "captain" if seat == state.captain else None
    if game == "two-windows":
        audiences = referee.seat_audiences(state, seat)
        if state.stage == 0 and any(h in audiences and state.locked(h) is None for h in ("a", "b")):
            return "informant"
        from ..games.two_windows.teams import team_of

        return "decoder" if state.stage > 0 and team_of(seat).value == state.decoder else None
    if game == "lantern-links":
        return "player" if seat == state.turn and not state.paused else None
    if game == "clover":
        if state.layout is None:
            return "clues" if state.written(seat) < len(ZONES) else None
        return "committer" if seat == state.committer() else None
    return None
