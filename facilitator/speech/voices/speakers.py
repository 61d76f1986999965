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

The verdict names the speaker in captions and in the log.  ``rule`` says what
the loop does with a heard command, given the seats that may give it now (the
referee's ``acting_seats``; None: anyone): ``"take"`` (as today), ``"chatter"``
(silence: a stranger's voice) or ``"refuse"`` (another seat's command, said
once).  A command is refused only when the voice is clearly *not* its owner's:
some other enrolled seat is closer than every owner by at least
``refuse_margin``.  That asks less than naming the speaker (a third seat may
be close too: either way it is not the owner), so it refuses more wrong-seat
commands at the same false refusals; a voice as close to the owner as to
anyone is taken.  An owner not enrolled is never refused.

Both are pure, so the benchmark (``benchmarks/speakers.py``) measures exactly
what play does; the thresholds below were chosen there on the tuning voices
(see ``docs/speakers.md``).
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

    #: a seat is named from this similarity up (per-seat overrides in ``seat_match``)
    match: float = 0.0
    #: ... when it leads the next seat by at least this much
    margin: float = 0.10
    #: every seat below this: a voice that is none of the table's.  The benchmark cannot
    #: tune it (its unknown voices are espeak-ng voices as close to the players as the
    #: players are to themselves); 0.15 is well below every tuning seat's own similarity
    #: (the lowest was 0.25), so it catches only a voice unlike anyone enrolled
    stranger: float = 0.15
    #: a role's command is refused when another seat is closer than every owner by this
    refuse_margin: float = 0.14
    #: two seats' voiceprints this similar are told apart badly at the table's microphone:
    #: said at enrollment by name, with the phones offered.  Chosen on the speaker
    #: benchmark's pairs (``python -m benchmarks.speakers --quick``): every pair from 0.55
    #: had 10-100 % of its role commands applied from the other's voice (54 of 100 in
    #: all), every pair below 0.55 at most 20 % (5 of 160); no held-out pair reached 0.48
    too_close: float = 0.55
    #: per-seat overrides of ``match`` and ``refuse_margin`` (by the owner's seat)
    seat_match: Mapping[int, float] = field(default_factory=dict)
    seat_refuse_margin: Mapping[int, float] = field(default_factory=dict)

    def match_for(self, seat: int) -> float:
        return self.seat_match.get(seat, self.match)

    def refuse_margin_for(self, seat: int) -> float:
        return self.seat_refuse_margin.get(seat, self.refuse_margin)


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


def rule(scores: Mapping[int, float], acting: frozenset[int] | None,
         limits: Limits = DEFAULT) -> Ruling:
    """What to do with a heard command from its similarity to each enrolled seat: a
    stranger's is chatter; one whose voice is clearly another seat's than every owner's
    is refused; everything else (an unsure voice included) is taken as today."""
    if identify(scores, limits).kind == "stranger":
        return "chatter"
    if acting is None or not scores:
        return "take"
    owners = [scores[s] for s in acting if s in scores]
    others = [v for s, v in scores.items() if s not in acting]
    if len(owners) < len(acting) or not others:
        return "take"        # an owner not enrolled: nothing to compare with
    margin = max(limits.refuse_margin_for(s) for s in acting)
    return "refuse" if max(others) - max(owners) >= margin else "take"


def closest(scores: Mapping[int, float], among: frozenset[int]) -> int | None:
    """The seat of ``among`` whose voice is nearest (who a refused command was heard as)."""
    near = [(v, -s) for s, v in scores.items() if s in among]
    return -max(near)[1] if near else None


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


def print_of(vectors: list[np.ndarray]) -> np.ndarray | None:
    """A seat's voiceprint: the mean of its enrolled lines, renormalised (None: none)."""
    if not vectors:
        return None
    mean = np.mean(np.stack(vectors), axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else None


def too_close(prints: Mapping[int, list[np.ndarray]], limits: Limits = DEFAULT) -> list[tuple[int, int, float]]:
    """The pairs of seats (lower seat first) whose voiceprints are at least ``limits.too_close``
    alike: the table's microphone cannot tell them apart."""
    found = {seat: p for seat, vectors in prints.items() if (p := print_of(vectors)) is not None}
    out = []
    for a in sorted(found):
        for b in sorted(found):
            if a < b:
                similarity = float(np.dot(found[a], found[b]))
                if similarity >= limits.too_close:
                    out.append((a, b, similarity))
    return out
