"""Short answers that hold (issue 40), on the loop with the fakes: a "yes" the recognizer
misses then the command said again is a yes; a query both engines heard unsure is asked
back; table talk stays silent (docs/voice-loop.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    ScriptedRecognizer,
    TwoStageRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    compass_session,
    said,
)
from support import read_jsonl

from facilitator.command import Command
from facilitator.speech.base import Recognizer, VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState

SEND = "send north east south west"
OTHER = "send west south east north"
ECHO = "Send north east south west."
REFUSED = "That is Player 1's guess to send."
ASK = "Send north east south west. Is that right?"

Answered = list[tuple[int, str | None, list[str]]]


def make(tmp_path: Path, recognizer: Recognizer | None = None,
         scale: float = 1.0) -> tuple[ListenLoop, RecordingSpeaker, Answered]:
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    loop = ListenLoop(compass_session(tmp_path), recognizer or ScriptedRecognizer(), speaker, voice,
                      CaptionLog(), LoopSettings(earcon_seconds=0.0, implicit_window_seconds=3.0,
                                                 verify_cpu_scale=scale))
    answered: Answered = []
    loop.on_phone = lambda seat, heard, said: answered.append((seat, heard, list(said)))
    OPENED.append(loop)
    return loop, speaker, answered


def phone(loop: ListenLoop, seat: int, text: str, pressed: float, released: float) -> None:
    loop.phone_press(seat, at=pressed)
    loop.phone_utterance(seat, text.encode("utf-8"), end=released)
    loop.tick(released + 0.03)


def logged(tmp_path: Path) -> list[tuple[str, object]]:
    return [(str(e["type"]), e.get("heard")) for e in read_jsonl(tmp_path / "log.jsonl")[3:]]


def told(answered: Answered, seat: int) -> list[str]:
    return [line for s, _, said in answered if s == seat for line in said]


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
