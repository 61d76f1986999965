"""The LAN service under test without the machine's network (issue 41).

Tests and benchmarks reach only loopback or a network namespace they make themselves:

* ``lan_settings()``: the screens as with ``--lan`` (https, the generated certificate,
  links to ``PHONES_HOST``) listening on 127.0.0.1 only.  ``PHONES_HOST`` is a name, so
  chromium (told ``CHROMIUM_RULE``) opens ``https://table.test:PORT`` at loopback and
  its pages are secure contexts through TLS alone; Python clients connect to 127.0.0.1
  and check the certificate against that name.
* ``in_namespace(argv)``: ``argv`` run in a new user and network namespace whose only
  network is its own: loopback, and an interface (a dummy one, else a veth pair) with
  ``SERVER_ADDRESS`` and ``DEVICE_ADDRESS`` (private addresses nothing outside the
  namespace can reach or see).  There a LAN service binds every address as ``--lan``
  does, and a client at ``DEVICE_ADDRESS`` is another machine on its network.
  ``why_no_namespace()`` says why none can be made here (tests skip with it)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

from facilitator.screens import ScreenSettings

#: the name the phones are given for the service (it resolves only where a test says so)
PHONES_HOST = "table.test"
#: chromium resolves PHONES_HOST to loopback, and nothing else
CHROMIUM_RULE = f"--host-resolver-rules=MAP {PHONES_HOST} 127.0.0.1"

#: inside the namespace: the service's address, and another device's
SERVER_ADDRESS = "10.77.0.1"
DEVICE_ADDRESS = "10.77.0.2"
_SETUP = ("$IP link set lo up"
          " && { $IP link add fac0 type dummy 2>/dev/null"
          " || { $IP link add fac0 type veth peer name fac1 && $IP link set fac1 up; }; }"
          f" && $IP addr add {SERVER_ADDRESS}/24 dev fac0 && $IP addr add {DEVICE_ADDRESS}/24 dev fac0"
          " && $IP link set fac0 up")


def _tool(name: str) -> str | None:
    """``name``'s path (``ip`` lives in /usr/sbin, off a user's usual PATH on Debian)."""
    return shutil.which(name, path=f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin")


def lan_settings(host: str = PHONES_HOST) -> ScreenSettings:
    """The screens as with ``--lan`` for phones opening ``host``, listening on loopback."""
    return ScreenSettings(lan=True, port=0, host=host, bind="127.0.0.1")


def in_namespace(argv: list[str], network: bool = True) -> list[str]:
    """``argv`` as a command run inside a network namespace of its own (see above);
    ``network=False``: one with loopback alone (a machine on no network)."""
    unshare, ip = _tool("unshare") or "unshare", _tool("ip") or "ip"
    setup = _SETUP if network else "$IP link set lo up"
    return [unshare, "--user", "--map-root-user", "--net", "/bin/sh", "-c",
            f'IP={ip}; {setup} && exec "$@"', "sh", *argv]


@functools.cache
def why_no_namespace() -> str | None:
    """None when a network namespace can be made here, else why not."""
    for tool in ("unshare", "ip"):
        if _tool(tool) is None:
            return f"no {tool} here (util-linux and iproute2 make the tests' own network namespace)"
    try:
        done = subprocess.run(in_namespace(["ip", "-4", "-o", "addr"]), capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"a network namespace could not be made: {exc}"
    if done.returncode != 0 or SERVER_ADDRESS not in done.stdout:
        return f"a network namespace could not be made: {done.stderr.strip() or done.returncode}"
    return None
