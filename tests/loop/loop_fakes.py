"""Small fakes for the listen loop: a scripted recognizer and a speaker that records.

A fake utterance is a ``Segment`` whose ``pcm`` is the UTF-8 text a player said.
The scripted recognizer behaves like a grammar-constrained engine: it returns the
words only when they are a phrase of the grammar it was given (else nothing);
``raw:`` text is returned whatever the grammar (an open-vocabulary engine).
The recognizer is sure of what it heard unless the text starts with ``unsure:``.
Audio said while the assistant's own sound still plays (``said_after``) starts
with NUL bytes standing for that sound: an utterance still holding any of it is
not recognized, so only an utterance trimmed past it is heard.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from facilitator.games import find_game
from facilitator.session import Session
from facilitator.speech.base import (
    SAMPLE_RATE,
    SAMPLE_WIDTH,
    FirstHearing,
    Hypothesis,
    RecognitionGrammar,
    Segment,
    VoiceSettings,
)

ROUTES = "ESNW,NESW,WSEN"


def said(text: str, start: float, seconds: float = 1.0) -> Segment:
    return Segment(pcm=text.encode("utf-8"), start=start, end=start + seconds)


def said_after(text: str, start: float, echo_seconds: float, seconds: float = 1.0) -> Segment:
    """An utterance whose first ``echo_seconds`` are the assistant's own sound (the
    endpointer joined the echo and the reply into one utterance)."""
    echo = b"\0" * (round(echo_seconds * SAMPLE_RATE) * SAMPLE_WIDTH)
    return Segment(pcm=echo + text.encode("utf-8"), start=start, end=start + echo_seconds + seconds)


def heard(pcm: bytes) -> tuple[str, bool] | None:
    """The fake audio's words and whether the recognizer is sure (None: garbled by echo)."""
    if pcm.startswith(b"\0"):
        return None
    text = pcm.decode("utf-8", errors="replace")
    if text.startswith("unsure:"):
        return text[len("unsure:"):], False
    return text, True


class ScriptedRecognizer:
    name = "scripted"

    def __init__(self) -> None:
        self.grammars: list[RecognitionGrammar] = []
        self.decoded: list[str] = []

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        self.grammars.append(grammar)
        got = heard(pcm)
        if got is None:
            return None
        text, sure = got
        self.decoded.append(text)
        if text.startswith("raw:"):
            return Hypothesis(text[4:], sure=sure)
        return Hypothesis(text, sure=sure) if text in grammar.phrases else None

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        got = heard(pcm)
        return got is not None and got[0] in grammar.phrases


@dataclass
class RecordingSpeaker:
    """Records each sentence with the volume and rate it was said at; ``seconds`` each."""

    voice: VoiceSettings
    seconds: float = 2.0
    spoken: list[str] = field(default_factory=list)
    settings: list[tuple[float, int]] = field(default_factory=list)
    earcons: list[str] = field(default_factory=list)

    def speak(self, text: str) -> float:
        self.spoken.append(text)
        self.settings.append((self.voice.volume, self.voice.rate_wpm))
        return self.seconds

    def earcon(self, name: str) -> None:
        self.earcons.append(name)


class CaptionLog:
    """Every caption line, in order."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.heard_lines: list[str] = []

    def said(self, text: str) -> None:
        self.lines.append(text)

    def heard(self, text: str) -> None:
        self.heard_lines.append(text)


def compass_session(tmp: Path, **flags: Any) -> Session:
    options = find_game("compass-code").parse_options({"routes": ROUTES, **flags})
    session, _ = Session.start("compass-code", seed=5, options=options, log_path=tmp / "log.jsonl")
    return session


class TwoStageRecognizer(ScriptedRecognizer):
    """Two engines, scripted: ``"FIRST=>VERDICT"`` is heard as FIRST by the fast engine and
    as VERDICT by the two together (``=>`` alone: the verdict is nothing; no ``=>``: both
    hear the same).  The verdict is sure unless it starts with ``unsure:``; the first
    hearing never is.  A verdict ``free:WORDS`` is what a free transcriber wrote and no
    phrase of the grammar (``Hypothesis.free``, for the meaning stage); ``PHRASE|free:WORDS``
    is a phrase of the grammar with those free words beside it.  ``cpu_seconds``: CPU time each verdict spends (so a loop on stream
    time has it in that many seconds times its ``verify_cpu_scale``)."""

    name = "scripted-two-stage"

    def __init__(self, cpu_seconds: float = 0.0) -> None:
        super().__init__()
        self.cpu_seconds = cpu_seconds
        self.firsts: list[str] = []
        self.verdicts: list[str] = []

    @staticmethod
    def _parts(pcm: bytes) -> tuple[str, str] | None:
        if pcm.startswith(b"\0"):
            return None
        text = pcm.decode("utf-8", errors="replace")
        first, _, verdict = text.partition("=>") if "=>" in text else (text, "", text)
        return first, verdict

    def hear_first(self, pcm: bytes, grammar: RecognitionGrammar) -> FirstHearing:
        parts = self._parts(pcm)
        if parts is None:
            return FirstHearing(None)
        first = parts[0].removeprefix("unsure:")
        self.firsts.append(first)
        return FirstHearing(Hypothesis(first, sure=False) if first in grammar.phrases else None)

    def verify(self, pcm: bytes, grammar: RecognitionGrammar, first: FirstHearing) -> Hypothesis | None:
        import time

        began = time.thread_time()
        while time.thread_time() - began < self.cpu_seconds:   # burn the engine's CPU time
            continue
        parts = self._parts(pcm)
        if parts is None or not parts[1]:
            return None
        verdict, _, free = parts[1].partition("|free:") if "|free:" in parts[1] else (parts[1], "", "")
        if verdict.startswith("free:"):
            self.verdicts.append(verdict)
            return Hypothesis("", sure=False, free=(verdict[len("free:"):],))
        text, sure = (verdict[len("unsure:"):], False) if verdict.startswith("unsure:") else (verdict, True)
        self.verdicts.append(text)
        return Hypothesis(text, sure=sure, free=(free,) if free else ()) if text in grammar.phrases else None

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        return self.verify(pcm, grammar, self.hear_first(pcm, grammar))


#: what a test opened whose event log must be closed after it: loops, or sessions
OPENED: list[Any] = []


@pytest.fixture(autouse=True)
def close_opened() -> Iterator[None]:
    """Close the event log of every loop or session a test put in ``OPENED`` (a module
    that imports this fixture uses it for each of its tests)."""
    yield
    while OPENED:
        opened = OPENED.pop()
        getattr(opened, "session", opened).log.close()

