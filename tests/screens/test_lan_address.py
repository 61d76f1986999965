"""With ``--lan`` the address phones are given is one they can open: never a loopback
address, whatever address the table screen itself was opened at (issue 15).

No server binds the network here (tests bind loopback only): the app is driven in
process, opened at 127.0.0.1 as a table screen on the machine itself would be."""

from __future__ import annotations

import ipaddress
import re
from html import unescape
from urllib.parse import urlsplit

import pytest
from starlette.testclient import TestClient

from facilitator.errors import OptionsError
from facilitator.screens.app import Screens
from facilitator.screens.hub import Hub
from facilitator.screens.seats import Seats
from facilitator.screens.server import ScreenSettings, lan_address, public_host
from facilitator.screens.views import qr_svg
from facilitator.session import Session
from facilitator.table_data import TableData


def loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host in ("localhost",)


def test_the_lan_address_is_never_loopback():
    found = lan_address()
    assert found is None or not loopback(found)
    host = public_host(ScreenSettings(lan=True))            # this machine is on a network
    assert not loopback(host)
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
        host = public_host(ScreenSettings(lan=True))
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
