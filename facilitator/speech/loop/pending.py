"""The pending command: one value, one owner, and the rules for a line from another seat.

A command the loop asks about ("... Is that right?") or echoes and holds in its undo
window is a ``Pending``: the command, the utterance and seat it came from, the words
heard, its deadline (the question's timeout or the window's end), the prompts said
for it and the second engine's verdict in the making.  ``Pendings`` holds it; every
change goes through its methods and makes a new value, so no part of the loop clears
what another part holds by assigning to a shared attribute.

While a command is pending, a line from *another* seat is taken as ``other_seat``
says (pure: the tests call it directly)::

    a command that seat may not give (its phone's seat, a voiceprint)
                                     -> REFUSE_ALONE (refused on its own; the pending
                                                      command keeps its window)
    the same seat, or the table's microphone on either side
                                     -> OWN          (the usual rules: policy.during_hold,
                                                      the question's answers)
    another seat's phone: no / cancel -> TAKE_BACK   (the table's right to stop a misheard
                                                      echo: "Ben took that back.")
    another seat's phone: yes        -> IGNORE       (not that seat's to confirm; the
                                                      command waits for its own seat)
    another seat's phone: anything else -> OWN       (repeat, or a command that seat may
                                                      give: the usual rules)

What the referee says about a pending command (the second engine's question,
correction or withdrawal, "I didn't catch that", a cancel by timeout, another
seat taking it back) goes to the phone of the seat that said it (``reply_seat``),
whoever spoke last, and aloud to the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from ...command import Command
from ..base import Segment
from .verify import Verification


@dataclass(frozen=True)
class Pending:
    """One command waiting for its answer or for its undo window to close."""

    command: Command
    #: the utterance it was heard in (None: not heard, e.g. typed)
    segment: Segment | None = None
    #: the words heard (shown on the phone of the seat that said them)
    heard: str | None = None
    #: loop time the question times out or the window closes (None: not yet set)
    deadline: float | None = None
    #: "Please say yes or no." said for the open question
    prompts: int = 0
    #: a reply was said to the question but not heard as yes or no
    unheard: bool = False
    #: "I didn't catch that ... yes or no?" was said once already
    asked_again: bool = False
    #: the second engine's verdict on an echo from the first hearing, in the making
    verification: Verification | None = None
    #: the question open about it (its phrase key; None: an echo, or not asked yet)
    question: str | None = None
    #: found by the meaning stage: asked "Did you mean ...?", applied only on yes
    by_meaning: bool = False
    #: the seat asked by name ("Ann, was that you?": at a microphone array whose direction
    #: was unsure); it owns the question: only its yes applies the command
    by_name: int | None = None

    @property
    def seat(self) -> int | None:
        """The seat the command belongs to: the one asked by name, or the seat whose phone said
        it (None: the table's microphone or another one)."""
        if self.by_name is not None:
            return self.by_name
        segment = self.segment
        return segment.seat if segment is not None and segment.phone else None


class Pendings:
    """The owner of the loop's pending command (at most one: the table's conversation is
    about one command at a time; the value names the seat that said it)."""

    def __init__(self, keep: Callable[[Pending | None], None] | None = None) -> None:
        self._open: Pending | None = None
        #: told each command that starts or stops waiting (None: stopped), so that a game
        #: resumed after a kill can say what was echoed and not applied (``unapplied.py``)
        self._keep = keep

    @property
    def current(self) -> Pending | None:
        return self._open

    @property
    def command(self) -> Command | None:
        return self._open.command if self._open is not None else None

    def open(self, pending: Pending) -> Pending:
        """``pending`` is now the command waiting (it replaces the one before)."""
        self._open = pending
        if self._keep is not None:
            self._keep(pending)
        return pending

    def change(self, **fields: Any) -> Pending | None:
        """The pending command with ``fields`` changed (None: nothing pending)."""
        if self._open is not None:
            self._open = replace(self._open, **fields)
            if "command" in fields and self._keep is not None:
                self._keep(self._open)
        return self._open

    def take_verification(self) -> Verification | None:
        """The verdict in the making, handed to whoever settles it (once)."""
        pending = self._open
        if pending is None or pending.verification is None:
            return None
        self._open = replace(pending, verification=None)
        return pending.verification

    def close(self) -> Pending | None:
        """The pending command leaves the loop (applied, taken back, cancelled)."""
        pending, self._open = self._open, None
        if pending is not None and self._keep is not None:
            self._keep(None)
        return pending


class Other(str, Enum):
    """What a line does to a command pending from another seat."""

    OWN = "own"
    REFUSE_ALONE = "refuse-alone"
    TAKE_BACK = "take-back"
    IGNORE = "ignore"


def other_seat(*, owner: int | None, speaker: int | None, answer: str | None, refused: bool) -> Other:
    """The rule of the module docstring.

    ``owner``: the phone seat whose command is pending (None: the table's microphone);
    ``speaker``: the phone seat of the line heard now (None: the table's microphone);
    ``answer``: the line as yes / no / cancel / repeat, if it is one; ``refused``: the
    line is a command its seat may not give now."""
    if answer is None and refused:
        return Other.REFUSE_ALONE
    if owner is None or speaker is None or speaker == owner:
        return Other.OWN
    if answer in ("no", "cancel"):
        return Other.TAKE_BACK
    if answer == "yes":
        return Other.IGNORE
    return Other.OWN

