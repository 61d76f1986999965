"""Serving the screens from the referee's own process, in a background thread.

uvicorn runs the app in a daemon thread with its own event loop; play (stdin or
the voice loop) keeps the main thread.  Both reach the session only through the
hub's ``SharedSession`` and its one lock.  The server binds to loopback unless
``--lan`` is given.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass

import uvicorn

from ..errors import OptionsError
from ..session import Reply, Session
from .app import Screens
from .hub import Hub
from .seats import Seats

LOOPBACK = "127.0.0.1"
EVERYWHERE = "0.0.0.0"
DEFAULT_PORT = 8000
START_SECONDS = 20.0


@dataclass(frozen=True)
class ScreenSettings:
    lan: bool = False
    port: int = DEFAULT_PORT   # 0: any free port


class ScreenServer:
    """The hub, the seats and the running web server of one game."""

    def __init__(self, session: Session, opening: Reply, settings: ScreenSettings) -> None:
        self.seats = Seats(len(session.state.names))
        self.hub = Hub(session, opening, self.seats)
        self.screens = Screens(self.hub, self.seats)
        self.settings = settings
        self._socket = _bind(EVERYWHERE if settings.lan else LOOPBACK, settings.port)
        self.port = int(self._socket.getsockname()[1])
        config = uvicorn.Config(self.screens.app, log_level="warning", access_log=False,
                                timeout_graceful_shutdown=2, lifespan="off", ws="none")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="facilitator-screens", daemon=True)

    def _run(self) -> None:
        self._server.run(sockets=[self._socket])

    def start(self) -> ScreenServer:
        self._thread.start()
        deadline = time.monotonic() + START_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise OptionsError(f"the screens server could not start on port {self.port}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.screens.closing = True
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    @property
    def host(self) -> str:
        return _lan_address() if self.settings.lan else LOOPBACK

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def table_url(self) -> str:
        """The address to open on the table screen (it carries the table key)."""
        return f"{self.base_url}/table/{self.seats.table_key}"


def _bind(host: str, port: int) -> socket.socket:
    if not 0 <= port <= 65535:
        raise OptionsError(f"--port takes 0 to 65535, not {port}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OptionsError(f"cannot serve screens on {host}:{port}: {exc.strerror}") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def _lan_address() -> str:
    """This machine's address on the local network, as best known without sending anything."""
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            address = str(info[4][0])
            if not address.startswith("127."):
                return address
    except OSError:
        pass
    return socket.gethostname()
