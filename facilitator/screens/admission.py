"""Which connections the LAN service keeps while they are being sorted: the fairness rule.

A connection is *unsorted* from its accept until its first request's head has come
(its first byte, the TLS handshake, then the request line and headers): until then
nobody can tell a phone from a guest holding connections open.  A phone's connection
is unsorted for milliseconds; a guest's idle one for as long as it is let.

The rule (``Unsorted.add``), for every new connection:

* **This machine's own connections** (its address is the server's own: the table
  screen at ``http://127.0.0.1:PORT``, or a browser on the referee's machine) have a
  budget of their own, ``OWN_LIMIT``: no other machine's connection counts against
  it, so no guest can keep the table screen out.
* **Every other address** shares ``LIMIT`` unsorted connections.  A new connection is
  always taken; when the budget is full, one unsorted connection is closed to make
  room: the **oldest** one of the **address holding the most**, where an address
  holds its unsorted connections *plus its strikes*: one for each of its connections
  that was closed before it was sorted (chosen to make room, or silent past its
  time), halved every ``STRIKE_HALF_LIFE`` seconds.  Of two addresses holding as
  much, the one whose oldest connection is older loses it.
  A guest holding many connections therefore only ever loses its own: on a few
  addresses it holds the most at each of them; spread over hundreds (one or two
  connections an address, as many as a phone holds), every address of its soon
  carries the strikes of the connections it lost, and a phone's address, whose
  connections are sorted in milliseconds, carries none.
* Beside this, ``tls.MAX_PER_CLIENT`` bounds what one address holds at all, sorted
  or not.

The rule is pure (keys and addresses in, the key to close out); ``tls._Acceptor``
applies it.  Keys are increasing integers, so a smaller key is an older connection.
"""

from __future__ import annotations

#: unsorted connections from other machines at once (the guests' and the phones')
LIMIT = 256
#: unsorted connections from this machine itself at once (the table screen's)
OWN_LIMIT = 64
#: how fast an address's strikes fade: halved every so many seconds
STRIKE_HALF_LIFE = 30.0
#: addresses whose strikes are remembered at most (the faintest are forgotten first)
STRUCK_ADDRESSES = 4096


class Unsorted:
    """The unsorted connections, by address, oldest first."""

    def __init__(self, limit: int = LIMIT, own_limit: int = OWN_LIMIT) -> None:
        self.limit = limit
        self.own_limit = own_limit
        #: each other address's unsorted connections (dicts keep their keys oldest first)
        self._by_address: dict[str, dict[int, None]] = {}
        self._own: dict[int, None] = {}
        self._where: dict[int, str | None] = {}     # key -> its address (None: this machine's)
        self.others = 0
        #: each address's strikes: (their number then, when)
        self._strikes: dict[str, tuple[float, float]] = {}

    def add(self, key: int, address: str, own: bool, now: float = 0.0) -> int | None:
        """Take the new connection ``key`` from ``address`` (``own``: from this machine) at
        time ``now`` (seconds); the key of the connection to close to make room for it, or None."""
        victim = None
        if own:
            if len(self._own) >= self.own_limit:
                victim = next(iter(self._own))
            self._own[key] = None
            self._where[key] = None
        else:
            if self.others >= self.limit:
                victim = self._most_held_oldest(now)
            self._by_address.setdefault(address, {})[key] = None
            self._where[key] = address
            self.others += 1
        if victim is not None:
            self.remove(victim, now, sorted_=False)
        return victim

    def remove(self, key: int, now: float = 0.0, *, sorted_: bool = True) -> None:
        """``key`` counts no more: it was sorted (its first request came), or, with
        ``sorted_=False``, it was closed before that (a strike against its address).
        Unknown keys are ignored."""
        if key not in self._where:
            return
        address = self._where.pop(key)
        if address is None:
            self._own.pop(key, None)
            return
        if not sorted_:
            self._strike(address, now)
        held = self._by_address.get(address)
        if held is not None and key in held:
            del held[key]
            self.others -= 1
            if not held:
                del self._by_address[address]

    def held(self, address: str) -> int:
        """Unsorted connections ``address`` holds now."""
        return len(self._by_address.get(address, ()))

    def own(self) -> int:
        return len(self._own)

    def __contains__(self, key: object) -> bool:
        return key in self._where

    def strikes(self, address: str, now: float) -> float:
        """``address``'s strikes at ``now``, faded."""
        count, then = self._strikes.get(address, (0.0, now))
        return float(count * 0.5 ** (max(0.0, now - then) / STRIKE_HALF_LIFE))

    def _strike(self, address: str, now: float) -> None:
        self._strikes[address] = (self.strikes(address, now) + 1.0, now)
        if len(self._strikes) > STRUCK_ADDRESSES:     # forget the faintest half
            faded = sorted(self._strikes, key=lambda a: self.strikes(a, now))
            for gone in faded[:len(faded) // 2]:
                del self._strikes[gone]

    def _most_held_oldest(self, now: float) -> int:
        """The oldest connection of the address holding the most, its strikes counted
        (ties: the older connection)."""
        most, oldest = -1.0, -1
        for address, held in self._by_address.items():
            first = next(iter(held))
            weight = len(held) + self.strikes(address, now)
            if weight > most or (weight == most and first < oldest):
                most, oldest = weight, first
        return oldest
