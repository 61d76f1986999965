"""``facilitator play GAME --screens``: serve the screens while stdin or the voice loop plays.

The web server runs in a background thread; the main thread keeps play (stdin in
text mode, the listen loop in voice mode).  Both go through the hub's one lock.
The table screen's address goes to stderr (stdout stays the announcements).
With a log, the seats are kept in the data directory for that game, so
``play --screens --resume LOG`` serves the same links, table key and seat cookies:
open pages reconnect by themselves.  A new game never takes over a previous
game's seats, even one logged at the same path.

At the game's end (by a typed line, a click or a spoken command) the screens stay
up with the result for ``--result-seconds`` (the settings' ``screens.result_seconds``,
5 minutes by default), or until "quit" is typed or Ctrl-C; then every open page is
told the screens are closing (it keeps the result and says so, rather than "Connection
lost") and play exits 0.  End of input or "quit" mid-game exits at once: the game
is resumable, and the pages reconnect when it is resumed.
"""

from __future__ import annotations

import argparse
import queue
import sys
import time
from typing import IO, cast

from ..command import Command
from ..session import Reply, Session
from .seats import discard_kept
from .server import ScreenServer, ScreenSettings, store_for

#: how long the screens show the result after the game's end, unless set
RESULT_SECONDS = 300
#: how often text play looks for a game ended by a click
POLL_SECONDS = 0.1


def play_with_screens(session: Session, opening: Reply, args: argparse.Namespace,
                      err: IO[str] | None = None) -> int:
    err = err or sys.stderr
    log = session.log.path
    settings = ScreenSettings(lan=bool(args.lan), port=int(args.port), host=getattr(args, "host", None),
                              keep_phone_audio=bool(getattr(args, "keep_phone_audio", False)))
    # the seats belong to this game of this log: a new game started at the path of a
    # deleted log gets new seats (the previous game's holders must not read its secrets)
    owner = f"play:{log.resolve()}:{session.game_id}" if log is not None else ""
    store = store_for(session.table.directory) if log is not None else None
    if store is not None and not getattr(args, "resume", None):
        discard_kept(store, owner)
    server = ScreenServer(session, opening, settings, store=store, owner=owner, data=session.table.directory)
    server.start()
    print(f"facilitator: table screen: open {server.table_url}", file=err, flush=True)
    if server.seats.unsaved:
        print(f"facilitator: {server.seats.unsaved}", file=err, flush=True)
    shared = cast(Session, server.hub.shared)   # the session behind the hub's lock
    result = getattr(args, "result_seconds", None)
    seconds = RESULT_SECONDS if result is None else max(0, int(result))
    try:
        if args.text:
            from .. import textplay

            textplay.show(opening, sys.stdout)
            # a click's public announcements go to stdout too, like a typed line's
            server.hub.echo = lambda reply: textplay.show(reply, sys.stdout)
            lines = textplay.read_in_thread(sys.stdin.buffer)
            code = _text_play(shared, lines)
            if shared.over:
                server.hub.echo = None
                _show_result(shared, server, seconds, err, lines)
            return code
        from ..speech.loop import voice_play

        code = voice_play.run(shared, opening, args)
        if shared.over:
            _show_result(shared, server, seconds, err, None)
        return code
    finally:
        server.hub.dispatch = None   # the loop is gone: clicks (if any) apply directly again
        server.hub.listener = None   # and nobody hears the phones any more
        server.hub.echo = None
        server.screens.finished = bool(shared.over)
        server.stop()


def _text_play(shared: Session, lines: queue.Queue[str | None]) -> int:
    """Typed lines until the game's end (typed, clicked or said), "quit" or EOF."""
    from .. import textplay

    while not shared.over:
        try:
            text = lines.get(timeout=POLL_SECONDS)
        except queue.Empty:
            continue
        if text is None:
            return 0           # end of input: the game is logged and resumable
        reply = shared.handle(text)
        textplay.show(reply, sys.stdout)
        if reply.quit:
            return 0
    return 0


def _show_result(shared: Session, server: ScreenServer, seconds: int, err: IO[str],
                 lines: queue.Queue[str | None] | None) -> None:
    """The game is over: keep the screens up with the result for ``seconds``, or until
    "quit" is typed (text play) or Ctrl-C.  No typed line changes anything now."""
    if seconds <= 0:
        return
    minutes = f"{seconds // 60} minutes" if seconds % 60 == 0 and seconds >= 120 else f"{seconds} seconds"
    sooner = '"quit" or Ctrl-C closes them sooner' if lines is not None else "Ctrl-C closes them sooner"
    print(f"facilitator: the game is over; the screens show the result for {minutes} ({sooner})",
          file=err, flush=True)
    deadline = time.monotonic() + seconds
    try:
        while (left := deadline - time.monotonic()) > 0:
            if lines is None:
                time.sleep(min(left, 0.5))
                continue
            try:
                text = lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if text is None:
                lines = None     # end of input is not a quit: the table is still looking
                continue
            command = shared.parse(text)
            if isinstance(command, Command) and command.intent == "quit":
                return
    except KeyboardInterrupt:
        return
