"""Phones when the table talks over itself (issue 41), on the loop with the fakes: a line
from another seat never clears the pending command of the seat that said it; what is said
about a command goes to that seat's phone; a seat's refusal comes at once.

Times are stream seconds; the recording speaker takes 2 s a sentence.  Seat 1 captains
the first guess of Compass Code (``compass_session``): its guess is taken from seat 1's
phone and refused from any other seat's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from loop.loop_fakes import (
    TwoStageRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    )
from loop.phone_table import ASK, ECHO, OTHER, REFUSED, SEND, logged, make, phone, told

from facilitator.speech.loop.listen import LoopState


@pytest.mark.parametrize("two_engines", [False, True])
def test_another_seat_refused_while_an_echo_waits_leaves_it_to_apply(tmp_path: Path, two_engines: bool) -> None:
    loop, speaker, answered = make(tmp_path, TwoStageRecognizer() if two_engines else None)
    phone(loop, 1, SEND, 1.0, 2.5)                    # echoed 2.5-4.5, window to 7.5
    assert speaker.spoken == [ECHO] and loop.state is LoopState.HOLDING
    phone(loop, 3, OTHER, 5.0, 6.0)                   # seat 3 guesses too: refused on its own
    assert speaker.spoken[-1] == REFUSED and told(answered, 3) == [REFUSED]
    assert loop.state is LoopState.HOLDING and loop.pending_from is not None and loop.pending_from.seat == 1
    loop.tick(12.0)                                   # the window closes: seat 1's guess applies
    assert logged(tmp_path)[:2] == [("command-rejected", 3), ("guess-scored", 1)]


def test_another_seats_no_takes_the_echo_back_and_says_whose(tmp_path: Path) -> None:
    loop, speaker, answered = make(tmp_path)
    phone(loop, 1, SEND, 1.0, 2.5)
    phone(loop, 3, "no", 5.0, 5.6)
    assert speaker.spoken == [ECHO, "Player 3 took that back."]
    assert told(answered, 3) == ["Player 3 took that back."]
    assert told(answered, 1) == [ECHO, "Player 3 took that back."]   # the seat that said it is told
    loop.tick(12.0)
    assert logged(tmp_path) == [] and loop.state is LoopState.LISTENING


def test_another_phones_yes_does_not_apply_a_seats_command(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path)
    phone(loop, 1, SEND, 1.0, 2.5)
    phone(loop, 3, "yes", 5.0, 5.6)
    assert logged(tmp_path) == [] and loop.state is LoopState.HOLDING   # waits for its window
    loop.tick(12.0)
    assert logged(tmp_path)[0] == ("guess-scored", 1)


def test_the_second_engines_question_goes_to_the_phone_of_the_seat_that_spoke(tmp_path: Path) -> None:
    """Seat 1 is echoed a misheard route; the verdict ("did you say ...?") comes in while
    seat 3 asks a question: seat 1's phone shows it, seat 3's shows only its answer."""
    recognizer = TwoStageRecognizer(cpu_seconds=0.01)
    loop, speaker, answered = make(tmp_path, recognizer, scale=500.0)   # the verdict in 5 s
    phone(loop, 1, f"{OTHER}=>{SEND}", 1.0, 2.5)
    assert speaker.spoken == ["Send west south east north."]
    phone(loop, 3, "how many candidates", 5.0, 6.0)   # after the echo, before the verdict is in
    question = "Sorry, did you say send north east south west?"
    assert question in speaker.spoken
    assert question in told(answered, 1) and question not in told(answered, 3)
    assert len(told(answered, 3)) == 1 and told(answered, 3)[0] in speaker.spoken   # its own answer
    phone(loop, 1, "yes", 12.0, 12.5)
    assert ("guess-scored", 1) in logged(tmp_path)


def test_a_seat_is_refused_before_the_second_engines_verdict(tmp_path: Path) -> None:
    recognizer = TwoStageRecognizer(cpu_seconds=0.01)
    loop, speaker, answered = make(tmp_path, recognizer, scale=500.0)
    phone(loop, 2, SEND, 1.0, 2.5)
    assert speaker.spoken == [REFUSED] and answered == [(2, SEND, [REFUSED])]
    assert recognizer.verdicts == []     # the second engine was not waited for, nor asked
    loop.tick(12.0)
    assert speaker.spoken == [REFUSED] and logged(tmp_path) == [("command-rejected", 2)]




def test_another_seat_is_refused_at_once_while_a_seats_question_is_open(tmp_path: Path) -> None:
    recognizer = TwoStageRecognizer(cpu_seconds=0.01)
    loop, speaker, answered = make(tmp_path, recognizer, scale=500.0)
    phone(loop, 1, f"{SEND}=>unsure:{SEND}", 1.0, 2.5)   # echoed, then asked on the verdict
    phone(loop, 1, "repeat", 9.0, 9.5)                   # (the verdict is in by now)
    assert loop.state is LoopState.CONFIRMING and speaker.spoken[-1] == ASK
    verdicts = list(recognizer.verdicts)
    phone(loop, 3, OTHER, 13.0, 14.0)
    assert speaker.spoken[-1] == REFUSED and told(answered, 3) == [REFUSED]
    assert recognizer.verdicts == verdicts               # the second engine was not asked
    assert loop.state is LoopState.CONFIRMING and loop.pending_from is not None and loop.pending_from.seat == 1
    phone(loop, 1, "yes", 17.0, 17.5)
    assert ("guess-scored", 1) in logged(tmp_path)
