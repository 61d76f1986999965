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
  room: the **oldest** one of the **address holding the most** (of two addresses
  holding as many, the one whose oldest connection is older).  A guest holding many
  connections therefore only ever loses its own, whatever number of addresses it
  spreads them over, and a phone's connection, new and alone at its address, is
  closed only after every address holds as many and hundreds of newer connections
  have come (a phone sorts its connection long before that).
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

    def add(self, key: int, address: str, own: bool) -> int | None:
        """Take the new connection ``key`` from ``address`` (``own``: from this machine);
        the key of the connection to close to make room for it, or None."""
        victim = None
        if own:
            if len(self._own) >= self.own_limit:
                victim = next(iter(self._own))
            self._own[key] = None
            self._where[key] = None
        else:
            if self.others >= self.limit:
                victim = self._most_held_oldest()
            self._by_address.setdefault(address, {})[key] = None
            self._where[key] = address
            self.others += 1
        if victim is not None:
            self.remove(victim)
        return victim

    def remove(self, key: int) -> None:
        """``key`` is sorted, closed or evicted: it counts no more (unknown keys are ignored)."""
        if key not in self._where:
            return
        address = self._where.pop(key)
        if address is None:
            self._own.pop(key, None)
            return
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

    def _most_held_oldest(self) -> int:
        """The oldest connection of the address holding the most (ties: the older one)."""
        most, oldest = 0, -1
        for held in self._by_address.values():
            first = next(iter(held))
            if len(held) > most or (len(held) == most and first < oldest):
                most, oldest = len(held), first
        return oldest
