"""The listen loop's boundaries with its neighbours, as small Protocols.

``VoiceRuling`` is what the loop asks of voice turns (``voices/voice_turns.py``), and
``TableLoop`` is what voice turns use of the loop; the screens hand a phone's voice to
a ``talk.PhoneListener`` and hear back through a ``PhoneHeard``.  Each side imports
only this module, so no part imports another's concrete class (no import circle).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

from ...command import Command
from ...session import Reply
from ..base import Segment
from .captions import Captions

#: whose command a voice is: take it, silence (a stranger), refuse it in words, or (at a
#: microphone array whose direction is unsure) ask its one owner by name, "Ann, was that you?"
Ruling = Literal["take", "chatter", "refuse", "ask"]

#: a phone's utterance answered: (seat, what was heard or None, what the referee said)
PhoneHeard = Callable[[int, str | None, list[str]], None]


class VoiceRuling(Protocol):
    """Who is speaking at the table's microphone, and whether that seat may give a command."""

    @property
    def enrolling(self) -> bool:
        """A seat was asked to say its line: the next table utterance is its enrollment."""
        ...

    def line(self, segment: Segment, answer: Command | None, sure: bool) -> list[str]:
        """An enrollment line heard (or the table's "no"): the sentences to say."""
        ...

    def ruling(self, command: Command, segment: Segment | None) -> Ruling:
        """Whose ``command`` heard in ``segment`` is."""
        ...

    def from_seat(self, seat: int, segment: Segment | None) -> bool:
        """Whether an answer heard in ``segment`` came from ``seat``'s place (the seat asked by name)."""
        ...

    def refusal(self, command: Command, segment: Segment | None) -> Reply | None:
        """The refusal of a command another seat's voice gave (None: said once already)."""
        ...

    def typed(self, text: str) -> bool:
        """A typed line for voice turns (``enrol N``): True when it was one."""
        ...

    def heard_seat(self, segment: Segment | None) -> tuple[bool, int | None]:
        """For the session's log: (a voice command, the seat heard or None)."""
        ...


class TableLoop(Protocol):
    """What voice turns use of the listen loop."""

    session: Any
    game_session: Any
    voices: VoiceRuling | None
    captions: Captions
    current: Segment | None
    warn: Callable[[str], None]
    phone_seats: Callable[[], frozenset[int]]
    phones_serve: Callable[[], bool]

    def say(self, sentences: list[str], *, remember: bool = True) -> None:
        """Say sentences that came from elsewhere."""
        ...
