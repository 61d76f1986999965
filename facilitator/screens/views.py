"""What each screen shows, as plain values for the templates.

The table view holds public things only: announcements, the status sentence, the
scores, the seats' join links and the Clover board as laid out face up.  A seat
view holds what the seat's audiences may see now: the referee's ``private_view``
for each (built from the state, so a late screen misses nothing) and the private
messages the session produced for them.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any

import segno

from ..command import Command
from ..session import Session
from . import controls as ctl
from .hub import Hub
from .seats import Seats

SHOWN_ANNOUNCEMENTS = 40
SHOWN_MESSAGES = 30
SLOTS = ctl.SLOTS


@lru_cache(maxsize=1)
def labels() -> dict[str, dict[str, str]]:
    """The screens' words (``labels.toml`` beside this module)."""
    text = resources.files(__package__).joinpath("labels.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def status_lines(session: Session) -> list[str]:
    """The status sentence, answered by the referee without touching the session."""
    try:
        return session.referee.query(session.state, Command("status", "status"), session.phrases)
    except Exception:  # noqa: BLE001  (a status that cannot be said must not break a screen)
        return []


@lru_cache(maxsize=64)
def qr_svg(url: str) -> str:
    """An inline SVG QR code of ``url`` (segno, pure Python), dark on light."""
    return str(segno.make(url, error="m").svg_inline(scale=5, dark="#000", light="#fff",
                                                   omitsize=True))


def scores(session: Session) -> list[tuple[str, str]]:
    """(label key, value) pairs of the public score of the game."""
    state, game = session.state, session.referee.name
    if game == "compass-code":
        return [("legs", f"{sum(state.results)} / {len(state.results)}")]
    if game == "two-windows":
        return [("points", f"{state.points} / {state.possible}")]
    if game == "lantern-links":
        return [("route-points", " + ".join(str(r) for r in state.results) or "0"),
                ("points", str(state.total))]
    if game == "clover":
        rows = [(f"{state.name(s)}", str(p)) for s, p in sorted(state.scores.items())]
        return rows + [("points", str(sum(state.scores.values())))]
    return []


def clover_board(session: Session) -> dict[str, Any] | None:
    """The resolution board as laid out face up (public), or None."""
    if session.referee.name != "clover":
        return None
    state = session.state
    layout = state.layout
    out: dict[str, Any] = {"extra": state.extra, "record": state.record,
                           "previous": state.previous_record, "new_record": state.new_record,
                           "players": state.players}
    if layout is None:
        return out
    locked = {s.value for s in layout.locked}
    out.update({
        "spectator": state.name(state.spectator), "committer": state.name(state.committer()),
        "attempt": layout.attempt,
        "clues": {z.value: c for z, c in state.clues.get(state.spectator, {}).items()},
        "slots": [{"slot": slot, "card": held, "locked": slot in locked,
                   "words": list(layout.words(held)) if held else None}
                  for slot, held in zip(SLOTS, layout.slots)],
        "pool": [{"card": k, "words": list(layout.words(k))} for k in layout.pool],
    })
    return out


def table_view(hub: Hub, seats: Seats, base_url: str) -> dict[str, Any]:
    session = hub.session
    with hub.lock:
        seat_rows = []
        for number, name in enumerate(session.state.names, 1):   # seats beyond stay kept for later games
            seat = seats.seats[number]
            url = f"{base_url.rstrip('/')}/join/{seat.token}"
            seat_rows.append({"number": number, "name": name,
                              "held": seat.held, "url": url, "code": seat.code, "qr": qr_svg(url)})
        return {
            "game": session.referee.name, "version": hub.version,
            "announcements": hub.numbered_announcements(SHOWN_ANNOUNCEMENTS),
            "status": status_lines(session), "over": session.over,
            "scores": scores(session), "board": clover_board(session),
            "controls": ctl.table_controls(session), "seats": seat_rows, "action": "/table-command",
        }


def seat_view(hub: Hub, number: int) -> dict[str, Any]:
    session = hub.session
    with hub.lock:
        referee, state = session.referee, session.state
        audiences = referee.seat_audiences(state, number)
        views: list[dict[str, Any]] = []
        clover: dict[str, Any] | None = None
        for audience in sorted(audiences, key=str):
            data = referee.private_view(state, audience)
            if data is not None:
                views.append({"audience": audience, "data": data})
                clover = data if "zones" in data else clover
        lines = hub.private_for(audiences)[-SHOWN_MESSAGES:]
        return {
            "game": referee.name, "seat": number, "name": state.names[number - 1],
            "version": hub.version, "views": views, "clover": clover,
            "messages": [(line.seq, line.text) for line in lines],
            "controls": ctl.seat_controls(session, number), "prompt": ctl.prompt(session, number),
            "over": session.over, "announcements": hub.numbered_announcements(SHOWN_ANNOUNCEMENTS),
            "action": f"/seat/{number}/command",
        }
