"""Memory of the screens server under oversized request bodies (issue 14).

A child ``facilitator play lantern-links --text --screens`` serves on a free
loopback port; the parent reads its resident memory (VmRSS, and the peak VmHWM)
from /proc, then sends one 100 MB POST to ``/join`` (declared length), then three
at once without a declared length (chunked), each streaming its whole body as
fast as the server takes it, and reads the memory again.  Before the body limit
one such POST raised the server from 66 to 228 MB.  Figures go to
``benchmarks/screens_hostile_bodies.txt``.

    python benchmarks/screens_hostile_bodies.py [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1024 * 1024
BODY_MB = 100


def status_kb(pid: int, key: str) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(rf"^{key}:\s+(\d+) kB", text, re.MULTILINE).group(1))


def post(port: int, chunked: bool) -> str:
    """Send a 100 MB body to /join; the server's first status line (or how it ended)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = "POST /join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {BODY_MB * MB}\r\n\r\n"
    block = b"A" * (64 * 1024)
    sent = 0
    try:
        sock.sendall(head.encode())
        while sent < BODY_MB * MB:
            sock.sendall((f"{len(block):x}\r\n".encode() + block + b"\r\n") if chunked else block)
            sent += len(block)
        if chunked:
            sock.sendall(b"0\r\n\r\n")
        answer = sock.recv(200).decode("latin-1").split("\r\n", 1)[0]
    except OSError as exc:            # the server answered 413 and closed while we were sending
        try:
            answer = sock.recv(200).decode("latin-1").split("\r\n", 1)[0] or f"closed ({exc.strerror})"
        except OSError:
            answer = f"closed after {sent // MB} MB ({exc.strerror})"
    finally:
        sock.close()
    return answer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "screens_hostile_bodies.txt")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        child = subprocess.Popen([sys.executable, "-m", "facilitator", "play", "lantern-links", "--text",
                                  "--screens", "--port", str(port), "--data-dir", tmp],
                                 stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        try:
            while b"table screen" not in child.stderr.readline():
                pass
            time.sleep(1.0)
            lines = [f"screens server, {BODY_MB} MB request bodies ({time.strftime('%Y-%m-%d')})"]
            lines.append(f"idle: VmRSS {status_kb(child.pid, 'VmRSS') // 1024} MB")
            one = post(port, chunked=False)
            lines.append(f"one POST, declared length: answer {one!r}; "
                         f"VmRSS {status_kb(child.pid, 'VmRSS') // 1024} MB")
            answers: list[str] = []
            threads = [threading.Thread(target=lambda: answers.append(post(port, chunked=True))) for _ in range(3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            lines.append(f"three POSTs at once, chunked: answers {sorted(answers)!r}; "
                         f"VmRSS {status_kb(child.pid, 'VmRSS') // 1024} MB")
            lines.append(f"peak (VmHWM) over the run: {status_kb(child.pid, 'VmHWM') // 1024} MB")
        finally:
            child.stdin.close()
            child.wait(timeout=30)
            child.stderr.close()
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
