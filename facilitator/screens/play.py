"""``facilitator play GAME --screens``: serve the screens while stdin or the voice loop plays.

The web server runs in a background thread; the main thread keeps play (stdin in
text mode, the listen loop in voice mode).  Both go through the hub's one lock.
The table screen's address goes to stderr (stdout stays the announcements).
With a log, the seats are kept in the data directory for that game, so
``play --screens --resume LOG`` serves the same links, table key and seat cookies:
open pages reconnect by themselves.  A new game never takes over a previous
game's seats, even one logged at the same path.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, cast

from ..session import Reply, Session
from .seats import discard_kept
from .server import ScreenServer, ScreenSettings, store_for


def play_with_screens(session: Session, opening: Reply, args: argparse.Namespace,
                      err: IO[str] | None = None) -> int:
    err = err or sys.stderr
    log = session.log.path
    settings = ScreenSettings(lan=bool(args.lan), port=int(args.port), host=getattr(args, "host", None))
    # the seats belong to this game of this log: a new game started at the path of a
    # deleted log gets new seats (the previous game's holders must not read its secrets)
    owner = f"play:{log.resolve()}:{session.game_id}" if log is not None else ""
    store = store_for(session.table.directory) if log is not None else None
    if store is not None and not getattr(args, "resume", None):
        discard_kept(store, owner)
    server = ScreenServer(session, opening, settings, store=store, owner=owner)
    server.start()
    print(f"facilitator: table screen: open {server.table_url}", file=err, flush=True)
    if server.seats.unsaved:
        print(f"facilitator: {server.seats.unsaved}", file=err, flush=True)
    shared = cast(Session, server.hub.shared)   # the session behind the hub's lock
    try:
        if args.text:
            from .. import textplay

            textplay.show(opening, sys.stdout)
            # a click's public announcements go to stdout too, like a typed line's
            server.hub.echo = lambda reply: textplay.show(reply, sys.stdout)
            return textplay.run(shared)
        from ..speech.loop import voice_play

        return voice_play.run(shared, opening, args)
    finally:
        server.hub.dispatch = None   # the loop is gone: clicks (if any) apply directly again
        server.hub.echo = None
        server.stop()
