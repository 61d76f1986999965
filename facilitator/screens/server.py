"""Serving the screens from the referee's own process, in a background thread.

uvicorn runs the app in a daemon thread with its own event loop; play (stdin or
the voice loop) keeps the main thread.  Both reach the session only through the
hub's ``SharedSession`` and its one lock.  The server binds to loopback unless
``--lan`` is given; then the address it prints, and every join link and QR code,
is the machine's address on the local network (``--host`` names it), never a
loopback address, and the screens are served over https with the self-signed
certificate kept in the data directory (``certificate.py``; ``tls.py`` sorts TLS
from plain http on the one port).
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from ..addresses import is_loopback as _is_loopback
from ..errors import OptionsError
from ..session import Reply, Shown
from . import certificate as certificates
from .app import Screens
from .hub import Hub
from .labels import labels
from .seats import STORE_NAME, Seats
from .talk import Talk
from .tls import LanServer, server_context

LOOPBACK = "127.0.0.1"
EVERYWHERE = "0.0.0.0"
DEFAULT_PORT = 8000
START_SECONDS = 20.0
#: connections the kernel queues before they are accepted: a flood of guests' connections
#: must not fill the queue, where a phone's would wait for its retries (1 s, 3 s, 7 s)
BACKLOG = 1024


@dataclass(frozen=True)
class ScreenSettings:
    lan: bool = False
    port: int = DEFAULT_PORT   # 0: any free port
    host: str | None = None    # the address phones use (default: found from the interfaces)
    #: keep each phone's utterance as a WAV in the data directory (``[screens] keep_phone_audio``)
    keep_phone_audio: bool = False
    #: the address to listen on (None: every address with ``lan``, loopback without); a
    #: LAN service's tests bind loopback (or an address of their own network namespace)
    bind: str | None = None


class ScreenServer:
    """The hub, the seats and the running web server of one game."""

    def __init__(self, session: Shown, opening: Reply, settings: ScreenSettings,
                 store: Path | None = None, owner: str = "", seat_count: int | None = None,
                 data: Path | None = None) -> None:
        """``store``: where the seats are kept for the table session named ``owner``
        (see ``Seats``); None keeps them in memory only.  ``seat_count``: the seats
        to offer when ``session`` has no players (the table service's lobby).
        ``data``: the table's data directory, where the LAN certificate (and, when the
        settings ask, phones' audio) is kept (None: the platform's data directory)."""
        self.settings = settings
        self.host = public_host(settings)   # before binding: a --lan without an address is refused
        self.data = data
        #: the certificate the LAN is served with (None: loopback only, plain http)
        self.certificate = _certificate(self.host, data) if settings.lan else None
        count = seat_count if seat_count is not None else len(session.state.names)
        self.seats = Seats(count, store, owner)
        self.hub = Hub(session, opening, self.seats)
        kept = (data or _data_dir()) if settings.keep_phone_audio else None
        self.screens = Screens(self.hub, self.seats, talk=Talk(keep=kept))
        self._socket = _bind(settings.bind or (EVERYWHERE if settings.lan else LOOPBACK), settings.port)
        self.port = int(self._socket.getsockname()[1])
        self.screens.base_url = self.base_url
        self.screens.certificate = self.certificate
        self.screens.allowed_hosts = {self.host.lower(), LOOPBACK, "localhost"}
        # no proxy stands in front: X-Forwarded-For is a client's word, never trusted
        config = uvicorn.Config(self.screens.app, log_level="warning", access_log=False,
                                timeout_graceful_shutdown=2, lifespan="off", ws="none",
                                proxy_headers=False)
        self._server: uvicorn.Server
        if self.certificate is None:
            self._server = uvicorn.Server(config)
        else:
            # TLS on the one port; plain http from another machine is redirected to it
            context = server_context(str(self.certificate.cert_path), str(self.certificate.key_path))
            self._server = LanServer(config, context, lambda: self.base_url,
                                     labels()["words"]["https-redirect"])
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
    def base_url(self) -> str:
        """The address phones open: https on the LAN, http on loopback."""
        scheme = "https" if self.certificate is not None else "http"
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{host}:{self.port}"

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
    sock.listen(BACKLOG)
    sock.set_inheritable(True)
    return sock


def _certificate(host: str, data: Path | None) -> certificates.Certificate:
    """The LAN certificate for ``host`` from the data directory (made or renewed there)."""
    data = data or _data_dir()
    try:
        return certificates.ensure(data, host, extra=[a for a in _interface_addresses() if a != host])
    except OSError as exc:
        raise OptionsError(f"--lan: cannot keep the screens' certificate in {str(data)!r} "
                           f"({exc.strerror or exc})") from None


def _data_dir() -> Path:
    from ..paths import data_dir

    return data_dir()


def store_for(directory: Path) -> Path:
    """The seats' file in the table's data directory."""
    return directory / STORE_NAME


def public_host(settings: ScreenSettings) -> str:
    """The host name or address in the printed address, join links and QR codes."""
    if settings.host:
        if settings.lan and _is_loopback(settings.host):
            raise OptionsError(f"--host {settings.host} is a loopback address: phones cannot open it")
        return settings.host
    if not settings.lan:
        return LOOPBACK
    found = lan_address()
    if found is None:
        raise OptionsError("--lan: this machine has no network address a phone could open "
                           "(is it on a network?); name one with --host ADDRESS")
    return found


def lan_address() -> str | None:
    """This machine's address on the local network, found without sending anything:
    the source address of a UDP socket "connected" to an outside address (no packet
    leaves), else the first non-loopback address of the interfaces, else None."""
    for probe in ("192.0.2.1", "10.255.255.255"):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            sock.connect((probe, 9))
            address = str(sock.getsockname()[0])
        except OSError:
            continue
        finally:
            sock.close()
        if not _is_loopback(address) and address != EVERYWHERE:
            return address
    for address in _interface_addresses():
        if not _is_loopback(address):
            return address
    return None


def _interface_addresses() -> list[str]:
    """IPv4 addresses of the interfaces (Linux ioctl), and of the host name."""
    found: list[str] = []
    try:
        import fcntl
        import struct

        for _, name in socket.if_nameindex():
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                packed = fcntl.ioctl(sock.fileno(), 0x8915,   # SIOCGIFADDR
                                     struct.pack("256s", name.encode()[:15]))
                found.append(socket.inet_ntoa(packed[20:24]))
            except OSError:
                pass
            finally:
                sock.close()
    except (ImportError, OSError):
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    return found
