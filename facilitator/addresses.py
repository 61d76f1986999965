"""Network addresses as the screens and the settings file judge them."""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or a name) only ever reaches this machine: a phone
    on the network could not open a link to it."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host.lower() in ("localhost", "localhost.localdomain") or host.lower().endswith(".localhost")
