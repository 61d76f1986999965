"""What each screen shows, as plain values for the templates.

The table view holds public things only: announcements, the status sentence, the
scores, the seats' join links and the game's public panels (the board, and what
the game shows apart from it).  A seat view holds
what the seat's audiences may see now: the game's panels built from the referee's
``private_view`` (from the state, so a late screen misses nothing) and the private
messages the session produced for them.  What the panels and controls are is the
game's business (``facilitator.games.screen``); this module knows no game.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import segno

from ..command import Command
from ..games.screen import screen_for
from ..session import Session
from . import controls as ctl
from .hub import Hub
from .seat_map import seat_map_view
from .seats import Seats

SHOWN_ANNOUNCEMENTS = 40
SHOWN_MESSAGES = 30


def status_lines(session: Session) -> list[str]:
    """The status sentence, answered by the referee without touching the session."""
    try:
        return session.referee.query(session.state, Command("status", "status"), session.phrases)
    except Exception:  # noqa: BLE001  (a status that cannot be said must not break a screen)
        return []


def over_heading(session: Session) -> str:
    """The words above the result at the game's end: the game's own, else "The game is over."."""
    from .labels import labels

    own = screen_for(session.referee).over_heading(session.state) if session.over else None
    return own or str(labels()["words"]["game-over"])


@lru_cache(maxsize=64)
def qr_svg(url: str) -> str:
    """An inline SVG QR code of ``url`` (segno, pure Python), dark on light."""
    return str(segno.make(url, error="m").svg_inline(scale=5, dark="#000", light="#fff",
                                                   omitsize=True))


def table_view(hub: Hub, seats: Seats, base_url: str) -> dict[str, Any]:
    session = hub.session
    with hub.lock:
        seat_rows = []
        for number, name in enumerate(session.state.names, 1):   # seats beyond stay kept for later games
            seat = seats.seats[number]
            url = f"{base_url.rstrip('/')}/join/{seat.token}"
            seat_rows.append({"number": number, "name": name,
                              "held": seat.held, "url": url, "code": seat.code, "qr": qr_svg(url)})
        screen = screen_for(session.referee)
        panels = screen.table_panels(session.state)
        board = [p for p in panels if not p.get("aside")]
        return {
            "game": screen.title(), "version": hub.version,
            "announcements": hub.numbered_announcements(SHOWN_ANNOUNCEMENTS),
            "status": status_lines(session), "over": session.over,
            "over_heading": over_heading(session),
            "scores": screen.scores(session.state), "board": board,
            "aside": [p for p in panels if p.get("aside")],
            # the board comes first; with no board (yet, or any more: the result) the status
            # sentence takes its place, large
            "status_first": session.over or not board,
            "controls": ctl.table_controls(session), "seats": seat_rows, "action": "/table-command",
            # at a microphone array: where each seat speaks from (voice turns' seat map)
            "seat_map_view": seat_map_view(session),
        }


def seat_view(hub: Hub, number: int) -> dict[str, Any]:
    session = hub.session
    with hub.lock:
        referee, state = session.referee, session.state
        audiences = referee.seat_audiences(state, number)
        lines = hub.private_for(number)[-SHOWN_MESSAGES:]
        return {
            "game": screen_for(referee).title(), "seat": number, "name": state.names[number - 1],
            "version": hub.version, "panels": screen_for(referee).seat_panels(state, audiences),
            "messages": [(line.seq, line.text) for line in lines],
            "controls": ctl.seat_controls(session, number), "prompt": ctl.prompt(session, number),
            "over": session.over, "result": status_lines(session) if session.over else [],
            "over_heading": over_heading(session),
            "announcements": hub.numbered_announcements(SHOWN_ANNOUNCEMENTS),
            "action": f"/seat/{number}/command", "talk": talk_view(hub, number),
        }


def talk_view(hub: Hub, number: int) -> dict[str, Any]:
    """The talk control's state for seat ``number``: is anyone listening for voices
    (voice play), and what the loop made of the seat's latest utterance."""
    return {"listening": hub.listener is not None, "heard": hub.heard_for(number), "seat": number,
            "question": hub.listener is not None and hub.asking_seat() == number}
