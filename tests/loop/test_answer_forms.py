"""The answer-only forms ("yep", "sure", "that's right", "nah") in the listen loop, with the
fakes: heard as yes or no while a question or an undo window is open, spoken or typed; with
nothing open they are no command (grammars/common.toml ``answer = [...]``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    ScriptedRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    compass_session,
    said,
)
from support import read_jsonl

from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState, Tick

SEND = "send north east south west"           # route NESW; leg 1 hides ESNW: 1 anchor, 2 steps
ECHO = "Send north east south west."
ASK = "Send north east south west. Is that right?"
SCORED = ["North east south west: 1 anchor, 2 clockwise steps.", "Guess 2 of 4: Player 2 is captain."]


def make(tmp_path: Path) -> tuple[ListenLoop, RecordingSpeaker, ScriptedRecognizer]:
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    recognizer = ScriptedRecognizer()
    loop = ListenLoop(compass_session(tmp_path), recognizer, speaker, voice, CaptionLog(),
                      LoopSettings(earcon_seconds=0.0, implicit_window_seconds=3.0))
    OPENED.append(loop)
    return loop, speaker, recognizer


def logged(tmp_path: Path) -> list[str]:
    return [e["type"] for e in read_jsonl(tmp_path / "log.jsonl")][3:]


@pytest.mark.parametrize("answer", ["yep", "sure", "okay", "that's right", "yes that's correct", "go ahead"])
def test_an_answer_only_yes_answers_the_question(tmp_path: Path, answer: str) -> None:
    loop, speaker, recognizer = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))
    assert speaker.spoken == [ASK] and loop.state is LoopState.CONFIRMING
    loop.hear(said(answer, 5.0))
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert speaker.spoken == [ASK, *SCORED] and loop.state is LoopState.LISTENING
    assert answer in recognizer.grammars[-1].phrases   # the question's grammar holds it


@pytest.mark.parametrize("answer", ["nah", "no thanks", "that's wrong"])
def test_an_answer_only_no_cancels_the_question(tmp_path: Path, answer: str) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))
    loop.hear(said(answer, 5.0))
    assert speaker.spoken == [ASK, "Cancelled."] and logged(tmp_path) == []
    assert loop.session.state.guess == 1 and loop.state is LoopState.LISTENING


def test_yep_in_the_undo_window_applies_at_once(tmp_path: Path) -> None:
    """Heard as free text ("raw:", as Whisper writes it): the window's spoken grammar is the
    whole grammar of the moment, without the answer-only forms (see ``listening_grammar``)."""
    loop, speaker, recognizer = make(tmp_path)
    loop.hear(said(SEND, 1.0))                 # echo 2.0-4.0, window until 7.3
    assert speaker.spoken == [ECHO] and loop.state is LoopState.HOLDING
    loop.hear(said("raw:yep", 5.0))
    assert "yep" not in recognizer.grammars[-1].phrases
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert speaker.spoken == [ECHO, *SCORED] and loop.state is LoopState.LISTENING


def test_nah_in_the_undo_window_takes_it_back(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.run([said(SEND, 1.0), said("raw:nah", 5.0), Tick(30.0)])
    assert speaker.spoken == [ECHO, "Cancelled."]
    assert logged(tmp_path) == [] and loop.undone == 1


@pytest.mark.parametrize("line", ["yep", "sure", "that's right", "nah"])
def test_with_nothing_open_an_answer_only_form_is_no_command(tmp_path: Path, line: str) -> None:
    loop, speaker, recognizer = make(tmp_path)
    loop.hear(said(line, 1.0))
    assert speaker.spoken == [] and logged(tmp_path) == [] and loop.state is LoopState.LISTENING
    assert line not in recognizer.grammars[-1].phrases   # not in the listening grammar


def test_a_typed_yep_answers_the_question(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))
    loop.submit_text("yep")
    loop.tick(5.0)
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert speaker.spoken == [ASK, *SCORED] and loop.state is LoopState.LISTENING


def test_a_typed_no_in_the_window_takes_it_back(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(SEND, 1.0))
    loop.submit_text("nah")
    loop.tick(5.0)
    loop.tick(30.0)
    assert speaker.spoken == [ECHO, "Cancelled."] and logged(tmp_path) == []


def test_a_typed_yep_with_nothing_open_changes_nothing(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path)
    loop.submit_text("yep")
    loop.tick(1.0)
    assert logged(tmp_path) == ["command-rejected"] and loop.session.state.guess == 1
    assert loop.state is LoopState.LISTENING
