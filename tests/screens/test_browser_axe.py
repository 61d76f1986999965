"""Screens a low-vision player can read (issue 15), measured in Debian's chromium with
axe-core (bundled by axe-playwright-python): no violation of any impact (minor and
moderate included, since issue 49) on the table screen and on each game's seat screens, in light and dark mode, at 200% zoom
(half the CSS viewport at twice the pixel density, as the browser's zoom does) and
with the browser's default font size set to 32 px, where the text must grow.

Also measured here, by the page itself: the announcement numbers fit their margin
(">= 10" used to be cut), table headers never break inside a word, the turn prompt is
not redrawn (and so not announced again) on load, and screenshots of every screen at
phone and table sizes go to tests/artifacts/."""

from __future__ import annotations

from typing import Any

import pytest
from screens.screen_support import ARTIFACTS, WAIT_MS, axe_findings, wait_until_live

from facilitator.screens.seats import TABLE_COOKIE, cookie_name

pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844}
TABLE = {"width": 1280, "height": 900}
#: (name, colour scheme, zoom, default font size, size): light and dark at both sizes;
#: 200% zoom of the table-sized window (640 CSS px wide: a phone is narrower than 320
#: CSS px at 200%, which no phone browser does; it scales text, as the 32 px mode does)
MODES = [("light", "light", 1, None, "phone"), ("dark", "dark", 1, None, "phone"),
         ("font32", "dark", 1, 32, "phone"), ("light", "light", 1, None, "table"),
         ("dark", "dark", 1, None, "table"), ("zoom200", "light", 2, None, "table"),
         ("font32", "light", 1, 32, "table")]
SIZES = {"phone": PHONE, "table": TABLE}

#: each game: how it starts, lines that bring it to a moment worth looking at, seats to look at
GAMES: dict[str, list[tuple[str, dict[str, Any], list[str], list[int]]]] = {
    "compass-code": [("guess", {"players": 3, "options": {"keeper": "human", "mode": "standard",
                                                           "routes": ["ESNW", "NESW", "WSEN"]}},
                      ["send N E S W"], [1, 2]),
                     ("history", {}, ["feedback 1 2"], [3])],          # the public board on a phone
    "two-windows": [("reports", {"players": 3, "options": {"practice": True}}, [], [1, 2]),
                    ("revealed", {}, ["a sends FORM ROUND", "b sends SURFACE STRIPED"], [1])],
    "lantern-links": [("turn", {"players": 3}, [], [1, 2])],
    "clover": [("clues", {"players": 3, "options": {"extra": 2}}, [], [1]),
               ("board", {}, [f"clue {s} {z} {w}" for s in (1, 2, 3)
                              for z, w in zip(("top", "right", "bottom", "left"),
                                              ("serendipity", "melancholy", "nostalgia", "whimsy"))], [2])],
}

PAGE_FACTS = r"""() => {
  const li = document.querySelector('.said li[value]');
  let numbersFit = true;
  if (li) {
    const ol = li.parentElement, style = getComputedStyle(li);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
    numbersFit = parseFloat(getComputedStyle(ol).paddingLeft) >= ctx.measureText('100. ').width;
  }
  // a header broken inside a word: one word whose letters sit on two lines
  const brokenHeaders = Array.from(document.querySelectorAll('th')).filter((th) => {
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('.sr-only')) continue;
      for (const m of node.data.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
        if (tops.size > 1) return true;
      }
    }
    return false;
  }).map((th) => th.innerText);
  return { fontSize: parseFloat(getComputedStyle(document.body).fontSize), numbersFit, brokenHeaders,
           promptRedraws: window.__promptRedraws || 0 };
}"""

COUNT_PROMPT_REDRAWS = """
window.__promptRedraws = 0;
document.addEventListener('DOMContentLoaded', () => {
  const prompt = document.getElementById('region-prompt');
  if (prompt) new MutationObserver(() => { window.__promptRedraws += 1; })
      .observe(prompt, { childList: true, subtree: true, characterData: true });
});
"""


def open_page(browser, server, path: str, cookies: dict[str, str], size: dict[str, int], scheme: str,
              zoom: int, font: int | None):
    viewport = {"width": size["width"] // zoom, "height": size["height"] // zoom}
    context = browser.new_context(viewport=viewport, device_scale_factor=zoom, color_scheme=scheme)
    context.set_default_timeout(WAIT_MS)
    context.add_cookies([{"name": k, "value": v, "url": server.base_url} for k, v in cookies.items()])
    context.add_init_script(COUNT_PROMPT_REDRAWS)
    page = context.new_page()
    if font:
        page.context.new_cdp_session(page).send("Page.setFontSizes",
                                                {"fontSizes": {"standard": font, "fixed": font}})
    page.goto(server.base_url + path)
    wait_until_live(page)   # the first live update came
    page.wait_for_timeout(200)
    return context, page


@pytest.mark.parametrize("game", list(GAMES))
def test_no_violation_of_any_impact_in_any_mode(game, start_server, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    server = None
    problems: list[str] = []
    for stage, kwargs, lines, seats in GAMES[game]:
        if server is None:
            server = start_server(game, seed=5, **kwargs)
            for _ in range(12):     # announcements numbered past 10
                server.hub.submit("repeat")
            holders = {n: server.seats.claim(server.seats.seats[n].token)[1] for n in server.seats.seats}
        for line in lines:
            assert server.hub.submit(line).accepted, line
        screens = [("table", "/table", {TABLE_COOKIE: server.seats.table_key})]
        screens += [(f"seat{n}", f"/seat/{n}", {cookie_name(n): holders[n]}) for n in seats]
        for name, path, cookies in screens:
            sizes: dict[str, float] = {}
            for mode, scheme, zoom, font, size_name in MODES:
                size = SIZES[size_name]
                if True:
                    context, page = open_page(browser, server, path, cookies, size, scheme, zoom, font)
                    try:
                        where = f"{game} {stage} {name} {mode} {size_name}"
                        problems += [f"{where}: {v}" for v in axe_findings(page)]
                        facts = page.evaluate(PAGE_FACTS)
                        sizes[f"{mode}-{size_name}"] = facts["fontSize"]
                        if not facts["numbersFit"]:
                            problems.append(f"{where}: announcement numbers are cut")
                        if facts["brokenHeaders"]:
                            problems.append(f"{where}: headers broken inside a word {facts['brokenHeaders']}")
                        if facts["promptRedraws"]:
                            problems.append(f"{where}: the turn prompt was redrawn on load")
                        wide = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
                        if wide > 1:
                            problems.append(f"{where}: scrolls sideways by {wide} px")
                        if mode in ("light", "dark"):
                            page.screenshot(path=str(ARTIFACTS / f"axe-{game}-{stage}-{name}-{mode}-{size_name}.png"),
                                            full_page=True)
                    finally:
                        context.close()
            for size_name in SIZES:     # text follows the reader's setting
                assert sizes[f"font32-{size_name}"] >= 1.9 * sizes[f"light-{size_name}"], (name, sizes)   # text follows the reader's setting
    assert problems == [], "\n".join(problems)
