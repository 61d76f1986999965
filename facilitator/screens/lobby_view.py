"""The table service's lobby on the screens (``facilitator serve --screens``).

The table screen in the lobby shows what the lobby would say ("Which game?", or
"There is an unfinished game…"), a form per game (its number of
players) and, when a game was interrupted, *Resume* and *New game*; each posts the
same line a player would type ("play GAME 4", "resume"), through the same
lobby.  The seats' links and QR codes are shown in the lobby too: a phone joins
once and keeps its seat from game to game.  A seat screen in the lobby (or one
whose seat is not in the current game) says so and shows the announcements.
"""

from __future__ import annotations

from typing import Any

from ..command import GAMES
from ..games import find_game
from ..games.screen import screen_for
from . import controls as ctl
from .hub import Hub
from .labels import labels
from .seats import Seats
from .views import SHOWN_ANNOUNCEMENTS, qr_svg, status_lines, talk_view

#: what the screens call the lobby (the page kind; see ``Screens.page``)
LOBBY = "lobby"
#: the questions the lobby answers, offered as buttons
LOBBY_QUERIES = ("repeat", "status", "help")


def is_lobby(hub: Hub) -> bool:
    return str(hub.session.referee.name) == LOBBY


def lobby_controls(lobby: Any) -> list[ctl.Control]:
    """A form per game (players from its range, the settings' preset first), then
    resume / new game when a game is offered, then the lobby's queries."""
    words = labels()["controls"]
    out: list[ctl.Control] = []
    for name in GAMES:
        referee = find_game(name)
        preset = int(lobby.settings.game_defaults(referee.name).get("players", referee.default_players))
        counts = [preset] + [n for n in range(referee.min_players, referee.max_players + 1) if n != preset]
        game = lobby.spoken(referee.name)
        out.append(ctl.Control(f"play-{referee.name}", f"{words['play-game']} {screen_for(referee).title()}",
                               f"play {referee.name} " + "{players}",
                               fields=(ctl.Field("players", words["players"],
                                                 tuple((str(n), str(n)) for n in counts)),),
                               extra={"game": game}))
    if lobby.offer is not None:
        out.append(ctl.Control("resume", words["resume"], "resume", intent="resume"))
        out.append(ctl.Control("new-game", words["new-game"], "new game", intent="new game"))
    return out + [ctl.Control(q, words[q], q, intent=q) for q in LOBBY_QUERIES]


def last_result(hub: Hub) -> dict[str, Any] | None:
    """The game that just ended, while the lobby shows: its name and its result, so the
    table (and every phone) still sees how it ended when the lobby follows at once."""
    finished = hub.finished if is_lobby(hub) else None
    if finished is None:
        return None
    return {"game": screen_for(finished.referee).title(), "lines": status_lines(finished)}


def lobby_table_view(hub: Hub, seats: Seats, base_url: str) -> dict[str, Any]:
    with hub.lock:
        lobby: Any = hub.session
        rows = []
        for number, seat in sorted(seats.seats.items()):
            url = f"{base_url.rstrip('/')}/join/{seat.token}"
            rows.append({"number": number, "held": seat.held, "url": url, "code": seat.code, "qr": qr_svg(url)})
        return {"game": LOBBY, "version": hub.version, "prompt": lobby.prompt(),
                "offer": lobby.spoken(lobby.offer.game) if lobby.offer is not None else None,
                "controls": lobby_controls(lobby), "seats": rows, "action": "/table-command",
                "last": last_result(hub), "announcements": hub.numbered_announcements(SHOWN_ANNOUNCEMENTS)}


def waiting_seat_view(hub: Hub, number: int) -> dict[str, Any]:
    """A seat with nothing private now: in the lobby, or not in the current game."""
    with hub.lock:
        in_lobby = is_lobby(hub)
        return {"seat": number, "version": hub.version, "in_lobby": in_lobby,
                "game": LOBBY if in_lobby else screen_for(hub.session.referee).title(), "last": last_result(hub),
                "announcements": hub.numbered_announcements(SHOWN_ANNOUNCEMENTS),
                "talk": talk_view(hub, number)}


def seat_in_game(hub: Hub, number: int) -> bool:
    """Does seat ``number`` play the current game (the lobby has no game)?"""
    if is_lobby(hub):
        return False
    return 1 <= number <= len(hub.session.state.names)
