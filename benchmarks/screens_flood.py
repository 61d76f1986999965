"""The LAN service while a guest on many addresses floods it (issue 49).

A guest with 8 or more addresses holding 32 idle connections each filled the 256
places for connections not yet sorted: every new connection from anyone else was
closed at once (17 of 20 new pages failed), and a phone tapping every 7 s (its
connection closed by the 5 s keep-alive) lost taps.  Here:

* a child process serves the screens as ``--lan`` does (TLS, the generated
  certificate, phones told ``table.test``) but listening on 127.0.0.1 only
  (``screens_idle_guest.py --serve``): nothing reaches the machine's network;
* another child process is the guest (``--flood``): ``--per-address`` connections from
  each of ``--addresses`` loopback addresses (127.0.1.1, 127.0.1.2, ...), idle (no byte)
  or half a TLS handshake (``--half-tls``), every one the server closes opened again,
  for the run's length;
* this process plays the table: two phones joined before the flood, one tapping
  status every second and one every 7 s; ``--pages`` new phones, one after another,
  each from an address of its own, opening the home page on new connections (a
  failed try is tried again half a second later, as an impatient player reloads) and
  timed from the first try to the answer; and the referee's own table screen at
  ``http://127.0.0.1:PORT`` (plain http, loopback) timed the same way.

    python -m benchmarks.screens_flood [--addresses 9] [--per-address 32] [--pages 20] [--out FILE]

The figures go to ``benchmarks/screens_flood.txt``.  ``flood()`` is also the guest of
``tests/screens/test_lan_flood.py``.
"""

from __future__ import annotations

import argparse
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
#: the first bytes of a TLS ClientHello (a handshake begun and left)
HALF_HELLO = b"\x16\x03\x01\x02\x00\x01"
#: how soon a refused page is tried again (an impatient player's reload)
RELOAD_SECONDS = 0.5


def guest_address(n: int) -> str:
    """The guest's ``n``-th address (from 0), all in 127.0.0.0/8 and none a phone's."""
    return f"127.1.{n // 250}.{n % 250 + 1}"


def _open(address: str, port: int, half_tls: bool) -> socket.socket | None:
    """A connection from ``address`` (None: not made within half a second)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(0.5)
    try:
        sock.bind((address, 0))
        sock.connect(("127.0.0.1", port))
        if half_tls:
            sock.sendall(HALF_HELLO)
    except OSError:
        sock.close()
        return None
    sock.setblocking(False)      # looked at without waiting from now on (``_closed``)
    return sock


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def flood(port: int, addresses: int, per_address: int, seconds: float, max_opened: int,
          half_tls: bool = False, stop: threading.Event | None = None) -> dict[str, int]:
    """Hold ``per_address`` connections from each of ``addresses`` guest addresses (a
    thread each) for ``seconds``, opening again at once every one the server closes (at
    most ``max_opened`` in all).  How many were opened, and how many the server closed."""
    stop = stop or threading.Event()
    end = time.monotonic() + seconds
    counts = {"opened": 0, "closed by the server": 0}
    lock = threading.Lock()

    def one_address(n: int) -> None:
        held: list[socket.socket | None] = [None] * per_address
        try:
            while time.monotonic() < end and not stop.is_set():
                for i, sock in enumerate(held):
                    if sock is not None and not _closed(sock):
                        continue
                    if sock is not None:
                        sock.close()
                        held[i] = None
                        with lock:
                            counts["closed by the server"] += 1
                    with lock:
                        if counts["opened"] >= max_opened:
                            continue
                        counts["opened"] += 1
                    held[i] = _open(guest_address(n), port, half_tls)
                time.sleep(0.005)
        finally:
            for sock in held:
                if sock is not None:
                    sock.close()

    threads = [threading.Thread(target=one_address, args=(n,), daemon=True) for n in range(addresses)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return counts


# -- the table's side ---------------------------------------------------------------

def _context(cert: str) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=cert)
    context.check_hostname = False
    return context


def new_page(url: str, source: str, cert: str | None, within: float,
             pause: float = RELOAD_SECONDS) -> tuple[float | None, int]:
    """Open ``url`` on new connections from ``source`` until it is answered 200 (or 303),
    trying again ``pause`` seconds after a failure (a player reloading the page); seconds
    from the first try to the answer (None: not within ``within``), and tries."""
    import httpx

    start = time.monotonic()
    tries = 0
    while time.monotonic() - start < within:
        tries += 1
        verify: ssl.SSLContext | bool = _context(cert) if cert else False
        transport = httpx.HTTPTransport(local_address=source, verify=verify)
        try:
            with httpx.Client(transport=transport, timeout=within, verify=verify) as client:
                answer = client.get(url)
            if answer.status_code in (200, 303):
                return time.monotonic() - start, tries
        except httpx.HTTPError:
            pass
        time.sleep(pause)
    return None, tries


def tapping_phone(port: int, cert: str, seat: int, token: str, every: float, taps: int,
                  out: dict[int, list[float | str]], joined: threading.Event, start: threading.Event) -> None:
    """A phone joined before the flood, tapping status every ``every`` seconds on its own
    (kept-alive, then new) connections: each tap's seconds, or why it failed."""
    import httpx

    base = f"https://127.0.0.1:{port}"
    results: list[float | str] = []
    transport = httpx.HTTPTransport(local_address=f"127.0.2.{seat}", verify=_context(cert))
    with httpx.Client(base_url=base, transport=transport, timeout=30, headers={"origin": base}) as client:
        assert client.get(f"/join/{token}").status_code == 303
        joined.set()
        start.wait()
        for _ in range(taps):
            time.sleep(every)
            began = time.monotonic()
            try:
                answer = client.post(f"/seat/{seat}/command", content=b"control=status",
                                     headers={"accept": "application/json",
                                              "content-type": "application/x-www-form-urlencoded"})
                results.append(time.monotonic() - began if answer.status_code == 200
                               else f"answered {answer.status_code}")
            except httpx.HTTPError as exc:
                results.append(f"failed: {type(exc).__name__}")
    out[seat] = results


def _cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (Linux)."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _summary(label: str, times: list[float | None], tries: list[int]) -> str:
    got = sorted(t * 1000 for t in times if t is not None)
    if not got:
        return f"  {label}: none answered within the bound ({len(times)} tried)"
    worst = f"{got[-1]:.0f} ms" if len(got) == len(times) else "kept out"
    return (f"  {label}: {len(got)} of {len(times)} answered; from the first try, median "
            f"{statistics.median(got):.0f} ms, max {worst}; tries a page: max {max(tries)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addresses", type=int, default=9, help="the guest's addresses")
    parser.add_argument("--per-address", type=int, default=32, help="connections held from each")
    parser.add_argument("--half-tls", action="store_true", help="each guest connection begins a TLS handshake")
    parser.add_argument("--pages", type=int, default=20, help="new phones' pages (and table screens) opened")
    parser.add_argument("--within", type=float, default=10.0, help="how long a page is tried, in seconds")
    parser.add_argument("--seconds", type=float, default=60.0, help="the flood's length at most")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_suffix(".txt"))
    parser.add_argument("--flood", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--max-opened", type=int, default=200_000, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood is not None:        # the guest's process: SIGTERM ends the flood, and it says what it did
        import signal

        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        print(json.dumps(flood(args.flood, args.addresses, args.per_address, args.seconds, args.max_opened,
                               args.half_tls, stop)), flush=True)
        return
    import resource

    kind = "half-TLS" if args.half_tls else "idle"
    lines = [(f"LAN service (TLS, loopback) while a guest on {args.addresses} addresses holds "
             f"{args.per_address} {kind} connections each, re-opening what is closed; {time.strftime('%Y-%m-%d')}")]
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "screens_idle_guest.py"), "--serve", tmp],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        guest = None
        try:
            assert server.stdout is not None
            info = json.loads(server.stdout.readline())
            port, cert, seats = int(info["port"]), str(info["cert"]), info["seats"]
            taps: dict[int, list[float | str]] = {}
            joined = [threading.Event(), threading.Event()]
            go = threading.Event()
            phones = [threading.Thread(target=tapping_phone, args=(port, cert, seat, seats[str(seat)], every, count,
                                                                   taps, joined[n], go))
                      for n, (seat, every, count) in enumerate(((1, 1.0, 20), (2, 7.0, 4)))]
            for phone in phones:
                phone.start()
            for event in joined:
                event.wait(60)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            served_before = _cpu_seconds(server.pid)
            guest = subprocess.Popen([sys.executable, "-m", "benchmarks.screens_flood", "--flood", str(port),
                                      "--addresses", str(args.addresses), "--per-address", str(args.per_address),
                                      "--seconds", str(args.seconds), *(["--half-tls"] if args.half_tls else [])],
                                     stdout=subprocess.PIPE, text=True, cwd=ROOT)
            time.sleep(2.0)                       # the guest holds its connections
            go.set()
            page_times: list[float | None] = []
            page_tries: list[int] = []
            table_times: list[float | None] = []
            table_tries: list[int] = []
            for n in range(args.pages):
                took, tries = new_page(f"https://127.0.0.1:{port}/", f"127.0.3.{n + 1}", cert, args.within)
                page_times.append(took)
                page_tries.append(tries)
                took, tries = new_page(f"http://127.0.0.1:{port}/", "127.0.0.1", None, args.within)
                table_times.append(took)
                table_tries.append(tries)
            for phone in phones:
                phone.join(120)
            guest.terminate()
            flooded = json.loads(guest.communicate(timeout=60)[0] or "{}")
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            served = _cpu_seconds(server.pid) - served_before
            lines.append(f"  the guest: {flooded}")
            lines.append(_summary("a new phone's page (https, its own address)", page_times, page_tries))
            lines.append(_summary("the table screen (http://127.0.0.1)", table_times, table_tries))
            for seat, every in ((1, "1 s"), (2, "7 s")):
                got = taps.get(seat, [])
                ok = [t * 1000 for t in got if isinstance(t, float)]
                failed = [t for t in got if not isinstance(t, float)]
                lines.append(f"  a joined phone tapping every {every}: {len(ok)} of {len(got)} taps answered"
                             + (f", median {statistics.median(ok):.0f} ms, max {max(ok):.0f} ms" if ok else "")
                             + (f"; failed {sorted(set(failed))}" if failed else ""))
            lines.append(f"  CPU seconds meanwhile: the server {served:.1f}, the guest "
                         f"{after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime:.1f}")
        finally:
            if guest is not None and guest.poll() is None:
                guest.kill()
            if server.stdin is not None:
                server.stdin.close()
            server.wait(30)
    text = "\n".join(lines) + "\n"
    print(text, end="")
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
