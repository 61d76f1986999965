"""The Record of Legends: the table's best total per (player count, extra cards).

Kept in the table's data directory as ``clover.json``::

    {"records": {"4-1": 14, "5-2": 9}}

keyed ``"PLAYERS-EXTRA"``.  These functions are pure: the session reads and
writes the document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...events import Event


def key(players: int, extra: int) -> str:
    return f"{players}-{extra}"


def best(table: Mapping[str, Any], players: int, extra: int) -> int | None:
    """The recorded best total for this table size and dial, or None; junk values count as none."""
    records = table.get("records")
    if not isinstance(records, Mapping):
        return None
    value = records.get(key(players, extra))
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def outcome(previous: int | None, points: int) -> tuple[int, bool]:
    """The record after a game that scored ``points``, and whether this game set it.

    A higher total replaces the record; an equal or lower one leaves it.  With no
    record yet, the first finished game sets it.
    """
    if previous is None or points > previous:
        return points, True
    return previous, False


def updated(table: Mapping[str, Any], events: Sequence[Event]) -> dict[str, Any] | None:
    """The document after ``events`` (None if no game ended there).  Idempotent: it keeps the max."""
    ended = [e for e in events if e.type == "game-ended"]
    if not ended:
        return None
    doc = dict(table)
    records = dict(doc.get("records") or {}) if isinstance(doc.get("records"), Mapping) else {}
    for event in ended:
        k = key(int(event["players"]), int(event["extra"]))
        current = best({"records": records}, int(event["players"]), int(event["extra"]))
        if current is None or int(event["record"]) > current:
            records[k] = int(event["record"])
    doc["records"] = records
    return doc
