"""Short answers that hold (issue 40), on the loop with the fakes: a "yes" the recognizer
misses then the command said again is a yes; a query both engines heard unsure is asked
back; table talk stays silent (docs/voice-loop.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from loop.loop_fakes import (
    TwoStageRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    said,
)
from loop.phone_table import ASK, ECHO, SEND, logged, make

from facilitator.command import Command
from facilitator.speech.loop.listen import LoopState


# -- short answers that hold ---------------------------------------------------------------
def test_a_yes_the_recognizer_misses_then_the_command_said_again_is_yes(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))            # asked 1.0-4.0
    loop.hear(said("yep yep", 5.0))                   # not heard as yes or no
    loop.hear(said(SEND, 9.0))                        # the command said again
    assert speaker.spoken[:2] == [ASK, "Please say yes or no."]
    assert [t for t, _ in logged(tmp_path)][:1] == ["guess-scored"] and loop.repeated == 1


def test_a_query_heard_unsure_by_both_engines_is_asked_back(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.hear(said("how many candidates=>unsure:how many candidates", 1.0))
    assert speaker.spoken == ["Did you ask how many candidates?"] and loop.state is LoopState.CONFIRMING
    loop.hear(said("yes", 5.0))
    assert len(speaker.spoken) == 2 and loop.state is LoopState.LISTENING
    assert speaker.spoken[1] == loop.session.execute(Command("candidates", "candidates", {}, "candidates")).public[0]


def test_a_query_asked_back_and_met_with_silence_closes_quietly(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.hear(said("how many candidates=>unsure:how many candidates", 1.0))
    loop.tick(30.0)
    assert speaker.spoken == ["Did you ask how many candidates?"] and loop.state is LoopState.LISTENING


@pytest.mark.parametrize("line", [
    "=>unsure:how many candidates",            # only the slow engine's free text heard it
    "raw:pass the crisps please",              # nothing of the game
    "=>raw:how many crisps are left",
])
def test_table_talk_stays_silent(tmp_path: Path, line: str) -> None:
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.hear(said(line, 1.0))
    loop.tick(20.0)
    assert speaker.spoken == [] and logged(tmp_path) == []


def test_an_unsure_query_with_one_engine_stays_silent_the_first_time(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("unsure:how many candidates", 1.0))
    assert speaker.spoken == [] and loop.chatter == 1


def test_the_next_command_said_after_did_you_ask_is_heard_as_a_command(tmp_path: Path) -> None:
    """"Did you ask ...?" is a light question: a player who goes on with the next command
    is heard (the ask-back closes quietly), never told "Please say yes or no."."""
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.hear(said("how many candidates=>unsure:how many candidates", 1.0))
    assert speaker.spoken == ["Did you ask how many candidates?"]
    loop.hear(said(SEND, 5.0))
    assert speaker.spoken[1:] == [ECHO] and loop.state is LoopState.HOLDING
