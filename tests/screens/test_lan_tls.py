"""https on the LAN (issue 34): with ``--lan`` the screens are served over TLS with a
self-signed certificate kept in the data directory, so a phone's page is a secure
context (its microphone needs one).

Every request here is a real one over the network stack: TLS handshakes verified
against the generated certificate loaded as the only trusted one.  Nothing reaches
the machine's network (issue 41): the service listens on loopback, its phones told
the name ``table.test`` (``lan_support``); what needs another machine on the network
(a plain-http redirect, every address bound as ``--lan`` binds them, the address
found from the interfaces) runs in a network namespace the test makes itself."""

from __future__ import annotations

import datetime
import json
import re
import socket
import ssl
import stat
import subprocess
import sys
from html import unescape
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from screens.lan_support import (
    DEVICE_ADDRESS,
    PHONES_HOST,
    SERVER_ADDRESS,
    in_namespace,
    lan_settings,
    why_no_namespace,
)
from screens.screen_support import screen_servers
from support import deadline

from facilitator.screens import ScreenServer
from facilitator.screens import certificate as certs

NO_NAMESPACE = why_no_namespace()
needs_namespace = pytest.mark.skipif(NO_NAMESPACE is not None, reason=str(NO_NAMESPACE))
CASE = Path(__file__).with_name("lan_namespace_case.py")


@pytest.fixture
def lan_server(tmp_path):
    with screen_servers(tmp_path) as serve:
        def start(data: Path | None = None) -> ScreenServer:
            return serve("lantern-links", lan_settings(), data or tmp_path / "data", players=3, seed=2)
        yield start


def trusting(cert: Path) -> ssl.SSLContext:
    """A client that trusts the generated certificate and nothing else, checking names."""
    context = ssl.create_default_context(cafile=str(cert))
    assert context.check_hostname and context.verify_mode == ssl.CERT_REQUIRED
    return context


def client(server: ScreenServer) -> httpx.Client:
    """A device on loopback trusting only the certificate (its name is checked in the
    handshake test; here the device opens 127.0.0.1, an address the service allows)."""
    assert server.certificate is not None
    context = trusting(server.certificate.cert_path)
    context.check_hostname = False
    return httpx.Client(base_url=f"https://127.0.0.1:{server.port}", verify=context, timeout=20)


def test_a_certificate_is_made_once_named_for_the_lan_and_its_key_is_private(tmp_path):
    made = certs.ensure(tmp_path, "192.0.2.77")
    assert made.ip_names == {"192.0.2.77"}
    hostname = socket.gethostname().lower()
    assert hostname in made.dns_names and "127.0.0.1" not in made.ip_names
    assert stat.S_IMODE(made.key_path.stat().st_mode) == 0o600
    assert made.cert_path.read_bytes().startswith(b"-----BEGIN CERTIFICATE-----")
    before = made.key_path.stat().st_mtime_ns, made.cert_path.stat().st_mtime_ns
    again = certs.ensure(tmp_path, "192.0.2.77")
    assert again.sha256 == made.sha256 and again.spki_sha256 == made.spki_sha256   # reused, not remade
    assert (made.key_path.stat().st_mtime_ns, made.cert_path.stat().st_mtime_ns) == before
    assert re.fullmatch(r"[0-9A-F]{4}( [0-9A-F]{4}){3}", made.short_fingerprint)
    assert made.sha256.startswith(made.short_fingerprint.replace(" ", ""))


def test_a_certificate_is_renewed_before_it_expires_and_remade_when_the_address_changes(tmp_path):
    made = certs.ensure(tmp_path, "192.0.2.77")
    still = made.not_after - datetime.timedelta(days=certs.RENEW_DAYS + 1)
    assert certs.ensure(tmp_path, "192.0.2.77", now=still).sha256 == made.sha256
    soon = made.not_after - datetime.timedelta(days=certs.RENEW_DAYS - 1)
    renewed = certs.ensure(tmp_path, "192.0.2.77", now=soon)
    assert renewed.sha256 != made.sha256 and renewed.not_after > made.not_after
    moved = certs.ensure(tmp_path, "10.4.5.6")                    # the table moved to another network
    assert moved.sha256 != renewed.sha256 and "10.4.5.6" in moved.ip_names
    assert certs.ensure(tmp_path, "10.4.5.6").sha256 == moved.sha256


def test_a_damaged_or_mismatched_key_is_remade_and_a_readable_key_made_private(tmp_path):
    made = certs.ensure(tmp_path, "192.0.2.77")
    made.key_path.chmod(0o644)
    assert certs.ensure(tmp_path, "192.0.2.77").sha256 == made.sha256
    assert stat.S_IMODE(made.key_path.stat().st_mode) == 0o600
    made.key_path.write_text("not a key")
    remade = certs.ensure(tmp_path, "192.0.2.77")
    assert remade.sha256 != made.sha256 and certs.load(remade.cert_path, remade.key_path) is not None
    other = tmp_path / "other"
    certs.ensure(other, "192.0.2.77")
    (other / certs.KEY_NAME).replace(tmp_path / certs.KEY_NAME)   # a key that is not the certificate's
    assert certs.load(remade.cert_path, tmp_path / certs.KEY_NAME) is None
    assert certs.ensure(tmp_path, "192.0.2.77").sha256 != remade.sha256


def test_the_lan_is_served_over_tls_that_verifies_against_the_certificate(lan_server, tmp_path):
    server = lan_server()
    assert server.certificate is not None
    assert server.base_url == f"https://{PHONES_HOST}:{server.port}"
    assert server.table_url.startswith(f"https://{PHONES_HOST}:{server.port}/table/")
    assert PHONES_HOST in server.certificate.dns_names
    # the handshake itself, with the certificate as the only trust anchor and the name checked
    context = trusting(server.certificate.cert_path)
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as raw, \
            context.wrap_socket(raw, server_hostname=PHONES_HOST) as tls:
        peer = tls.getpeercert()
        assert ("DNS", PHONES_HOST) in peer["subjectAltName"]
        assert tls.version() in ("TLSv1.2", "TLSv1.3")
        tls.sendall(f"GET / HTTP/1.1\r\nHost: {PHONES_HOST}:{server.port}\r\nConnection: close\r\n\r\n".encode())
        assert tls.recv(4096).startswith(b"HTTP/1.1 200")
    # a client that does not trust it is refused the handshake, and so is another name
    with pytest.raises(ssl.SSLCertVerificationError), \
            socket.create_connection(("127.0.0.1", server.port), timeout=20) as raw:
        ssl.create_default_context().wrap_socket(raw, server_hostname=PHONES_HOST)
    with pytest.raises(ssl.SSLCertVerificationError), \
            socket.create_connection(("127.0.0.1", server.port), timeout=20) as raw:
        context.wrap_socket(raw, server_hostname="other.test")
    # the same certificate serves the next start: a phone that accepted it once is not asked again
    first = server.certificate.sha256
    server.stop()
    assert lan_server(data=tmp_path / "data").certificate.sha256 == first


def test_join_links_and_qr_codes_carry_https_and_the_table_shows_the_fingerprint(lan_server):
    server = lan_server()
    with client(server) as c:
        page = c.get(f"/table/{server.seats.table_key}", follow_redirects=True)
    assert page.status_code == 200 and str(page.url).startswith("https://")
    links = [unescape(m) for m in re.findall(r'class="join-link"[^>]*>([^<]+)</a>', page.text)]
    assert len(links) == 3
    assert all(urlsplit(link).scheme == "https" and urlsplit(link).hostname == PHONES_HOST for link in links)
    assert server.certificate is not None
    assert server.certificate.short_fingerprint in page.text
    assert "warns" in page.text                           # the one sentence on the browser's warning


@needs_namespace
def test_on_the_lan_tls_is_served_plain_http_redirected_and_loopback_kept_plain(tmp_path):
    """In a network namespace of the test's own: the service binds every address as
    ``--lan`` does, gives phones the address it finds on the interfaces (never
    loopback), serves TLS to another device on the network, redirects that device's
    plain http to https, and serves plain http to the machine itself."""
    done = subprocess.run(in_namespace([sys.executable, str(CASE), str(tmp_path / "data"), DEVICE_ADDRESS]),
                          capture_output=True, text=True, timeout=deadline(120), check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    port = int(urlsplit(str(seen["base_url"])).port or 0)
    base = f"https://{SERVER_ADDRESS}:{port}"
    assert seen["host"] == SERVER_ADDRESS and seen["base_url"] == base
    assert str(seen["table_url"]).startswith(f"{base}/table/") and SERVER_ADDRESS in seen["ip_names"]
    assert ["IP Address", SERVER_ADDRESS] in seen["peer_names"]
    assert seen["tls_version"] in ("TLSv1.2", "TLSv1.3") and seen["tls_answer"].startswith("HTTP/1.1 200")
    assert seen["untrusted"] == "refused"
    redirects = seen["redirects"]
    assert redirects["/join/abc?x=1"].startswith("HTTP/1.1 308")
    assert f"Location: {base}/join/abc?x=1\r\n" in redirects["/join/abc?x=1"]
    # nothing of the request can point the redirect elsewhere or break its header
    for target in ("http://evil.example/", "//evil.example/x", "/a\x01b"):
        assert f"Location: {base}/\r\n" in redirects[target]
    assert seen["posted"].startswith("HTTP/1.1 308") and f"{base}/table-command" in seen["posted"]
    assert seen["loopback"].startswith("HTTP/1.1 200")


def test_loopback_stays_plain_http_on_the_lan_port(lan_server):
    server = lan_server()
    with httpx.Client(timeout=20) as c:
        assert c.get(f"http://127.0.0.1:{server.port}/").status_code == 200


def test_host_and_origin_checks_hold_over_https(lan_server):
    server = lan_server()
    own = f"https://127.0.0.1:{server.port}"
    with client(server) as c:
        c.get(f"/table/{server.seats.table_key}")
        form = {"content-type": "application/x-www-form-urlencoded"}
        allowed = c.post("/table-command", content=b"control=status", headers={**form, "origin": own})
        assert allowed.status_code != 403
        for other in (f"http://127.0.0.1:{server.port}",           # the same host and port, another scheme
                      "https://evil.example", f"https://127.0.0.1:{server.port + 1}",
                      f"https://{PHONES_HOST}:{server.port}"):       # the phones' name: another origin here
            refused = c.post("/table-command", content=b"control=status", headers={**form, "origin": other})
            assert refused.status_code == 403 and refused.json()["error"] == "foreign-origin"
            assert "another site" in refused.json()["message"]
        rebound = c.get("/", headers={"host": "evil.example"})
        assert rebound.status_code == 400 and rebound.json()["error"] == "unknown-host"


PLAY = [sys.executable, "-m", "facilitator", "play", "compass-code", "--text", "--seed", "1",
        "--screens", "--lan", "--port", "0"]


def play(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, input="status\n", capture_output=True, text=True, timeout=deadline(90),
                          check=False, env={"FACILITATOR_DATA_DIR": str(tmp_path / "data"),
                                            "FACILITATOR_CONFIG": str(tmp_path / "none.toml"),
                                            "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})


@pytest.mark.slow
@needs_namespace
def test_play_with_lan_and_a_named_host_prints_an_https_link(tmp_path):
    done = play(in_namespace(PLAY + ["--host", "10.20.30.40"]), tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"table screen: open https://10\.20\.30\.40:\d+/table/[\w-]{20,}\n", done.stderr)
    kept = certs.load(tmp_path / "data" / certs.CERT_NAME, tmp_path / "data" / certs.KEY_NAME)
    assert kept is not None and "10.20.30.40" in kept.ip_names
    assert stat.S_IMODE((tmp_path / "data" / certs.KEY_NAME).stat().st_mode) == 0o600


@pytest.mark.slow
@needs_namespace
def test_a_fresh_machine_with_lan_prints_https_links(tmp_path):
    """In a namespace whose one network address is SERVER_ADDRESS: that is the address found."""
    assert not (tmp_path / "data").exists()
    done = play(in_namespace(PLAY), tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"table screen: open https://{SERVER_ADDRESS}:" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
@needs_namespace
def test_the_table_service_with_lan_serves_https_too(tmp_path):
    serve = [sys.executable, "-m", "facilitator", "serve", "--text", "--screens", "--lan",
             "--host", "10.20.30.41", "--port", "0", "--data-dir", str(tmp_path / "data")]
    done = subprocess.run(in_namespace(serve), input="", capture_output=True, text=True, timeout=deadline(90),
                          check=False, env={"FACILITATOR_CONFIG": str(tmp_path / "none.toml"),
                                            "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert re.search(r"table screen: open https://10\.20\.30\.41:\d+/table/[\w-]{20,}\n", done.stderr)
    kept = certs.load(tmp_path / "data" / certs.CERT_NAME, tmp_path / "data" / certs.KEY_NAME)
    assert kept is not None and "10.20.30.41" in kept.ip_names
