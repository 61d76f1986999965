"""Run inside a network namespace of a test's own (``lan_support.in_namespace``): the
screens with ``--lan`` as a table runs them (every address bound, the address phones
are given found from the interfaces), and a device at another address of the
namespace's network asking them.  Prints one JSON object of what it saw; the test
(``test_lan_tls.py``) judges it.  Usage: ``python lan_namespace_case.py DATA_DIR``."""

from __future__ import annotations

import json
import socket
import ssl
import sys
from pathlib import Path

from facilitator.screens import ScreenServer, ScreenSettings
from facilitator.session import Session
from facilitator.table_data import TableData

DEVICE = sys.argv[2] if len(sys.argv) > 2 else ""


def ask(address: tuple[str, int], request: bytes, source: str = DEVICE) -> str:
    """One plain-http request from ``source``, the whole answer."""
    with socket.create_connection(address, timeout=20, source_address=(source, 0)) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    return answer.decode("latin-1")


def main(data: Path) -> dict[str, object]:
    session, opening = Session.start("lantern-links", players=3, seed=2, log_path=data / "g.jsonl",
                                     table=TableData(data))
    server = ScreenServer(session, opening, ScreenSettings(lan=True, port=0), data=data).start()
    try:
        host, port = server.host, server.port
        seen: dict[str, object] = {"host": host, "base_url": server.base_url, "table_url": server.table_url}
        assert server.certificate is not None
        seen["ip_names"] = sorted(server.certificate.ip_names)
        # TLS from the other device, the certificate the only trust anchor, the name checked
        context = ssl.create_default_context(cafile=str(server.certificate.cert_path))
        with socket.create_connection((host, port), timeout=20, source_address=(DEVICE, 0)) as raw, \
                context.wrap_socket(raw, server_hostname=host) as tls:
            seen["peer_names"] = [list(name) for name in tls.getpeercert()["subjectAltName"]]
            seen["tls_version"] = tls.version()
            tls.sendall(f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
            seen["tls_answer"] = tls.recv(4096).decode("latin-1").split("\r\n", 1)[0]
        try:
            with socket.create_connection((host, port), timeout=20, source_address=(DEVICE, 0)) as raw:
                ssl.create_default_context().wrap_socket(raw, server_hostname=host)
            seen["untrusted"] = "accepted"
        except ssl.SSLCertVerificationError:
            seen["untrusted"] = "refused"
        # plain http from the other device: redirected to https
        head = f"Host: {host}:{port}\r\n".encode()
        seen["redirects"] = {
            target.decode("latin-1"): ask((host, port), b"GET " + target + b" HTTP/1.1\r\n" + head + b"\r\n")
            for target in (b"/join/abc?x=1", b"http://evil.example/", b"//evil.example/x", b"/a\x01b")}
        seen["posted"] = ask((host, port), b"POST /table-command HTTP/1.1\r\n" + head + b"Content-Length: 0\r\n\r\n")
        # plain http from the machine itself (loopback): served as it is
        seen["loopback"] = ask(("127.0.0.1", port), b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                               b"Connection: close\r\n\r\n", "127.0.0.1").split("\r\n", 1)[0]
        return seen
    finally:
        server.stop()
        session.log.close()


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
