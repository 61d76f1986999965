"""The seat map on the table screen: where each seat speaks from at the microphone array.

At an array, voice turns learn each seat's bearing at enrollment (and follow it as the
player leans); the keeper sees them here as a rose of bearings round the array, with each
seat's name and degrees, and a plain list of the same for screen readers.  The screens
know no game and no array: the session hands a ``seat_map`` callable (set by voice
turns) that gives ``(seat, name, degrees or None)``; without one there is no map.
"""

from __future__ import annotations

import math
from typing import Any

#: the rose's drawing: a square viewBox, the seats on a circle round its centre
SIZE = 300
RADIUS = 95
LABEL_RADIUS = 112


def seat_map_places(session: Any) -> tuple[tuple[int, str, int | None], ...]:
    """What the session's seat map says now (empty: no array, or a map that cannot be read)."""
    source = getattr(session, "seat_map", None)
    if not callable(source):
        return ()
    try:
        return tuple(source())
    except Exception:  # noqa: BLE001  (a map that cannot be read must not break the table screen)
        return ()


def seat_map_view(session: Any) -> dict[str, Any] | None:
    """The rose's values for the template: each placed seat's dot and label (bearings are
    degrees counter-clockwise from the array's x axis, drawn to the right), and every
    seat with its degrees or none; None without a seat map."""
    places = seat_map_places(session)
    if not places:
        return None
    centre = SIZE / 2
    placed, listed = [], []
    for seat, name, degrees in places:
        listed.append({"seat": seat, "name": name, "degrees": degrees})
        if degrees is None:
            continue
        theta = math.radians(degrees)
        placed.append({
            "seat": seat, "name": name, "degrees": degrees,
            "x": round(centre + RADIUS * math.cos(theta), 1), "y": round(centre - RADIUS * math.sin(theta), 1),
            "lx": round(centre + LABEL_RADIUS * math.cos(theta), 1),
            "ly": round(centre - LABEL_RADIUS * math.sin(theta), 1),
            "anchor": "start" if math.cos(theta) > 0.3 else ("end" if math.cos(theta) < -0.3 else "middle"),
        })
    return {"size": SIZE, "centre": centre, "radius": RADIUS, "placed": placed, "seats": listed}
