"""Seats and their join tokens, kept for the life of a table session.

Each seat has an unguessable join token (``secrets.token_urlsafe``) carried by its
join link.  The first device to open the link holds the seat: it gets a holder
secret in an HttpOnly cookie, and every later device opening the same link is
refused.  Releasing a seat (from the table screen, or by voice) gives it a new
token and short code, so the released device's old link is dead.  The table
screen has its own key, printed when the server starts; it is needed because the
table screen shows the seats' join links.

With a ``store`` file (in the table's data directory) the keys, tokens, codes and
holder secrets are written there after every change (mode 0600, tmp + fsync +
rename): after a crash, a power cut or ``--resume`` the same links, cookies and
table key still work, so every open page reconnects by itself.
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..durable import write_json

TOKEN_BYTES = 18
#: short codes avoid letters and digits that look alike (0/O, 1/I)
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
#: the file in the data directory that keeps a table session's seats
STORE_NAME = "screens.json"
STORE_VERSION = 1


def _same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and secrets.compare_digest(a.encode(), b.encode())


def _token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


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
    """The join tokens, the holders and the table key of one table session.

    ``owner`` names the session (a game's log, or the lobby service): a store
    written for another owner is not reused, so a new game gets new links."""

    def __init__(self, count: int, store: Path | None = None, owner: str = "") -> None:
        self._lock = threading.Lock()
        self.store = store
        self.owner = owner
        self.table_key = _token()
        self.seats: dict[int, Seat] = {}
        #: why the seats could not be kept (a read-only or full data directory): they
        #: still work, but only until the server stops
        self.unsaved: str | None = None
        kept = _read_store(store, owner) if store is not None else None
        if kept is not None:
            self.table_key = kept["table_key"]
            self.seats = kept["seats"]
        self.ensure(count)

    def ensure(self, count: int) -> None:
        """Seats 1..count exist (held seats beyond it are kept for later games)."""
        with self._lock:
            added = False
            for n in range(1, count + 1):
                if n not in self.seats:
                    self.seats[n] = Seat(n, _token(), _short_code())
                    added = True
            if added or (self.store is not None and not self.store.exists()):
                self._save()

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
            seat.holder = _token()
            self._save()
            return seat, seat.holder

    def seat_of_code(self, code: str) -> Seat | None:
        """The seat of a typed short code (spaces, dashes and case ignored)."""
        typed = "".join(ch for ch in code.upper() if ch.isalnum())
        for seat in self.seats.values():
            if _same(seat.code, typed):
                return seat
        return None

    def holds(self, number: int, holder: str | None) -> bool:
        """Does the device with cookie ``holder`` hold seat ``number``?"""
        seat = self.seats.get(number)
        return seat is not None and _same(seat.holder, holder)

    def release(self, number: int) -> bool:
        """Free seat ``number`` for another device: a new link and code, the old ones dead."""
        with self._lock:
            seat = self.seats.get(number)
            if seat is None or not seat.held:
                return False
            self.seats[number] = Seat(number, _token(), _short_code())
            self._save()
            return True

    def is_table(self, key: str | None) -> bool:
        return _same(self.table_key, key)

    # -- the store -------------------------------------------------------------------
    def _save(self) -> None:
        """Write the store atomically, readable by its owner only (it holds secrets)."""
        if self.store is None:
            return
        document = {"version": STORE_VERSION, "owner": self.owner, "table_key": self.table_key,
                    "seats": [{"number": s.number, "token": s.token, "code": s.code, "holder": s.holder}
                              for s in sorted(self.seats.values(), key=lambda s: s.number)]}
        try:
            write_json(self.store, document, mode=0o600)
            self.unsaved = None
        except OSError as exc:
            self.unsaved = f"the seats cannot be kept in {str(self.store)!r} ({exc.strerror or exc}); " \
                           "after a restart every device must join again"


def _read_store(path: Path, owner: str) -> dict[str, Any] | None:
    """The kept seats of ``owner``'s session, or None (no file, another owner, damaged)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("version") != STORE_VERSION or data.get("owner") != owner:
            return None
        key = data["table_key"]
        seats: dict[int, Seat] = {}
        for row in data["seats"]:
            holder = row.get("holder")
            seat = Seat(int(row["number"]), str(row["token"]), str(row["code"]),
                        str(holder) if holder is not None else None)
            if not seat.token or not seat.code or seat.number < 1:
                return None
            seats[seat.number] = seat
        if not isinstance(key, str) or not key:
            return None
        return {"table_key": key, "seats": seats}
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


def discard_kept(store: Path, owner: str) -> None:
    """A new game for ``owner``: the seats kept for it are not reused (its log was
    deleted and a new game started at the same path, with the same seed even); the
    previous holders' cookies are dead, and the store is written afresh by the new
    game's seats.  Another owner's seats are left alone."""
    if _read_store(store, owner) is None:
        return
    try:
        store.unlink()
    except FileNotFoundError:
        pass


def _short_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def cookie_name(number: int) -> str:
    return f"facilitator-seat-{number}"


TABLE_COOKIE = "facilitator-table"
