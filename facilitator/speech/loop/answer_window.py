"""When a question's window closes: never while its answer is still being said.

A question ("... Is that right?") waits ``confirm_timeout_seconds`` after it was said
for a yes or a no.  In loud talk the endpointer may hold a short "yes" open for
seconds (the talk around it keeps the frames voiced, up to the utterance's cap), so
the window could close, and the question be cancelled, while the answer said inside
it is still coming in; the answer would then be heard after "No answer, so
cancelled".  ``waits`` is the rule the loop asks before it closes the window::

    an utterance began before the deadline and is still open  -> wait (up to ``longest``
                                                                 seconds past the deadline)
    anything else                                              -> close

Pure, so the tests and the loop use the same rule.
"""

from __future__ import annotations


def waits(*, deadline: float, now: float, speech_since: float | None, longest: float) -> bool:
    """Whether a question whose window closes at ``deadline`` still waits at ``now``:
    ``speech_since`` is when the utterance the endpointer holds open began (None: none is
    open), and ``longest`` the longest an utterance may run (the endpointer's cap)."""
    return speech_since is not None and speech_since <= deadline and now <= deadline + longest
