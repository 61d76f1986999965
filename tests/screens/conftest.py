"""Fixtures for the screens: a server on a free loopback port, and Debian's chromium.

Browser tests drive /usr/bin/chromium headless through Playwright for Python (its
own browser download cannot work here; ``.ci/setup`` installs chromium).  Each
test starts its own server and stops it; Playwright gives every launch a fresh
temporary profile, and each device is its own browser context (its own cookies).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from screens.screen_support import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, closed_clean, screen_servers

from facilitator.screens import ScreenServer, ScreenSettings


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[None]:
    """Note on the test whether its body failed (the pages it left are then not judged)."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        item.failed_call = True


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., ScreenServer]]:
    """``start_server(game, **session)``: ``game`` served on a free loopback port (plain http)."""
    with screen_servers(tmp_path) as serve:
        def start(game: str, **kwargs: Any) -> ScreenServer:
            return serve(game, ScreenSettings(port=0), **kwargs)
        yield start


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail("browser tests need Debian's chromium at /usr/bin/chromium (.ci/setup installs it)")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def device(browser: Any, request: Any) -> Iterator[Callable[..., Any]]:
    """A new device (its own cookies): ``device(width=390)`` returns a page.  Every page
    a test leaves open is looked at by axe-core as the test left it (``closed_clean``)."""
    contexts: list[Any] = []

    def new(width: int = 390, height: int = 844) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(WAIT_MS)
        contexts.append(context)
        return context.new_page()

    yield new
    closed_clean(contexts, request)
