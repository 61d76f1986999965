"""Shared by the screens tests: where chromium is, how long to wait, screenshots, screen
servers a test starts on loopback."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from support import deadline

from facilitator.screens import ScreenServer, ScreenSettings
from facilitator.session import Session
from facilitator.table_data import TableData

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
#: how long a wait may last before it is a hang: generous, since the machine is small and
#: shared (two cores, other test runs beside).  A wait ends as soon as its condition holds,
#: so a longer bound costs a passing test nothing; it never stands in for an assertion.
WAIT_SECONDS = deadline(60.0)
WAIT_MS = int(WAIT_SECONDS * 1000)
ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = deadline(120.0)


def wait_until(page: Any, expression: str, timeout_ms: int = WAIT_MS) -> None:
    """Wait until a JavaScript expression is true on the page.  Polled from here with
    ``page.evaluate``: Playwright's ``wait_for_function`` builds its predicate with
    ``eval``, which the screens' Content-Security-Policy (``script-src 'self'``)
    refuses whenever the first check is not already true."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {timeout_ms} ms: {expression}")
        page.wait_for_timeout(50)


def wait_until_live(page: Any) -> None:
    """Wait until the page's first live update came (it marks ``body[data-seen]``)."""
    wait_until(page, "document.body.dataset.seen !== undefined")


def screenshot(page: Any, name: str) -> Path:
    """Keep a full-page screenshot under tests/artifacts/ (gitignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"screens-{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path

def board_shot(page: Any, selector: str, name: str) -> Path:
    """Keep a screenshot of one part of a page (a game's board) under tests/artifacts/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"board-{name}.png"
    page.locator(selector).screenshot(path=str(path))
    return path

#: every button and field has a name a screen reader can say; nothing scrolls sideways
_ACCESSIBILITY = """() => {
  const problems = [];
  for (const b of document.querySelectorAll('button')) {
    const name = (b.getAttribute('aria-label') || b.innerText || b.textContent || '').trim();  // folded: textContent
    if (!name) problems.push('button without a name: ' + b.outerHTML.slice(0, 80));
  }
  for (const f of document.querySelectorAll('input:not([type=hidden]), select')) {
    if (!(f.labels && f.labels.length) && !f.getAttribute('aria-label')) problems.push('unlabelled field: ' + f.outerHTML.slice(0, 80));
  }
  if (!document.querySelector('[aria-live]')) problems.push('no live region');
  const wide = document.scrollingElement.scrollWidth - window.innerWidth;
  if (wide > 1) problems.push('scrolls sideways by ' + wide + ' px');
  return problems;
}"""


def axe_findings(page: Any) -> list[str]:
    """Every violation axe-core finds on the page as it is now, whatever its impact
    (minor and moderate ones too), as readable lines."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
            for v in results.response["violations"]]


def closed_clean(contexts: list[Any], request: Any) -> None:
    """Close browser contexts a test made, after axe has looked at every page it left
    open (unless the test already failed): a finding of any impact fails the test
    (issue 49), so each page state a browser test ends on is one a screen reader can use."""
    findings: list[str] = []
    try:
        if not getattr(request.node, "failed_call", False):
            for context in contexts:
                findings += [f"{page.url}: {finding}" for page in context.pages
                             if not page.is_closed() and page.url.startswith("http")
                             for finding in axe_findings(page)]
    finally:
        for context in contexts:
            context.close()
    assert findings == [], "axe found on the pages this test left:\n" + "\n".join(findings)


def accessibility_problems(page: Any) -> list[str]:
    """What a screen reader or a 320 px phone would trip on, as readable lines."""
    return list(page.evaluate(_ACCESSIBILITY))


def join_seat(device: Any, table: Any, seat: int) -> Any:
    """A new phone (``device()``) that joins ``seat`` by the link on the table screen's seat card."""
    href = table.locator(f"#region-live .seat-card:nth-child({seat}) a.join-link").get_attribute("href")
    page = device()
    page.goto(href)
    page.wait_for_url(f"**/seat/{seat}")
    return page


def answer_asked(page: Any, button: str, question: str, yes: bool = True) -> None:
    """A tap that cannot be taken back (or discards progress) only asks: the question
    shows in the tapped control's form, focus on No; Yes sends it, No keeps things."""
    from playwright.sync_api import expect

    page.click(button)
    ask = page.locator(button).locator("xpath=ancestor::form").locator(".ask")
    expect(ask.locator(".question")).to_contain_text(question)
    expect(ask.locator("button.no")).to_be_focused()            # nothing preselected: Enter keeps things
    ask.locator("button.yes" if yes else "button.no").click()


#: where the board, the announcements and their newest line are on the table screen now
_BOARD_FACTS = """() => {
  const box = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
                        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  const items = document.querySelectorAll('#region-said .said li');
  return { board: box(document.getElementById('board')), log: box(document.querySelector('#region-said .scroller')),
           newest: box(items[items.length - 1]), status: box(document.getElementById('region-status')),
           width: window.innerWidth, height: window.innerHeight,
           wide: document.scrollingElement.scrollWidth - window.innerWidth };
}"""

#: the sizes a table screen is looked at: a laptop and a television
TABLE_SIZES = ((1280, 800), (1920, 1080))


def assert_board_first(table: Any, name: str, sizes: tuple[tuple[int, int], ...] = TABLE_SIZES) -> None:
    """The table screen lays the board out first: at each size (unscrolled) the whole
    board is in view, the announcements beside it (to its right, in view, their
    newest line too); on a phone-sized screen the board still comes first,
    before where we are and the announcements.  The page's size is put back; what
    each size showed is kept as ``tests/artifacts/layout-NAME-WxH.png``."""
    from playwright.sync_api import expect

    before = table.viewport_size
    try:
        for width, height in sizes:
            table.set_viewport_size({"width": width, "height": height})
            wait_until(table, f"window.innerWidth === {width}")
            table.wait_for_timeout(150)                       # the page's own resize handling
            table.evaluate("window.scrollTo(0, 0)")
            expect(table.locator("#board")).to_be_visible()
            facts = table.evaluate(_BOARD_FACTS)
            board, log, newest = facts["board"], facts["log"], facts["newest"]
            where = f"{width}x{height}: {facts}"
            assert board["top"] >= 0 and board["bottom"] <= height and board["right"] <= width, where
            assert log["left"] >= board["right"] - 1 and log["top"] < height, where   # beside it, in view
            assert newest is None or (newest["bottom"] <= min(height, log["bottom"]) + 1
                                      and newest["top"] >= log["top"] - 1), where        # the newest line too
            assert facts["wide"] <= 1, where
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            table.screenshot(path=str(ARTIFACTS / f"layout-{name}-{width}x{height}.png"))
        table.set_viewport_size({"width": 390, "height": 844})
        wait_until(table, "window.innerWidth === 390")
        table.evaluate("window.scrollTo(0, 0)")
        facts = table.evaluate(_BOARD_FACTS)
        assert facts["board"]["top"] < facts["height"], facts                  # in the first screenful
        assert facts["board"]["bottom"] <= facts["status"]["top"] + 1, facts    # before where we are
        assert facts["status"]["bottom"] <= facts["log"]["top"] + 1, facts      # and the announcements
        assert facts["wide"] <= 1, facts
    finally:
        table.set_viewport_size(before)


@contextlib.contextmanager
def screen_servers(root: Path) -> Iterator[Callable[..., ScreenServer]]:
    """``start(game, settings, data=None, **session)``: a new session of ``game``
    (``session``: ``Session.start``'s players, seed, ...) logged to ``root/gN.jsonl``,
    its table's data in ``data`` (None: ``root/data``, the server given no data
    directory), served with ``settings``.  Every server started is stopped and its log
    closed on leaving."""
    servers: list[ScreenServer] = []

    def start(game: str, settings: ScreenSettings, data: Path | None = None, **session: Any) -> ScreenServer:
        started, opening = Session.start(game, table=TableData(data or root / "data"),
                                         log_path=root / f"g{len(servers)}.jsonl", **session)
        server = ScreenServer(started, opening, settings, data=data).start()
        servers.append(server)
        return server
    try:
        yield start
    finally:
        for server in servers:
            server.stop()
            server.hub.session.log.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Service:
    """``facilitator serve --text --screens --service`` as a real subprocess."""

    def __init__(self, data: Path, port: int, *extra: str, command: tuple[str, ...] = ()) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        command = command or ("serve", "--text", "--service", "--screens")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "facilitator", *command,
             "--port", str(port), "--data-dir", str(data), *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
        self.out: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        self.url: queue.Queue[str] = queue.Queue()
        self.pumps = [threading.Thread(target=self._pump_out, daemon=True),
                      threading.Thread(target=self._pump_err, daemon=True)]
        for pump in self.pumps:
            pump.start()
        self.table_url = self.url.get(timeout=START_SECONDS)

    def _pump_out(self) -> None:
        for raw in self.proc.stdout:
            self.out.put(raw.decode().rstrip("\n"))

    def _pump_err(self) -> None:
        for raw in self.proc.stderr:
            line = raw.decode().rstrip("\n")
            self.err.append(line)
            if "table screen: open " in line:
                self.url.put(line.split("open ", 1)[1])

    def say(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()

    def heard(self, fragment: str, seconds: float = WAIT_SECONDS) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                line = self.out.get(timeout=0.2)
            except queue.Empty:
                continue
            if fragment in line:
                return line
        raise AssertionError(f"never announced {fragment!r}; stderr: {self.err}")

    def noted(self, fragment: str, seconds: float = WAIT_SECONDS) -> str:
        """The first standard-error line holding ``fragment``, waited for up to ``seconds``
        (the line and the pages' update race: both follow the same move)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for line in list(self.err):
                if fragment in line:
                    return line
            time.sleep(0.1)
        raise AssertionError(f"never wrote {fragment!r} to stderr: {self.err}")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=20)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for pump in self.pumps:
            pump.join(timeout=10)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):   # stdin of a process that is gone
                pipe.close()
