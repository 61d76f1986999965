"""With ``--lan`` the address phones are given is one they can open: never a loopback
address, whatever address the table screen itself was opened at (issue 15).

No server binds the network here: the app is driven in process, opened at 127.0.0.1
as a table screen on the machine itself would be, and the address is looked for in a
network namespace the test makes (issue 41), never on the machine's own network."""

from __future__ import annotations

import ipaddress
import re
import subprocess
import sys
from html import unescape
from urllib.parse import urlsplit

import pytest
from screens.lan_support import SERVER_ADDRESS, in_namespace, why_no_namespace
from starlette.testclient import TestClient

from facilitator.errors import OptionsError
from facilitator.screens.app import Screens
from facilitator.screens.hub import Hub
from facilitator.screens.seats import Seats
from facilitator.screens.server import ScreenSettings, public_host
from facilitator.screens.views import qr_svg
from facilitator.session import Session
from facilitator.table_data import TableData


def loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host in ("localhost",)


FOUND = ("from facilitator.errors import OptionsError\n"
         "from facilitator.screens.server import ScreenSettings, public_host\n"
         "try:\n    print(public_host(ScreenSettings(lan=True)))\n"
         "except OptionsError as exc:\n    print('refused:', exc)\n")


@pytest.mark.skipif(why_no_namespace() is not None, reason=str(why_no_namespace()))
def test_the_address_phones_use_is_the_interfaces_never_loopback_and_none_is_said_plainly():
    """On a network (a namespace whose interface holds SERVER_ADDRESS) that address is
    found; on none (loopback alone) ``--lan`` is refused with what to do."""
    on = subprocess.run(in_namespace([sys.executable, "-c", FOUND]), capture_output=True, text=True,
                        timeout=60, check=False)
    assert on.returncode == 0, on.stderr
    assert on.stdout.strip() == SERVER_ADDRESS
    off = subprocess.run(in_namespace([sys.executable, "-c", FOUND], network=False), capture_output=True,
                         text=True, timeout=60, check=False)
    assert off.returncode == 0, off.stderr
    assert off.stdout.startswith("refused: --lan: this machine has no network address") and "--host" in off.stdout


def test_a_named_host_is_used_and_loopback_is_refused_for_the_lan():
    assert public_host(ScreenSettings(lan=True, host="192.168.1.20")) == "192.168.1.20"
    assert public_host(ScreenSettings()) == "127.0.0.1"       # loopback only: loopback it is
    for named in ("127.0.0.1", "localhost", "::1"):
        with pytest.raises(OptionsError, match="loopback"):
            public_host(ScreenSettings(lan=True, host=named))


def test_every_qr_code_on_a_lan_table_screen_opened_at_loopback_links_to_the_lan(tmp_path):
    session, opening = Session.start("lantern-links", players=3, seed=2, log_path=tmp_path / "g.jsonl",
                                     table=TableData(tmp_path / "data"))
    try:
        seats = Seats(3)
        screens = Screens(Hub(session, opening, seats), seats)
        host = public_host(ScreenSettings(lan=True, host="192.0.2.20"))
        screens.base_url = f"http://{host}:8769"
        with TestClient(screens.app, base_url="http://127.0.0.1:8769") as client:
            page = client.get(f"/table/{seats.table_key}").text
        cards = re.findall(r'<li class="seat-card">(.*?)</li>', page, re.DOTALL)
        assert len(cards) == 3
        for card in cards:
            link = unescape(re.search(r'class="join-link"[^>]*>([^<]+)</a>', card).group(1))
            assert not loopback(urlsplit(link).hostname) and urlsplit(link).hostname == host
            svg = re.search(r'<div class="qr"[^>]*>(.*?)</div>', card, re.DOTALL).group(1)
            assert svg == qr_svg(link)                              # the QR code encodes exactly that link
            assert svg != qr_svg(link.replace(host, "127.0.0.1"))
    finally:
        session.log.close()
