"""https and http on one port: uvicorn's server with its connections accepted here.

With ``--lan`` the screens' port speaks TLS (a phone's microphone needs a secure
context).  A browser that was given (or typed) the plain ``http://`` address must
still find the table, so each accepted connection is looked at before anything
reads it: its first byte, peeked (``MSG_PEEK``, nothing consumed), is 0x16 for a
TLS ClientHello, and then the connection is handed to uvicorn's HTTP protocol over
TLS (``loop.connect_accepted_socket(..., ssl=context)``, exactly what
``loop.create_server(..., ssl=...)`` would have done); anything else from another
machine is answered ``308 Permanent Redirect`` to the same path at the https
address, and closed.  A plain connection from this machine itself (loopback) is
served as plain http, as without ``--lan``: loopback is already a secure context,
and the table screen on the referee's own display keeps working at
``http://127.0.0.1:PORT``.

No guest can lock the phones out: a connection that is silent for
``FIRST_BYTE_SECONDS``, whose TLS handshake takes longer than ``HANDSHAKE_SECONDS``,
or whose first request head has not arrived ``FIRST_REQUEST_SECONDS`` after that, is
closed; one client address holds at most ``MAX_PER_CLIENT`` connections at once (more
are closed as they are accepted); and the connections not yet sorted (no request head
yet) share a budget by the fairness rule of ``admission``: this machine's own (the
table screen) apart, and when the others' budget is full the oldest connection of the
address holding the most is closed for the new one, so a guest on any number of
addresses only ever loses its own connections.

uvicorn makes its connections in ``Server.startup`` with ``loop.create_server`` on the
sockets it is given; ``LanServer.startup`` lets it start with none and accepts on the
screens' socket itself.  Shutdown is uvicorn's own: it closes the acceptors
(``close``/``wait_closed``), the socket, then every connection it tracks.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import itertools
import socket
import ssl
from collections.abc import Callable
from typing import Any, cast

import uvicorn

from .admission import Unsorted

#: the first byte of a TLS record carrying a handshake (the ClientHello)
TLS_HANDSHAKE = 0x16
#: how long a new connection may stay silent before it is closed (browsers open
#: connections ahead of need: chromium itself gives up an unused one after 10 s, and
#: sends a request it had for one the server closed again on a new connection)
FIRST_BYTE_SECONDS = 10.0
#: how long a TLS handshake may take, from its first byte (a phone's takes milliseconds)
HANDSHAKE_SECONDS = 5.0
#: how long, after the handshake (or the first byte of plain http), the first request's
#: head (its line and headers) may take to arrive
FIRST_REQUEST_SECONDS = 5.0
#: connections one client address may hold at once, open or waiting (a browser opens
#: at most six to one server; a phone page holds one or two)
MAX_PER_CLIENT = 32
#: the largest request head a plain-http request may send before it is redirected
MAX_REDIRECT_HEAD = 8192


def server_context(cert_path: str, key_path: str) -> ssl.SSLContext:
    """The TLS context the screens serve with: TLS 1.2 or later, HTTP/1.1."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert_path, key_path)
    context.set_alpn_protocols(["http/1.1"])
    return context


class LanServer(uvicorn.Server):
    """uvicorn's server whose sockets accept TLS, redirect plain http to it, and serve
    plain http to loopback.  ``https_base`` gives the address to redirect to
    (``https://HOST:PORT``); ``note`` the redirect's one-line body."""

    def __init__(self, config: uvicorn.Config, context: ssl.SSLContext,
                 https_base: Callable[[], str], note: str = "") -> None:
        super().__init__(config)
        self.context = context
        self.https_base = https_base
        self.note = note

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])       # lifespan, state; no listener of its own
        config = self.config

        def protocol() -> asyncio.Protocol:
            made: asyncio.Protocol = config.http_protocol_class(  # type: ignore[call-arg]
                config=config, server_state=self.server_state, app_state=self.lifespan.state)
            return made

        for sock in sockets or []:
            cast(list[Any], self.servers).append(_Acceptor(sock, protocol, self))


class _Acceptor:
    """Accepts on one listening socket and sorts each connection (TLS, redirect, plain).
    Has what uvicorn's shutdown calls on a server: ``close`` and ``wait_closed``.

    Each connection has a key (increasing) while it is unsorted: ``unsorted`` applies
    the fairness rule, ``closers`` closes one at whatever step it is (its sorting task
    cancelled, or its transport aborted while its first request is awaited)."""

    def __init__(self, sock: socket.socket, protocol: Callable[[], asyncio.Protocol],
                 owner: LanServer) -> None:
        self.sock = sock
        self.protocol = protocol
        self.owner = owner
        self.pending: set[asyncio.Task[bool]] = set()
        #: each client address's connections (closed ones are dropped as new ones come)
        self.clients: dict[str, list[socket.socket]] = {}
        self.unsorted = Unsorted()
        self.closers: dict[int, Callable[[], None]] = {}
        self._keys = itertools.count()
        sock.setblocking(False)
        self.task = asyncio.get_running_loop().create_task(self._accept())

    async def _accept(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                conn, peer = await loop.sock_accept(self.sock)
            except asyncio.CancelledError:
                raise
            except OSError:
                await asyncio.sleep(0.1)          # out of descriptors, a reset: try again shortly
                continue
            if not self._admit(conn, peer):
                conn.close()
                continue
            key = next(self._keys)
            victim = self.unsorted.add(key, _address(peer), _is_own(conn, peer), loop.time())
            if victim is not None:
                self._close(victim)
            task = loop.create_task(self._sort(conn, peer, key))
            self.closers[key] = _canceller(task)
            self.pending.add(task)
            task.add_done_callback(self.pending.discard)
            task.add_done_callback(functools.partial(_unless_served, conn=conn))

    def _admit(self, conn: socket.socket, peer: Any) -> bool:
        """Count ``conn`` against its client address; False past ``MAX_PER_CLIENT``.
        A connection counts until its socket is closed (by uvicorn, a timeout, or here)."""
        address = _address(peer)
        held = [s for s in self.clients.get(address, []) if s.fileno() != -1]
        if len(held) >= MAX_PER_CLIENT:
            self.clients[address] = held
            return False
        held.append(conn)
        self.clients[address] = held
        if len(self.clients) > 1024:       # forget addresses with nothing open
            self.clients = {a: [s for s in c if s.fileno() != -1] for a, c in self.clients.items()}
            self.clients = {a: c for a, c in self.clients.items() if c}
        return True

    def _close(self, key: int) -> None:
        """Close the unsorted connection ``key`` (the fairness rule chose it)."""
        closer = self.closers.pop(key, None)
        if closer is not None:
            closer()

    def _sorted(self, key: int, sorted_: bool = True) -> None:
        """``key`` is sorted (its first request came), or closed before (``sorted_`` False:
        a strike against its address): it counts no more."""
        self.unsorted.remove(key, asyncio.get_running_loop().time(), sorted_=sorted_)
        self.closers.pop(key, None)

    def _served(self, key: int) -> Callable[[], asyncio.Protocol]:
        def made() -> asyncio.Protocol:
            return _FirstRequest(self.protocol(), lambda abort: self._waiting(key, abort),
                                 lambda came: self._sorted(key, came))
        return made

    def _waiting(self, key: int, abort: Callable[[], None]) -> None:
        """``key``'s transport is made: until its first request comes, it is closed by ``abort``."""
        if key in self.unsorted:
            self.closers[key] = abort
        else:
            abort()                              # chosen to make room while it was being made

    async def _sort(self, conn: socket.socket, peer: Any, key: int) -> bool:
        """Sort ``conn`` and hand it on; True when a protocol took it (its transport owns
        the socket now; otherwise the socket is closed when the task ends, even one
        cancelled before it began)."""
        loop = asyncio.get_running_loop()
        conn.setblocking(False)
        served = redirected = False
        try:
            first = await asyncio.wait_for(_peek(conn), FIRST_BYTE_SECONDS)
            if not first:
                conn.close()                      # closed before it said anything
            elif first[0] == TLS_HANDSHAKE:
                await loop.connect_accepted_socket(self._served(key), conn, ssl=self.owner.context,
                                                   ssl_handshake_timeout=HANDSHAKE_SECONDS)
                served = True
            elif _is_loopback(peer):
                await loop.connect_accepted_socket(self._served(key), conn)
                served = True
            else:
                await loop.connect_accepted_socket(
                    lambda: _Redirect(self.owner.https_base(), self.owner.note), conn)
                redirected = True
        except (TimeoutError, OSError, ssl.SSLError):
            conn.close()          # a refused certificate, a reset, silence: only this connection
        finally:
            if not served:        # a served connection counts until its first request (``_FirstRequest``)
                self._sorted(key, redirected)
        return served or redirected

    def close(self) -> None:
        self.task.cancel()
        for task in list(self.pending):
            task.cancel()

    async def wait_closed(self) -> None:
        for task in [self.task, *self.pending]:
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001, S112  (closing: nothing to report)
                continue


def _canceller(task: asyncio.Task[bool]) -> Callable[[], None]:
    def cancel() -> None:
        task.cancel()
    return cancel


def _unless_served(task: asyncio.Task[bool], conn: socket.socket) -> None:
    """A sorting task ended: its socket is closed unless a protocol took it."""
    if task.cancelled() or task.exception() is not None or not task.result():
        conn.close()


def _address(peer: Any) -> str:
    return str(peer[0]) if isinstance(peer, tuple) and peer else ""


def _is_own(conn: socket.socket, peer: Any) -> bool:
    """Is the connection from this machine itself (its source is the server's own address:
    the table screen at 127.0.0.1, or a browser here at the LAN address)?"""
    try:
        return _address(peer) == str(conn.getsockname()[0])
    except OSError:
        return False


async def _peek(conn: socket.socket) -> bytes:
    """The connection's first byte, left in place for whoever reads it next."""
    loop = asyncio.get_running_loop()
    while True:
        ready: asyncio.Future[None] = loop.create_future()

        def wake(fut: asyncio.Future[None] = ready) -> None:
            if not fut.done():
                fut.set_result(None)
        loop.add_reader(conn.fileno(), wake)
        try:
            await ready
        finally:
            loop.remove_reader(conn.fileno())
        try:
            return conn.recv(1, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            continue


class _FirstRequest(asyncio.Protocol):
    """uvicorn's protocol for one connection, closed unless its first request's head
    arrives within ``FIRST_REQUEST_SECONDS`` (later requests are uvicorn's to time:
    its keep-alive timeout closes a connection idle between them).  ``waiting(abort)``
    is told how to close it while the head is awaited, ``sorted(True)`` when the head
    came, ``sorted(False)`` when the connection closed first."""

    def __init__(self, inner: asyncio.Protocol, waiting: Callable[[Callable[[], None]], None] | None = None,
                 sorted_: Callable[[bool], None] | None = None) -> None:
        self.inner = inner
        self.tail = b""
        self.timer: asyncio.TimerHandle | None = None
        self.waiting = waiting
        self.sorted = sorted_

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.timer = asyncio.get_running_loop().call_later(FIRST_REQUEST_SECONDS, self._late, transport)
        self.inner.connection_made(transport)
        if self.waiting is not None:
            self.waiting(cast(asyncio.Transport, transport).abort)

    def _late(self, transport: asyncio.BaseTransport) -> None:
        self.timer = None
        cast(asyncio.Transport, transport).abort()

    def _done(self, came: bool) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.sorted is not None:
            done, self.sorted = self.sorted, None
            done(came)

    def data_received(self, data: bytes) -> None:
        if self.timer is not None:
            seen = self.tail + data
            if b"\r\n\r\n" in seen or b"\n\n" in seen:
                self._done(True)
            self.tail = seen[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._done(False)
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


def _is_loopback(peer: Any) -> bool:
    try:
        return ipaddress.ip_address(peer[0]).is_loopback
    except (ValueError, TypeError, IndexError):
        return False


class _Redirect(asyncio.Protocol):
    """Answers one plain-http request with a redirect to the same path over https."""

    def __init__(self, base: str, note: str) -> None:
        self.base = base.rstrip("/")
        self.note = note
        self.head = bytearray()
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.timer = asyncio.get_running_loop().call_later(HANDSHAKE_SECONDS, transport.close)

    def data_received(self, data: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self.head += data
        if b"\r\n\r\n" in self.head or b"\n\n" in self.head or len(self.head) > MAX_REDIRECT_HEAD:
            self._answer()

    def eof_received(self) -> bool | None:
        self._answer()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()

    def _answer(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        location = self.base + redirect_target(bytes(self.head))
        body = f"{self.note} {location}\n".lstrip().encode("utf-8")
        head = ("HTTP/1.1 308 Permanent Redirect\r\n"
                f"Location: {location}\r\n"
                "Content-Type: text/plain; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\n"
                "Cache-Control: no-store\r\n"
                "Connection: close\r\n\r\n")
        self.transport.write(head.encode("latin-1") + body)
        self.transport.close()


def redirect_target(head: bytes) -> str:
    """The path and query of a request's first line, when it is a plain origin-form
    target of printable characters; else "/" (nothing of a request can break the
    Location header or point it at another host)."""
    line = head.split(b"\n", 1)[0].rstrip(b"\r")
    parts = line.split(b" ")
    if len(parts) != 3 or not parts[1].startswith(b"/") or parts[1].startswith(b"//"):
        return "/"
    target = parts[1]
    if len(target) > 2048 or any(b < 0x21 or b > 0x7E for b in target):
        return "/"
    return target.decode("ascii")
