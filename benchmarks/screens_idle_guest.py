"""Four phones against a LAN service while one guest holds hundreds of idle connections
(issue 41).

A child process serves the screens as ``--lan`` does (TLS with the generated
certificate, phones told the name ``table.test``) but listening on 127.0.0.1 only
(``ScreenSettings.bind``): nothing here reaches the machine's network.  The parent
plays four phones, each from its own loopback address (127.0.0.11-14): join the seat,
load its page, wait for the first live update, then tap the status button
``TAPS`` times, each request timed, over TLS.  That runs twice: with no guest, and
while a guest at 127.0.0.2 holds ``GUEST`` idle TCP connections (no byte sent, no
cookie), opened before the phones start and held to the end.  It also reports how
many of the guest's connections the server kept open, at once and after
``FIRST_BYTE_SECONDS`` and a little more.  Figures go to
``benchmarks/screens_idle_guest.txt``.

    python benchmarks/screens_idle_guest.py [--guest 300] [--taps 20] [--out FILE]

A server without ``ScreenSettings.bind`` (an older commit) binds every address: run
the script then inside a network namespace of its own (``unshare -rn``, loopback up).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUEST_ADDRESS = "127.0.0.2"
PHONES = (1, 2, 3, 4)


def serve(data: Path) -> None:
    """The child: the screens of a four-player Compass Code, until stdin closes."""
    from facilitator.screens import ScreenServer, ScreenSettings
    from facilitator.session import Session
    from facilitator.table_data import TableData

    options: dict[str, object] = {"lan": True, "port": 0, "host": "table.test"}
    if "bind" in {f.name for f in dataclasses.fields(ScreenSettings)}:
        options["bind"] = "127.0.0.1"
    session, opening = Session.start("compass-code", players=4, seed=1, table=TableData(data),
                                     log_path=data / "game.jsonl")
    server = ScreenServer(session, opening, ScreenSettings(**options), data=data).start()  # type: ignore[arg-type]
    assert server.certificate is not None
    seats = {n: server.seats.seats[n].token for n in PHONES}
    print(json.dumps({"port": server.port, "cert": str(server.certificate.cert_path), "seats": seats}), flush=True)
    sys.stdin.read()
    server.stop()
    session.log.close()


def phone(port: int, cert: str, seat: int, token: str, taps: int, out: dict[int, list[tuple[str, float | str]]],
          cookies: dict[int, dict[str, str]]) -> None:
    """One phone's requests on new connections, each as (kind, seconds) or (kind, "failed: why").
    It joins its seat unless ``cookies`` has the seat's cookie from an earlier round."""
    import httpx

    context = ssl.create_default_context(cafile=cert)
    context.check_hostname = False
    base = f"https://127.0.0.1:{port}"
    timed: list[tuple[str, float | str]] = []
    transport = httpx.HTTPTransport(local_address=f"127.0.0.{10 + seat}", verify=context)
    with httpx.Client(base_url=base, transport=transport, timeout=30, headers={"origin": base},
                      cookies=cookies.get(seat, {})) as client:
        def one(kind: str, call: object) -> None:
            start = time.perf_counter()
            try:
                call()  # type: ignore[operator]
                timed.append((kind, time.perf_counter() - start))
            except (httpx.HTTPError, AssertionError, StopIteration) as exc:
                timed.append((kind, f"failed: {type(exc).__name__}"))

        def join() -> None:
            assert client.get(f"/join/{token}").status_code == 303

        def page() -> None:
            assert client.get(f"/seat/{seat}").status_code == 200

        def live() -> None:
            with client.stream("GET", f"/seat/{seat}/events") as stream:
                assert next(stream.iter_lines()).startswith("data: ")

        def tap() -> None:
            answer = client.post(f"/seat/{seat}/command", content=b"control=status",
                                 headers={"accept": "application/json",
                                          "content-type": "application/x-www-form-urlencoded"})
            assert answer.status_code == 200

        if seat not in cookies:
            one("join", join)
            cookies[seat] = dict(client.cookies)
        one("page", page)
        one("live update", live)
        for _ in range(taps):
            one("tap", tap)
    out[seat] = timed


def still_open(sock: socket.socket) -> bool:
    sock.settimeout(0.0)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def play(port: int, cert: str, seats: dict[str, str], taps: int,
         cookies: dict[int, dict[str, str]]) -> dict[int, list[tuple[str, float | str]]]:
    out: dict[int, list[tuple[str, float | str]]] = {}
    threads = [threading.Thread(target=phone, args=(port, cert, n, seats[str(n)], taps, out, cookies))
               for n in PHONES]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    return out


def summary(label: str, out: dict[int, list[tuple[str, float | str]]]) -> list[str]:
    lines = [label]
    for kind in ("join", "page", "live update", "tap"):
        times = [v for seat in out.values() for k, v in seat if k == kind and isinstance(v, float)]
        failed = [v for seat in out.values() for k, v in seat if k == kind and not isinstance(v, float)]
        if not times and not failed:
            continue
        if times:
            ms = sorted(t * 1000 for t in times)
            p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
            lines.append(f"  {kind}: {len(times)} answered, median {statistics.median(ms):.1f} ms, "
                         f"p95 {p95:.1f} ms, max {ms[-1]:.1f} ms; {len(failed)} failed {sorted(set(failed))}")
        else:
            lines.append(f"  {kind}: none answered; {len(failed)} failed {sorted(set(failed))}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guest", type=int, default=300, help="idle connections the guest holds")
    parser.add_argument("--taps", type=int, default=20, help="status taps per phone")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_suffix(".txt"))
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return
    from facilitator.screens import tls

    title = (f"LAN service (TLS, loopback), four phones x (join, page, live update, {args.taps} taps), "
             f"{time.strftime('%Y-%m-%d')}")
    lines = [title]
    with tempfile.TemporaryDirectory() as tmp:
        child = subprocess.Popen([sys.executable, __file__, "--serve", tmp], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True, cwd=ROOT)
        try:
            assert child.stdout is not None
            info = json.loads(child.stdout.readline())
            port, cert = int(info["port"]), str(info["cert"])
            cookies: dict[int, dict[str, str]] = {}
            lines += summary("no guest:", play(port, cert, info["seats"], args.taps, cookies))
            guest: list[socket.socket] = []
            for _ in range(args.guest):
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.bind((GUEST_ADDRESS, 0))
                sock.settimeout(5)
                try:
                    sock.connect(("127.0.0.1", port))
                    guest.append(sock)
                except OSError:
                    sock.close()
            time.sleep(1.0)
            held = sum(still_open(s) for s in guest)
            started = time.monotonic()
            lines += summary(f"a guest at {GUEST_ADDRESS} holding {len(guest)} idle connections "
                             f"({held} still open a second later), the phones on new connections:",
                             play(port, cert, info["seats"], args.taps, cookies))
            time.sleep(max(0.0, started + getattr(tls, "FIRST_BYTE_SECONDS", 10.0) + 2.0 - time.monotonic()))
            later = sum(still_open(s) for s in guest)
            lines.append(f"  the guest's connections still open {time.monotonic() - started + 1.0:.0f} s "
                         f"after they were opened: {later}")
            for sock in guest:
                sock.close()
        finally:
            if child.stdin is not None:
                child.stdin.close()
            child.wait(30)
    text = "\n".join(lines) + "\n"
    print(text, end="")
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
