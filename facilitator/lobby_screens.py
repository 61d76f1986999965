"""``facilitator serve --screens``: the lobby and its games with one web app for the
life of the service.

The table screen shows the lobby (choose a game, resume or new game), then the
game, then the lobby again; phones join once and keep their seats from game to
game and across restarts (the seats are kept in the data directory, see
``screens.seats``).  Typed lines, spoken commands and clicks all go through the
hub's one lock; whichever of the lobby or the game runs now is what they reach.

Text mode reads stdin in a thread, so a game chosen or ended by a click on a
screen is noticed at once; every announcement (typed or clicked) is printed on
stdout, in order, one a line.
"""

from __future__ import annotations

import argparse
import queue
from collections.abc import Sequence
from typing import IO, Any

from .lobby import Lobby
from .screens.hub import Hub
from .screens.server import ScreenServer, ScreenSettings, store_for
from .session import Reply
from .textplay import read_in_thread

#: seats a table service offers before its first game (a game with more adds seats)
LOBBY_SEATS = 4
#: the table service's seats are one table session, whatever game is played
OWNER = "serve"
#: how often text mode looks for a click that chose or ended a game
POLL_SECONDS = 0.1


class TableScreens:
    """The screens server of a table service and the hub that shows lobby or game."""

    def __init__(self, lobby: Lobby, args: argparse.Namespace, err: IO[str]) -> None:
        settings = ScreenSettings(lan=bool(args.lan), port=int(args.port), host=args.host,
                                  keep_phone_audio=bool(getattr(args, "keep_phone_audio", False)))
        self.server = ScreenServer(lobby, Reply(), settings, store=store_for(lobby.store.directory),
                                   owner=OWNER, seat_count=LOBBY_SEATS, data=lobby.store.directory)
        self.lobby = lobby
        #: the game this service was playing when it last stopped (None: it was in the lobby)
        self.was_playing = lobby.store.playing()
        self.server.start()
        self.hub: Hub = self.server.hub
        print(f"facilitator: table screen: open {self.server.table_url}", file=err, flush=True)
        if self.server.seats.unsaved:
            print(f"facilitator: {self.server.seats.unsaved}", file=err, flush=True)

    def show(self, taker: Any, public: Sequence[str] = ()) -> Any:
        """Show ``taker`` (the lobby or a game) on the screens; the object to drive it
        through (the shared session, behind the hub's lock).  The game being played is
        noted in the data directory (see ``back_into``)."""
        log = getattr(taker, "log", None)
        if taker is self.lobby and self.resuming():
            public = ()     # "Say resume or new game" would be answered at once by "Resuming"
        self.lobby.store.mark_playing(log.path if log is not None else None)
        self.hub.switch(taker, public)
        return self.hub.shared

    def resuming(self) -> bool:
        """Is the service about to go back into the game it was playing when it stopped?"""
        offer = self.lobby.offer
        return self.was_playing is not None and offer is not None and offer.log.name == self.was_playing

    def back_into(self, lobby: Lobby) -> list[str]:
        """After a crash or a power cut mid-game, go back into that game at once (the open
        pages then show the game they showed): its resumed opening, or nothing."""
        going_back = self.resuming()
        self.was_playing = None
        if not going_back:
            return []
        reply = self.hub.shared.handle("resume")
        return list(reply.public) if lobby.over else []

    def stop(self) -> None:
        self.hub.dispatch = None
        self.hub.listener = None
        self.server.stop()


class _Printer:
    """Prints the hub's announcements that stdout has not shown yet (what is said now:
    a resumed game's earlier lines are for the screens' log only)."""

    def __init__(self, hub: Hub, out: IO[str]) -> None:
        self.hub = hub
        self.out = out
        self.printed = hub.spoken_count

    def flush(self) -> None:
        with self.hub.lock:
            new = self.hub.spoken_count - self.printed
            lines = self.hub.spoken[-new:] if new > 0 else []
            self.printed = self.hub.spoken_count
        for line in lines:
            self.out.write(line + "\n")
        self.out.flush()


def run_text(lobby: Lobby, screens: TableScreens, stream: IO[bytes], out: IO[str]) -> int:
    """The lobby and its games on typed lines and clicks, until "quit" (where it stops
    the service) or EOF; EOF mid-game keeps the game for "resume"."""
    lines = read_in_thread(stream)
    printer = _Printer(screens.hub, out)
    shared = screens.show(lobby, lobby.opening().public)
    screens.back_into(lobby)
    hub = screens.hub

    def play_until(done: Any) -> bool:
        """Take lines until ``done()``; False at EOF."""
        while not done():
            try:
                text = lines.get(timeout=POLL_SECONDS)
            except queue.Empty:
                printer.flush()
                continue
            if text is None:
                printer.flush()
                return False
            shared.handle(text)
            printer.flush()
        printer.flush()
        return True

    try:
        while True:
            if not play_until(lambda: lobby.over) or lobby.closed:
                return 0
            with hub.lock:
                session = lobby.take()
                screens.show(session)
            try:
                finished = play_until(lambda s=session: s.over or hub.quit_requested)
            finally:
                session.log.close()
            if not finished:
                return 0   # EOF mid-game: the log is complete and the next start offers it
            with hub.lock:
                back = lobby.back(session)
                screens.show(lobby, back.public)
            printer.flush()
    finally:
        printer.flush()
