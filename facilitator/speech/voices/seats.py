"""Who is speaking by where: the pure rules from an utterance's bearing to a seat.

At a microphone array (``direction.py``) each enrolled seat has a bearing, learned
from its enrollment line and moved a little toward every utterance sure to be it
(a player leans, turns, shifts the chair).  ``seat_of`` names the seat an
utterance came from when the direction is sure:

* the spectrum's peak stands out (``clarity`` at least ``min_clarity``);
* the nearest seat's bearing is within ``near_degrees``;
* and every other seat is at least ``lead_degrees`` further away.

Anything else (a voice from between two seats, from across the room, a flat
spectrum) says nothing.  A role's command whose direction says nothing is not
guessed at: its one owner is asked by name ("Ann, was that you?"; ``combined_rule``
rules ``"ask"``), and only a yes from the owner's place (``answer_from``) or the
owner's phone applies it.  Seats closer together than ``too_close_degrees`` are
told apart badly by direction: an enrollment that lands there is asked again
(``enrolment.py``).

The margins were chosen on the simulated tables of ``benchmarks/speakers.py
--array`` (``docs/voice-loop.md``): a seat's own utterances land within about 10
degrees of its bearing in 0.6 s of reverberation, seats of a table of six are 60
degrees apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from .direction import Bearing, apart, toward
from .speakers import DEFAULT, Limits, identify, rule

#: ``speakers.Ruling`` and, at an array, ``"ask"``: the one seat that may give it is asked by name
AskingRuling = Literal["take", "chatter", "refuse", "ask"]


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
    #: two seats closer than this are asked again at enrollment (degrees)
    too_close_degrees: float = 45.0
    #: an answer ("yes") to "Ann, was that you?" is Ann's when she is the seat nearest its
    #: bearing, within ``near_degrees``, and its spectrum is at least this clear: a short
    #: word in talk is less clear than a command, so the floor is lower than ``min_clarity``
    answer_clarity: float = 1.1


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
                  bearings: Mapping[int, float], limits: Limits = DEFAULT) -> AskingRuling:
    """What to do with a heard command from the seat its direction names (``seat``: None when
    unsure) and its voice's similarity to each enrolled seat (``scores``, empty without
    voiceprints).  A voice no seat has is chatter; a sure direction then decides: its seat
    takes its own command and has another's refused (when every owner has a bearing to
    compare with: else the voice decides).  Where the direction is unsure (or points
    between seats) and one seat with a bearing may give the command, that seat is asked
    by name (``"ask"``: never a guess, by voice or otherwise, that the command was
    theirs); a command more seats may give (Clover's free moves) is ruled by the voice
    as without an array."""
    if scores and identify(scores, limits).kind == "stranger":
        return "chatter"
    if seat is not None:
        if acting is None or seat in acting:
            return "take"
        if all(s in bearings for s in acting):
            return "refuse"
    elif acting is not None and len(acting) == 1 and all(s in bearings for s in acting):
        return "ask"
    if not scores:
        return "take"
    return rule(scores, acting, limits)


def answer_from(bearing: Bearing | None, seat: int, seats: Mapping[int, float],
                limits: DirectionLimits = DIRECTION) -> bool:
    """Whether an answer heard from ``bearing`` is ``seat``'s (the seat asked "Ann, was that
    you?"): ``seat`` is the enrolled seat nearest the bearing, within ``near_degrees``, and
    the spectrum is at least ``answer_clarity`` clear.  Another seat's place, no clear
    direction, or a seat with no bearing: not hers (the phone's Yes still is)."""
    if bearing is None or seat not in seats or bearing.clarity < limits.answer_clarity:
        return False
    nearest = min(seats, key=lambda s: (apart(bearing.degrees, seats[s]), s))
    return nearest == seat and apart(bearing.degrees, seats[seat]) <= limits.near_degrees
