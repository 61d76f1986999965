"""``facilitator play GAME --screens``: serve the screens while stdin or the voice loop plays.

The web server runs in a background thread; the main thread keeps play (stdin in
text mode, the listen loop in voice mode).  Both go through the hub's one lock.
The table screen's address goes to stderr (stdout stays the announcements).
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, cast

from ..session import Reply, Session
from .server import ScreenServer, ScreenSettings


def play_with_screens(session: Session, opening: Reply, args: argparse.Namespace,
                      err: IO[str] | None = None) -> int:
    err = err or sys.stderr
    server = ScreenServer(session, opening, ScreenSettings(lan=bool(args.lan), port=int(args.port)))
    server.start()
    print(f"facilitator: table screen: open {server.table_url}", file=err, flush=True)
    shared = cast(Session, server.hub.shared)   # the session behind the hub's lock
    try:
        if args.text:
            from .. import textplay

            textplay.show(opening, sys.stdout)
            # a click's public announcements go to stdout too, like a typed line's
            server.hub.echo = lambda reply: textplay.show(reply, sys.stdout)
            return textplay.run(shared)
        from ..speech import voice_play

        return voice_play.run(shared, opening, args)
    finally:
        server.hub.dispatch = None   # the loop is gone: clicks (if any) apply directly again
        server.hub.echo = None
        server.stop()
