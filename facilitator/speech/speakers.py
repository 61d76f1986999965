"""Who is speaking: the pure rules from voice similarities to a verdict and a ruling.

``identify`` turns the cosine similarity of one utterance's d-vector to each
enrolled seat's voiceprint into a verdict:

* ``seat``: one seat, sure: its similarity reaches the seat's threshold and
  leads every other seat by ``margin``;
* ``stranger``: no enrolled seat comes near (every similarity below
  ``stranger``): the next table, the television;
* ``unsure``: anything between.  An unsure verdict changes nothing: the
  command is taken exactly as it would be without voices (never lock a player
  out because the match was poor).

``rule`` then says what the loop does with a heard command, given the seats
that may give it now (the referee's ``acting_seats``; None: anyone):
``"take"`` (as today), ``"chatter"`` (silence) or ``"refuse"`` (another seat's
command, said once).  Both are pure, so the benchmark (``benchmarks/speakers.py``)
measures exactly what play does; the thresholds below were chosen there on the
tuning voices (see ``docs/speakers.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Kind = Literal["seat", "unsure", "stranger"]
Ruling = Literal["take", "chatter", "refuse"]


@dataclass(frozen=True)
class Limits:
    """Similarity thresholds (cosine, -1..1) chosen on the speaker benchmark's tuning voices."""

    #: a seat is sure from this similarity up (per-seat overrides in ``seat_match``)
    match: float = 0.55
    #: ... and when it leads the next seat by at least this much
    margin: float = 0.12
    #: every seat below this: a voice that is none of the table's
    stranger: float = 0.30
    seat_match: Mapping[int, float] = field(default_factory=dict)

    def match_for(self, seat: int) -> float:
        return self.seat_match.get(seat, self.match)


DEFAULT = Limits()


@dataclass(frozen=True)
class Verdict:
    kind: Kind
    #: the sure seat (``seat``), or the closest one (``unsure``); None for a stranger
    seat: int | None = None
    similarity: float = 0.0

    @property
    def sure(self) -> bool:
        return self.kind == "seat"


UNKNOWN = Verdict("unsure")


def identify(similarities: Mapping[int, float], limits: Limits = DEFAULT) -> Verdict:
    """The verdict for one utterance from its similarity to each enrolled seat."""
    if not similarities:
        return UNKNOWN            # nobody enrolled: nothing can be said about the voice
    ranked = sorted(similarities.items(), key=lambda kv: (-kv[1], kv[0]))
    seat, best = ranked[0]
    second = ranked[1][1] if len(ranked) > 1 else -1.0
    if best >= limits.match_for(seat) and best - second >= limits.margin:
        return Verdict("seat", seat, best)
    if best < limits.stranger:
        return Verdict("stranger", None, best)
    return Verdict("unsure", seat, best)


def rule(verdict: Verdict, acting: frozenset[int] | None) -> Ruling:
    """What to do with a heard command: a stranger's is chatter; a sure seat's command
    that belongs to other seats is refused; everything else is taken as today."""
    if verdict.kind == "stranger":
        return "chatter"
    if verdict.sure and acting is not None and verdict.seat not in acting:
        return "refuse"
    return "take"


def similarities(embedding: np.ndarray, prints: Mapping[int, list[np.ndarray]]) -> dict[int, float]:
    """Cosine similarity of ``embedding`` to each seat's voiceprint (the mean of its
    enrolled lines, renormalised)."""
    out: dict[int, float] = {}
    for seat, vectors in prints.items():
        if not vectors:
            continue
        mean = np.mean(np.stack(vectors), axis=0)
        norm = float(np.linalg.norm(mean)) * float(np.linalg.norm(embedding))
        if norm > 0:
            out[seat] = float(np.dot(mean, embedding) / norm)
    return out
