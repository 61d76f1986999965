"""Every response of the screens carries a Content-Security-Policy (this origin's own
scripts, styles, workers and connections only; no framing), X-Frame-Options,
Permissions-Policy (the microphone for these pages only), nosniff and a referrer
policy (issue 36); the pages work under it, and another site cannot frame them."""

from __future__ import annotations

import httpx
import pytest
from screens.screen_support import join_seat

ROUTES = {"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]}
JSON = {"accept": "application/json"}


def assert_guarded(response: httpx.Response) -> None:
    headers = response.headers
    policy = headers.get("content-security-policy", "")
    directives = {d.strip().split(" ", 1)[0]: d.strip() for d in policy.split(";") if d.strip()}
    where = f"{response.request.method} {response.request.url.path} ({response.status_code})"
    assert directives.get("default-src") == "default-src 'self'", where
    assert directives.get("script-src") == "script-src 'self'", where        # no inline script, no eval
    assert directives.get("worker-src") == "worker-src 'self'", where        # an AudioWorklet from /static
    assert directives.get("frame-ancestors") == "frame-ancestors 'none'", where
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, where
    assert headers.get("x-frame-options") == "DENY", where
    assert "microphone=(self)" in headers.get("permissions-policy", ""), where
    assert headers.get("x-content-type-options") == "nosniff", where
    assert headers.get("referrer-policy") == "same-origin", where


def test_every_kind_of_response_carries_the_security_headers(start_server):
    server = start_server("compass-code", players=3, seed=3, options=dict(ROUTES))
    with httpx.Client(base_url=server.base_url, timeout=20) as table, \
            httpx.Client(base_url=server.base_url, timeout=20) as phone, \
            httpx.Client(base_url=server.base_url, timeout=20) as stranger:
        responses = [table.get(f"/table/{server.seats.table_key}"),      # a redirect
                     table.get("/table"), table.get("/static/screens.css"), table.get("/static/screens.js"),
                     stranger.get("/"), stranger.get("/join"), stranger.get("/seat/1"),           # a refusal: 403
                     stranger.get("/join/not-a-token"),                                           # 404
                     stranger.get("/join", headers={"host": "evil.example"})]                     # the host check: 400
        assert phone.get(f"/join/{server.seats.seats[2].token}").status_code == 303
        responses.append(phone.get("/seat/2"))
        responses.append(phone.post("/seat/2/command", headers=JSON,
                                    data={"control": "send", "a": "N", "b": "E", "c": "S", "d": "W"}))
        with table.stream("GET", "/table-live") as live:                                          # the event stream
            responses.append(live)
        assert [r.status_code for r in responses] == [303, 200, 200, 200, 200, 200, 403, 404, 400, 200, 200, 200]
        for response in responses:
            assert_guarded(response)


@pytest.mark.slow
def test_the_pages_work_under_the_policy_and_no_site_can_frame_them(start_server, device):
    from playwright.sync_api import expect

    server = start_server("compass-code", players=3, seed=3, options=dict(ROUTES))
    watch = """window.__blocked = [];
        document.addEventListener('securitypolicyviolation', (e) => window.__blocked.push(e.violatedDirective + ' ' + e.blockedURI));"""
    table = device(width=1280, height=800)
    table.add_init_script(watch)
    table.goto(server.table_url)
    captain = join_seat(device, table, 2)
    captain.add_init_script(watch)
    captain.reload()
    # the script runs: live updates arrive and a tap posts in the background
    for field, direction in zip("abcd", "NESW"):
        captain.select_option(f"#send-{field}", direction)
    captain.click("#do-send")
    expect(table.locator(".said")).to_contain_text("Guess 1 is north east south west")
    expect(captain.locator("form.control .feedback, #feedback").filter(has_text="Guess 1")).to_have_count(1)
    for page in (table, captain):
        assert page.evaluate("window.__blocked") == [], page.url
    # a page of another site that frames the table screen gets nothing of it
    framing = device(width=800, height=600)
    framing.set_content(f'<iframe src="{server.base_url}/table" width="700" height="500"></iframe>')
    framing.wait_for_timeout(1500)
    framed = framing.frames[1]
    assert framed.url.startswith("chrome-error://"), framed.url          # refused, not shown

