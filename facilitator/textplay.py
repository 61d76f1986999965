"""``facilitator play GAME --text``: one utterance a line on stdin, announcements on stdout."""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Iterable
from typing import IO

from .errors import StdoutError
from .session import MAX_UTTERANCE, Reply, Session


def show(reply: Reply, out: IO[str]) -> None:
    """Print the public sentences; ``StdoutError`` when stdout cannot take them (a full
    disk, ``/dev/full``): the log already holds them, so a resume says them again."""
    write_out(out, "".join(line + "\n" for line in reply.public))


def write_out(out: IO[str], text: str) -> None:
    try:
        if text:
            out.write(text)
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise StdoutError(str(exc.strerror or exc)) from None


#: the longest line read from stdin; a longer one is refused without being read whole
MAX_LINE_BYTES = 4096


def lines_of(stream: IO[bytes] | FdLines) -> Iterable[str]:
    """Lines of ``stream`` as text: bytes that are not UTF-8 become U+FFFD, never an error.

    A line longer than ``MAX_LINE_BYTES`` is read in pieces and thrown away as it
    comes (a 64 MB line never sits in memory); what is yielded for it is its first
    ``MAX_UTTERANCE + 1`` characters, which the session refuses as too long."""
    while True:
        raw = stream.readline(MAX_LINE_BYTES)
        if not raw:
            return
        if len(raw) >= MAX_LINE_BYTES and not raw.endswith(b"\n"):
            head = raw
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(MAX_LINE_BYTES)
            yield head.decode("utf-8", errors="replace")[:MAX_UTTERANCE + 1].replace("#", "_") or "_"
            continue
        yield raw.decode("utf-8", errors="replace").rstrip("\r\n")


class FdLines:
    """``readline(limit)`` on a file descriptor of its own, by ``os.read``.

    For a thread that waits on stdin: a buffered reader holds its lock while it waits,
    and the interpreter's exit then aborts ("could not acquire lock for <stdin> at
    interpreter shutdown") when stdin stays open, as in a terminal.  This reader has
    no lock, and it reads a duplicate of the descriptor, so ``sys.stdin`` is never busy."""

    CHUNK = 65536

    def __init__(self, fd: int) -> None:
        self.fd = os.dup(fd)
        self._buffer = bytearray()
        self._eof = False

    @classmethod
    def of(cls, stream: IO[bytes]) -> IO[bytes] | FdLines:
        """``stream`` itself when it has no descriptor (a test's bytes), else a reader of it."""
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            return stream
        return cls(fd)

    def readline(self, limit: int) -> bytes:
        while True:
            end = self._buffer.find(b"\n", 0, limit)
            if end >= 0 or len(self._buffer) >= limit or self._eof:
                size = end + 1 if end >= 0 else min(limit, len(self._buffer))
                line = bytes(self._buffer[:size])
                del self._buffer[:size]
                return line
            try:
                chunk = os.read(self.fd, self.CHUNK)
            except OSError:
                chunk = b""       # a stdin that fails to read ends like one that is closed
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True

    def close(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


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


def read_in_thread(stream: IO[bytes]) -> queue.Queue[str | None]:
    """Typed lines of ``stream`` (blank and ``#`` lines dropped) into a queue, then None,
    from a daemon thread: a game that ends by a click or a voice is seen at once.  The
    thread reads through ``FdLines``, so a stdin left open (a terminal) cannot abort the
    interpreter's exit while the thread still waits on it."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        try:
            for line in lines_of(FdLines.of(stream)):
                text = line.strip()
                if text and not text.startswith("#"):
                    lines.put(text)
        finally:
            lines.put(None)

    threading.Thread(target=read, name="facilitator-stdin", daemon=True).start()
    return lines

