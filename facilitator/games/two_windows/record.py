"""The table's packet record: which packets were played, kept in the data directory.

The document is ``{"cycle": n, "played": [packet numbers]}``.  A game chosen from
the record logs its ``cycle`` and the packets still unplayed in ``game-started``
(so replay needs no table data); when fewer than six remain, the game starts a new
cycle with all 18 (and says so).  A packet counts as played when its round starts
(a replaced packet too: its reports were dealt).  ``--packets`` and ``--practice``
games leave the record alone: their events carry no cycle.

The record is read again before each decision of a record game: the packet of
each later round is the one planned at the start unless another game at the same
table has played it meanwhile (games interleaved on one data directory), then an
unplayed one is drawn, as for ``replace packet``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...events import Event
from .deck import PACKET_COUNT
from .teams import ROUNDS

ALL_PACKETS = tuple(range(1, PACKET_COUNT + 1))


def _cycle(document: Mapping[str, Any]) -> int:
    cycle = document.get("cycle")
    return cycle if isinstance(cycle, int) and not isinstance(cycle, bool) and cycle >= 1 else 1


def _played(document: Mapping[str, Any]) -> list[int]:
    played = document.get("played")
    if not isinstance(played, list):
        return []
    return sorted({p for p in played if isinstance(p, int) and not isinstance(p, bool) and p in ALL_PACKETS})


def choose_from_record(document: Mapping[str, Any]) -> dict[str, Any]:
    """The record part of the options: cycle, unplayed packets, whether it restarted."""
    cycle, played = _cycle(document), set(_played(document))
    unplayed = [p for p in ALL_PACKETS if p not in played]
    restarted = len(unplayed) < ROUNDS
    if restarted:
        cycle, unplayed = cycle + 1, list(ALL_PACKETS)
    return {"cycle": cycle, "unplayed": unplayed, "restarted": restarted}


def current_record(document: Mapping[str, Any]) -> tuple[int, tuple[int, ...]]:
    """The record's cycle and its unplayed packets now (read again before each decision,
    since another game at the same table may have played some meanwhile)."""
    played = set(_played(document))
    return _cycle(document), tuple(p for p in ALL_PACKETS if p not in played)


def updated_record(document: Mapping[str, Any], events: Sequence[Event]) -> dict[str, Any] | None:
    """The record after ``events`` (None when they touch it not).  Idempotent.

    Every ``round-started`` and ``packet-replaced`` with a ``cycle`` marks its
    packet played in that cycle; a later cycle starts the record over, an earlier
    one (an old game resumed) changes nothing.
    """
    cycle, played = _cycle(document), set(_played(document))
    touched = False
    for event in events:
        if event.type not in ("round-started", "packet-replaced") or event.get("cycle") is None:
            continue
        event_cycle = int(event["cycle"])
        packet = int(event["packet"] if event.type == "round-started" else event["new"])
        if event_cycle > cycle:
            cycle, played = event_cycle, set()
        if event_cycle == cycle:
            played.add(packet)
            touched = True
    if not touched:
        return None
    return {"cycle": cycle, "played": sorted(played)}
