"""``facilitator play GAME --text``: one utterance a line on stdin, announcements on stdout."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import IO

from .session import Reply, Session


def show(reply: Reply, out: IO[str]) -> None:
    for line in reply.public:
        out.write(line + "\n")
    out.flush()


def lines_of(stream: IO[bytes]) -> Iterable[str]:
    """Lines of ``stream`` as text: bytes that are not UTF-8 become U+FFFD, never an error."""
    for raw in stream:
        yield raw.decode("utf-8", errors="replace").rstrip("\r\n")


def run(session: Session, stream: IO[bytes] | None = None, out: IO[str] | None = None) -> int:
    stream = stream if stream is not None else sys.stdin.buffer
    out = out if out is not None else sys.stdout
    if session.over:
        return 0
    for line in lines_of(stream):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        reply = session.handle(text)
        show(reply, out)
        if session.over or reply.quit:
            break
    return 0
