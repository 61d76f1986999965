"""Shared by the screens tests: where chromium is, how long to wait, screenshots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
#: generous waits: the machine is small and shared
WAIT_MS = 20_000


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
