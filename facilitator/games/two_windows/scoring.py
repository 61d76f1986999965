"""Two Windows scoring: 2 / 1 / 0."""

from __future__ import annotations


def points_for(stage: int, correct: bool) -> int:
    """Points of a final answer given at ``stage``.

    A correct final after the first transmission earns 2 shared points; after
    "more" (the second transmission) a correct final earns 1.  A wrong final
    earns 0 at either stage, and at the first stage it also ends the round:
    there is no free exploratory guess.
    """
    if not correct:
        return 0
    return 2 if stage == 1 else 1
