"""A Compass Code table whose seats speak through phones, on the loop with the fakes
(``test_overlapping_phones.py``, ``test_short_answers.py``): the loop, a phone's line,
what was logged and what each seat's phone was told."""

from __future__ import annotations

from pathlib import Path

from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    ScriptedRecognizer,
    compass_session,
)
from support import read_jsonl

from facilitator.speech.base import Recognizer, VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings

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
    """Seat ``seat`` holds its talk button from ``pressed`` to ``released`` and says ``text``."""
    loop.phone_press(seat, at=pressed)
    loop.phone_utterance(seat, text.encode("utf-8"), end=released)
    loop.tick(released + 0.03)


def logged(tmp_path: Path) -> list[tuple[str, object]]:
    return [(str(e["type"]), e.get("heard")) for e in read_jsonl(tmp_path / "log.jsonl")[3:]]


def told(answered: Answered, seat: int) -> list[str]:
    return [line for s, _, said in answered if s == seat for line in said]
