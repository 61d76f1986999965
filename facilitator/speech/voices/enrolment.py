"""Whose enrollment line this is: the pure rule that keeps the seat map from being captured.

While a seat is asked ("Dan, say: I'm ready to play"), the next table utterance is
offered as its line.  A line lost under the referee's own voice, or never said, must
not hand the seat the next thing anyone says: at a real table that is another
player's first command, from another seat.  ``place`` decides what the offered line
is, from where it came (``bearing``: a sure bearing at the array, None without one)
and, without an array, whose voice it is (``voice_of``: an enrolled seat the voice is
surely, or None)::

    at an array, no sure bearing                      -> AGAIN   (said once more, a little longer)
    its bearing near no other enrolled seat           -> TAKE
    and no enrolled seat's voice (without an array)
    another seat's place (within ``near_degrees``)    -> OTHER   ("That sounded like Ann.
    or voice: the first time                                      Dan, say: I'm ready to play.")
    closer to another seat than the array separates   -> NEAR    ("Dan, say it again from your
    (``too_close_degrees``): the first time                      own seat: ...")
    the same seat's place again, from where the       -> REMAP   (kept for Dan; Ann's place is in
    last line came: twice, by name, from one place               doubt, and Ann is asked again)
    near that seat again, or its voice again, or a    -> CLOSE   (kept; "Ann and Dan sit close
    pair asked again already                                     together, so I may ask which
                                                                 of you spoke.")

Asking again is bounded: a pair of seats is re-asked once (``remapped``), then what
they say is kept as it is, and the referee asks by name whenever their directions
cannot tell them apart (``seats.combined_rule``).  A seat enrolling again compares
its new line with every *other* seat, never with its own old place.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import Enum

from .direction import apart
from .seats import DIRECTION, DirectionLimits


class Placing(str, Enum):
    TAKE = "take"
    AGAIN = "again"
    OTHER = "other"
    NEAR = "near"
    REMAP = "remap"
    CLOSE = "close"


@dataclass(frozen=True)
class Clash:
    """An offered line that landed on another seat: which, and from where (None: by voice)."""

    other: int
    degrees: float | None


@dataclass(frozen=True)
class Placed:
    """What ``place`` decided, the seat the line clashed with (None: none) and the clash to
    remember for the asked seat's next line (None: nothing to remember)."""

    kind: Placing
    other: int | None = None
    clash: Clash | None = None


def place(*, at_array: bool, bearing: float | None, voice_of: int | None, others: Mapping[int, float],
          clash: Clash | None, remapped: Collection[frozenset[int]], asked: int,
          limits: DirectionLimits = DIRECTION) -> Placed:
    """The rule of the module docstring for a line offered as seat ``asked``'s.

    ``bearing``: the line's sure bearing (degrees; None: no array, or unsure);
    ``voice_of``: without a sure bearing, the enrolled seat (not ``asked``) whose voice
    the line surely is; ``others``: every other enrolled seat's bearing; ``clash``: the
    asked seat's last line that landed on another seat; ``remapped``: the pairs of seats
    asked again already."""
    if at_array and bearing is None:
        return Placed(Placing.AGAIN)
    other, named = _landing(bearing, voice_of, others, limits)
    if other is None:
        return Placed(Placing.TAKE)
    pair = frozenset({asked, other})
    here = Clash(other, bearing)
    if pair in remapped:
        return Placed(Placing.CLOSE, other)
    again = clash is not None and clash.other == other and (
        clash.degrees is None or bearing is None or apart(clash.degrees, bearing) <= limits.lead_degrees)
    if not again:
        return Placed(Placing.OTHER if named else Placing.NEAR, other, here)
    if named and bearing is not None:
        return Placed(Placing.REMAP, other)
    return Placed(Placing.CLOSE, other)


def _landing(bearing: float | None, voice_of: int | None, others: Mapping[int, float],
             limits: DirectionLimits) -> tuple[int | None, bool]:
    """The other seat a line landed on (None: none) and whether surely on it (``named``):
    within ``near_degrees`` of its bearing, or its voice; merely nearer than
    ``too_close_degrees``: not named."""
    if bearing is None:
        return voice_of, voice_of is not None
    if not others:
        return None, False
    distance, seat = min((apart(bearing, b), s) for s, b in others.items())
    if distance <= limits.near_degrees:
        return seat, True
    if distance < limits.too_close_degrees:
        return seat, False
    return None, False
