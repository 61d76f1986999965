"""Half duplex (invariant 6): what of an utterance may be decoded, given the assistant's own sound.

Audio heard while the assistant speaks, and in the deaf window after its speech
or an earcon, is never decoded.  A reply said quickly after a prompt or an
earcon often starts inside that window, and the endpointer joins the tail of the
assistant's echo and the reply into one utterance, so the front is trimmed
instead of dropping the whole utterance.  An utterance that began before the
assistant started talking (the table talked over it) is dropped.

A phone's utterance is never dropped: its press stopped the assistant (barge-in),
and the phone is held close to its player's mouth, so only what it caught of the
assistant's own voice is trimmed off its front (``admit_pressed``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..base import Segment


def admit(segment: Segment, speech: Sequence[tuple[float, float]],
          min_trimmed_seconds: float) -> tuple[Segment | None, bool]:
    """The part of ``segment`` heard after the assistant's sound, or None; and whether the
    utterance went on past that sound (someone spoke, not only the assistant's echo).

    ``speech``: the assistant's recent sounds as (start, deaf until) in loop time.
    The segment itself is returned when nothing overlaps it; a trimmed copy when
    at least ``min_trimmed_seconds`` of it is left after the last overlapping
    sound and that rest overlaps no sound either."""
    hits = [(start, until) for start, until in speech if segment.start < until and segment.end > start]
    if not hits:
        return segment, True
    until = max(u for _, u in hits)
    beyond = segment.end > until
    if any(segment.start < start for start, _ in hits):
        return None, beyond
    if segment.end - until < min_trimmed_seconds:
        return None, beyond
    trimmed = segment.after(until)
    if any(trimmed.start < u and trimmed.end > s for s, u in speech):
        return None, beyond
    return trimmed, True


def admit_pressed(segment: Segment, speech: Sequence[tuple[float, float]], deaf_seconds: float,
                  min_trimmed_seconds: float) -> Segment | None:
    """A phone's utterance without the assistant's own sound (its deaf window left out:
    the room's echo is far below a close microphone); None when too little is left."""
    sounds = [(start, until - deaf_seconds) for start, until in speech]
    hits = [end for start, end in sounds if segment.start < end and segment.end > start]
    if not hits:
        return segment
    until = max(hits)
    if segment.end - until < min_trimmed_seconds:
        return None
    return segment.after(until)
