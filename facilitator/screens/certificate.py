"""The screens' self-signed certificate for https on the local network.

A phone's browser gives a page its microphone only in a secure context: https, or
loopback.  With ``--lan`` the screens are served over TLS with a certificate made
here at first start (``cryptography``): an EC P-256 key, the certificate self-signed,
its subjectAltName the names phones use (the machine's LAN addresses as IP entries,
its host name and ``HOST.local`` as DNS entries).  Both files are kept in the data
directory (the key readable by its owner only, mode 0600) and reused across restarts,
so a phone that accepted the certificate once is not warned again.  The certificate
is made anew when it expires within ``RENEW_DAYS``, when the address phones use is
not among its names (the machine moved to another network), or when the files cannot
be read.

Every browser warns once about a certificate nobody vouches for; the table screen
shows the certificate's short fingerprint so players can compare it with the one
their browser shows before they accept it.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import os
import socket
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from ..durable import fsync_directory

CERT_NAME = "screens-cert.pem"
KEY_NAME = "screens-key.pem"
#: how long a certificate is valid, and how long before its end it is made anew
VALID_DAYS = 365
RENEW_DAYS = 30
#: the hex digits of the fingerprint the table screen shows (of SHA-256)
SHORT_DIGITS = 16


@dataclass(frozen=True)
class Certificate:
    """The certificate and key files in use, and what the screens say about them."""

    cert_path: Path
    key_path: Path
    #: SHA-256 of the certificate (DER), upper-case hex
    sha256: str
    #: base64 of SHA-256 of the certificate's public key (SubjectPublicKeyInfo, DER):
    #: what ``--ignore-certificate-errors-spki-list`` and key pinning name
    spki_sha256: str
    not_after: datetime.datetime
    ip_names: frozenset[str]
    dns_names: frozenset[str]

    @property
    def short_fingerprint(self) -> str:
        """The start of the SHA-256 fingerprint in groups of four ("3F2A 91C0 7B44 E1D2"):
        what a browser's certificate details show first."""
        head = self.sha256[:SHORT_DIGITS]
        return " ".join(head[i:i + 4] for i in range(0, len(head), 4))


def wanted_names(host: str, extra: Iterable[str] = ()) -> tuple[frozenset[str], frozenset[str]]:
    """The (IP, DNS) names a certificate for phones opening ``host`` carries: ``host``
    itself, the machine's other network addresses (``extra``), its host name and
    ``HOST.local``.  Loopback names are left out (loopback is served over http)."""
    ips: set[str] = set()
    dns: set[str] = set()
    for name in (host, *extra):
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            if name and not name.lower().endswith("localhost"):
                dns.add(name.lower())
            continue
        if not address.is_loopback and not address.is_unspecified:
            ips.add(str(address))
    hostname = socket.gethostname().strip().lower()
    if hostname and hostname != "localhost":
        dns.add(hostname)
        if "." not in hostname:
            dns.add(f"{hostname}.local")
    return frozenset(ips), frozenset(dns)


def ensure(directory: Path, host: str, extra: Iterable[str] = (),
           now: datetime.datetime | None = None) -> Certificate:
    """The certificate for phones opening ``host``, kept in ``directory``: the one there
    when it still serves (it names ``host``, it is readable and matches its key, and it
    does not expire within ``RENEW_DAYS``), else a new one.  Raises ``OSError`` when
    the directory cannot be written."""
    now = now or datetime.datetime.now(datetime.UTC)
    cert_path, key_path = directory / CERT_NAME, directory / KEY_NAME
    kept = load(cert_path, key_path)
    if kept is not None and _serves(kept, host, now):
        if key_path.stat().st_mode & 0o077:
            os.chmod(key_path, 0o600)            # a key others could read is made private again
        return kept
    ips, dns = wanted_names(host, extra)
    return make(directory, ips, dns, now)


def _serves(cert: Certificate, host: str, now: datetime.datetime) -> bool:
    if cert.not_after - now <= datetime.timedelta(days=RENEW_DAYS):
        return False
    try:
        return str(ipaddress.ip_address(host)) in cert.ip_names
    except ValueError:
        return host.lower() in cert.dns_names


def make(directory: Path, ips: Iterable[str], dns: Iterable[str],
         now: datetime.datetime | None = None) -> Certificate:
    """A new key and self-signed certificate naming ``ips`` and ``dns``, written into
    ``directory`` (the key first, mode 0600; each file replaced atomically)."""
    now = now or datetime.datetime.now(datetime.UTC)
    key = ec.generate_private_key(ec.SECP256R1())
    hostname = socket.gethostname() or "facilitator"
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"facilitator screens on {hostname}"[:64]),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "facilitator")])
    alt: list[x509.GeneralName] = [x509.IPAddress(ipaddress.ip_address(ip)) for ip in sorted(ips)]
    alt += [x509.DNSName(d) for d in sorted(dns)]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))   # a phone's clock a little behind
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=False,
                                     content_commitment=False, data_encipherment=False,
                                     key_agreement=False, key_cert_sign=False, crl_sign=False,
                                     encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    key_path, cert_path = directory / KEY_NAME, directory / CERT_NAME
    _write(key_path, key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()), 0o600)
    _write(cert_path, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return _describe(cert, cert_path, key_path)


def load(cert_path: Path, key_path: Path) -> Certificate | None:
    """The kept certificate, or None when either file is missing, unreadable, or the
    key is not the certificate's."""
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return None
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(serialization.Encoding.DER, spki) != \
            cert.public_key().public_bytes(serialization.Encoding.DER, spki):
        return None
    return _describe(cert, cert_path, key_path)


def _describe(cert: x509.Certificate, cert_path: Path, key_path: Path) -> Certificate:
    try:
        alt = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        ips = frozenset(str(ip) for ip in alt.get_values_for_type(x509.IPAddress))
        dns = frozenset(d.lower() for d in alt.get_values_for_type(x509.DNSName))
    except x509.ExtensionNotFound:
        ips, dns = frozenset(), frozenset()
    spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    return Certificate(cert_path, key_path,
                       cert.fingerprint(hashes.SHA256()).hex().upper(),
                       base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii"),
                       cert.not_valid_after_utc, ips, dns)


def _write(path: Path, data: bytes, mode: int) -> None:
    """Replace ``path`` atomically; the temporary file has ``mode`` from its first byte."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fsync_directory(path.parent)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
