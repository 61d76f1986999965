"""The screens under hostile requests: body limits, foreign pages, code guessers.

* ``BodyLimit`` (ASGI middleware) refuses a request body larger than ``MAX_BODY_BYTES``
  before reading it: by its ``Content-Length``, and for a chunked body by counting
  as it arrives (413; nothing past the limit is kept in memory).  Only
  state-changing requests may carry a body.
* ``SameOrigin`` refuses a state-changing request (POST) sent by a page of another
  origin: its ``Origin`` (or, failing that, ``Sec-Fetch-Site``) must be this
  server's own scheme, host and port (403).  A page on another port of the same
  host is another origin.  Requests with neither header come from programs, not
  from a browser page, and need the same cookies as any other request.
* ``CodeTries`` limits wrong short codes per client address and per time window;
  a guesser locks only itself out, never the table.  The client address is the
  connection's own: the server trusts no ``X-Forwarded-For`` (it runs behind no proxy).
* ``HostCheck`` refuses a request whose ``Host`` header names another host than the
  addresses the screens are served at (400): a page of another site that resolves
  its name to this machine (DNS rebinding) cannot read the screens.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from .labels import labels

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: the largest request body the screens take (their forms are a few hundred bytes)
MAX_BODY_BYTES = 16 * 1024
#: wrong short codes one client address may type in ``CODE_WINDOW_SECONDS``
CODE_TRIES = 10
CODE_WINDOW_SECONDS = 300.0
#: client addresses remembered at most (the oldest are forgotten first)
CODE_CLIENTS = 1024
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


async def _refuse(send: Send, status: int, reason: str) -> None:
    message = labels()["words"].get(f"refused-{reason}")
    body = json.dumps({"error": reason, **({"message": message} if message else {})}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await _refuse(send, 400, "bad-length")
                return
            if declared > self.limit:
                await _refuse(send, 413, "too-large")
                return
        if scope.get("method") not in STATE_CHANGING:
            await self.app(scope, receive, send)
            return
        # read the (small) body here, up to the limit, and hand it on whole
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return                                  # the client went away
            body += message.get("body", b"")
            if len(body) > self.limit:
                await _refuse(send, 413, "too-large")
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _origin_of(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of an origin, the default port filled in."""
    try:
        parts = urlsplit(url.lower())
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None
    return (parts.scheme, parts.hostname or "", port) if parts.hostname else None


class SameOrigin:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") in STATE_CHANGING and not _same_origin(scope):
            await _refuse(send, 403, "foreign-origin")
            return
        await self.app(scope, receive, send)


def _same_origin(scope: Scope) -> bool:
    headers = dict(scope.get("headers") or [])
    origin = headers.get(b"origin")
    if origin is not None:
        host = headers.get(b"host")
        if host is None:
            return False
        own = _origin_of(f"{scope.get('scheme', 'http')}://{host.decode('latin-1')}")
        theirs = _origin_of(origin.decode("latin-1"))
        return own is not None and theirs == own
    site = headers.get(b"sec-fetch-site")
    if site is not None:
        return site.decode("latin-1").lower() in ("same-origin", "none")
    return True


class CodeTries:
    """Wrong short codes per client address, in a sliding window."""

    def __init__(self, tries: int = CODE_TRIES, window_seconds: float = CODE_WINDOW_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.tries = tries
        self.window = window_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._wrong: dict[str, deque[float]] = {}

    def _recent(self, client: str, now: float) -> deque[float]:
        times = self._wrong.get(client, deque())
        while times and now - times[0] >= self.window:
            times.popleft()
        return times

    def allowed(self, client: str) -> bool:
        with self._lock:
            return len(self._recent(client, self.clock())) < self.tries

    def wrong(self, client: str) -> None:
        with self._lock:
            now = self.clock()
            times = self._recent(client, now)
            times.append(now)
            self._wrong.pop(client, None)
            self._wrong[client] = times        # newest last, so the oldest go first
            while len(self._wrong) > CODE_CLIENTS:
                self._wrong.pop(next(iter(self._wrong)))


class HostCheck:
    """Only requests for this server's own host names (``allowed()``; None: any)."""

    def __init__(self, app: ASGIApp, allowed: Callable[[], set[str] | None]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hosts = self.allowed()
        if scope["type"] == "http" and hosts is not None and host_of(scope) not in hosts:
            await _refuse(send, 400, "unknown-host")
            return
        await self.app(scope, receive, send)


def host_of(scope: Scope) -> str:
    """The host name of a request's ``Host`` header, lower case, without its port."""
    headers = dict(scope.get("headers") or [])
    host = headers.get(b"host")
    if host is None:
        return ""
    parts = _origin_of(f"http://{host.decode('latin-1')}")
    return parts[1] if parts is not None else ""
