"""Seats and their join tokens.

Each seat has an unguessable join token (``secrets.token_urlsafe``) carried by its
join link.  The first device to open the link holds the seat: it gets a holder
secret in an HttpOnly cookie, and every later device opening the same link is
refused until the seat is released (from the table screen, or by voice).  The
table screen has its own key, printed by ``play`` when the server starts; it is
needed because the table screen shows the seats' join links.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass

TOKEN_BYTES = 18
#: short codes avoid letters and digits that look alike (0/O, 1/I)
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
#: wrong short codes tolerated before code entry closes (the join links still work)
CODE_TRIES = 20


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and secrets.compare_digest(a.encode(), b.encode())


@dataclass
class Seat:
    number: int
    token: str
    code: str
    holder: str | None = None

    @property
    def held(self) -> bool:
        return self.holder is not None


class Seats:
    """The join tokens, the holders and the table key of one game."""

    def __init__(self, count: int) -> None:
        self._lock = threading.Lock()
        self.table_key = secrets.token_urlsafe(TOKEN_BYTES)
        self.seats = {n: Seat(n, secrets.token_urlsafe(TOKEN_BYTES), _short_code())
                      for n in range(1, count + 1)}
        self.wrong_codes = 0

    def seat_of_token(self, token: str) -> Seat | None:
        for seat in self.seats.values():
            if _same(seat.token, token):
                return seat
        return None

    def claim(self, token: str) -> tuple[Seat, str] | None:
        """Hold the seat of ``token`` for a new device: (seat, holder secret), or None
        when the token is no seat's or the seat is already held."""
        with self._lock:
            seat = self.seat_of_token(token)
            if seat is None or seat.held:
                return None
            seat.holder = secrets.token_urlsafe(TOKEN_BYTES)
            return seat, seat.holder

    def token_of_code(self, code: str) -> str | None:
        """The join token of a typed short code (spaces, dashes and case ignored).
        After ``CODE_TRIES`` wrong codes, code entry is closed for this game."""
        typed = "".join(ch for ch in code.upper() if ch.isalnum())
        with self._lock:
            if self.wrong_codes >= CODE_TRIES:
                return None
            for seat in self.seats.values():
                if _same(seat.code, typed):
                    return seat.token
            self.wrong_codes += 1
            return None

    def holds(self, number: int, holder: str | None) -> bool:
        """Does the device with cookie ``holder`` hold seat ``number``?"""
        seat = self.seats.get(number)
        return seat is not None and _same(seat.holder, holder)

    def release(self, number: int) -> bool:
        """Free seat ``number`` for another device (its join link works again)."""
        with self._lock:
            seat = self.seats.get(number)
            if seat is None or not seat.held:
                return False
            seat.holder = None
            return True

    def is_table(self, key: str | None) -> bool:
        return _same(self.table_key, key)


def _short_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def cookie_name(number: int) -> str:
    return f"facilitator-seat-{number}"


TABLE_COOKIE = "facilitator-table"
