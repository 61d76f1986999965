"""Who is speaking by where: the pure rules from an utterance's bearing to a seat.

At a microphone array (``direction.py``) each enrolled seat has a bearing, learned
from its enrollment line and moved a little toward every utterance sure to be it
(a player leans, turns, shifts the chair).  ``seat_of`` names the seat an
utterance came from when the direction is sure:

* the spectrum's peak stands out (``clarity`` at least ``min_clarity``);
* the nearest seat's bearing is within ``near_degrees``;
* and every other seat is at least ``lead_degrees`` further away.

Anything else (a voice from between two seats, from across the room, a flat
spectrum) says nothing, and the voiceprint decides as it would without an array.
Seats closer together than ``too_close_degrees`` are told apart badly by
direction: they are said at enrollment, by name, as alike voices are.

The margins were chosen on the simulated tables of ``benchmarks/speakers.py
--array`` (``docs/voice-loop.md``): a seat's own utterances land within about 10
degrees of its bearing in 0.6 s of reverberation, seats of a table of six are 60
degrees apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .direction import Bearing, apart, toward
from .speakers import DEFAULT, Limits, Ruling, identify, rule


@dataclass(frozen=True)
class DirectionLimits:
    #: an utterance within this of a seat's bearing may be that seat's (degrees)
    near_degrees: float = 25.0
    #: ... when every other seat is this much further away (degrees)
    lead_degrees: float = 15.0
    #: a spectrum flatter than this (peak over mean) says nothing: in the benchmark's rooms a
    #: player heard alone gives 1.6-2.4, with talk 10 dB below 1.25-2.1 (and still within
    #: about 20 degrees of the seat); a voice from nowhere in particular about 1.1
    min_clarity: float = 1.2
    #: a sure utterance moves its seat's bearing this part of the way toward it
    adapt: float = 0.25
    #: two seats closer than this are said at enrollment (degrees)
    too_close_degrees: float = 45.0


DIRECTION = DirectionLimits()


def seat_of(bearing: Bearing | None, seats: Mapping[int, float],
            limits: DirectionLimits = DIRECTION) -> int | None:
    """The seat ``bearing`` surely came from, or None when the direction cannot say."""
    if bearing is None or not seats or bearing.clarity < limits.min_clarity:
        return None
    ranked = sorted((apart(bearing.degrees, b), seat) for seat, b in seats.items())
    nearest, seat = ranked[0]
    if nearest > limits.near_degrees:
        return None
    if len(ranked) > 1 and ranked[1][0] - nearest < limits.lead_degrees:
        return None
    return seat


def adapted(old: float, bearing: Bearing, limits: DirectionLimits = DIRECTION) -> float:
    """A seat's bearing after an utterance sure to be it (``old`` moved toward it)."""
    return toward(old, bearing.degrees, limits.adapt)


def too_close(seats: Mapping[int, float], limits: DirectionLimits = DIRECTION) -> list[tuple[int, int, float]]:
    """The pairs of seats (lower seat first) whose bearings are under ``too_close_degrees``
    apart, with the angle between them."""
    out = []
    for a in sorted(seats):
        for b in sorted(seats):
            if a < b and (angle := apart(seats[a], seats[b])) < limits.too_close_degrees:
                out.append((a, b, angle))
    return out


def combined_rule(seat: int | None, scores: Mapping[int, float], acting: frozenset[int] | None,
                  bearings: Mapping[int, float], limits: Limits = DEFAULT) -> Ruling:
    """What to do with a heard command from the seat its direction names (``seat``: None when
    unsure) and its voice's similarity to each enrolled seat (``scores``, empty without
    voiceprints).  A voice no seat has is chatter; a sure direction then decides: its seat
    takes its own command and has another's refused (when every owner has a bearing to
    compare with: else the voice decides); where the direction is unsure, the voice
    decides as without an array."""
    if seat is not None:
        if scores and identify(scores, limits).kind == "stranger":
            return "chatter"
        if acting is None or seat in acting:
            return "take"
        if all(s in bearings for s in acting):
            return "refuse"
    if not scores:
        return "take"
    return rule(scores, acting, limits)
