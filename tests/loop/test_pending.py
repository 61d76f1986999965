"""One owner for each pending command (issue 41) and short answers that hold (issue 40):
the rules as pure functions (``pending.other_seat``, ``policy.short_answer``,
``policy.answer_again``); the same on the loop: test_overlapping_phones.py and
test_short_answers.py.
"""

from __future__ import annotations

import pytest

from facilitator.command import Command
from facilitator.speech.base import Segment
from facilitator.speech.loop.pending import Other, Pending, Pendings, other_seat
from facilitator.speech.loop.policy import Short, answer_again, short_answer

SEND = "send north east south west"
OTHER = "send west south east north"


# -- the rules, pure ---------------------------------------------------------------------
@pytest.mark.parametrize(("owner", "speaker", "answer", "refused", "expected"), [
    (1, 3, None, True, Other.REFUSE_ALONE),    # another seat refused: answered on its own
    (None, 3, None, True, Other.REFUSE_ALONE),  # ... also beside a table microphone's command
    (1, 1, None, True, Other.REFUSE_ALONE),     # a seat's own command it may not give is refused too
    (1, 3, "no", False, Other.TAKE_BACK),       # another seat's no: the table's right, said by name
    (1, 3, "cancel", False, Other.TAKE_BACK),
    (1, 3, "yes", False, Other.IGNORE),         # another seat's yes is not theirs to give
    (1, None, "yes", False, Other.OWN),         # the table microphone's yes counts as before
    (1, None, "no", False, Other.OWN),
    (None, 3, "yes", False, Other.OWN),         # any phone answers the table microphone's question
    (1, 1, "no", False, Other.OWN),             # the seat's own answer
    (1, 3, "repeat", False, Other.OWN),
    (1, 3, None, False, Other.OWN),             # a command seat 3 may give: the usual rules
])
def test_a_line_from_another_seat(owner: int | None, speaker: int | None, answer: str | None,
                                  refused: bool, expected: Other) -> None:
    assert other_seat(owner=owner, speaker=speaker, answer=answer, refused=refused) is expected


def test_the_pending_command_is_a_value_its_owner_changes() -> None:
    command = Command("send", SEND, {}, SEND)
    from_seat_1 = Segment(b"", 1.0, 2.0, 1.0, "phone", 1)
    pendings = Pendings()
    first = pendings.open(Pending(command, from_seat_1, heard=SEND))
    later = pendings.change(deadline=7.5)
    assert first.deadline is None and later is not None and later.deadline == 7.5   # a new value
    assert later.seat == 1 and Pending(command, Segment(b"", 1.0, 2.0)).seat is None
    with pytest.raises(AttributeError):
        first.deadline = 1.0  # type: ignore[misc]
    assert pendings.close() == later and pendings.current is None and pendings.change(prompts=1) is None


@pytest.mark.parametrize(("clear", "aside", "acceptable", "query", "expected"), [
    (False, True, True, True, Short.SILENCE),      # one engine's unsure hearing: table talk
    (False, False, True, False, Short.SILENCE),
    (True, True, True, True, Short.DID_YOU_ASK),   # both engines heard the query, unsure
    (True, True, True, False, Short.SAY_AGAIN),    # an aside (help, repeat)
    (True, False, True, False, Short.SAY_AGAIN),   # a final answer that cannot be taken back
    (True, False, False, False, Short.SILENCE),    # a command the rules refuse now
])
def test_short_answers(clear: bool, aside: bool, acceptable: bool, query: bool, expected: Short) -> None:
    assert short_answer(clear=clear, aside=aside, acceptable=acceptable, query=query) is expected


def test_the_asked_command_said_again_is_a_yes() -> None:
    assert answer_again(answer=None, heard=SEND, asked=SEND.upper()) == "yes"
    assert answer_again(answer=None, heard=OTHER, asked=SEND) is None
    assert answer_again(answer="no", heard="no", asked=SEND) == "no"
