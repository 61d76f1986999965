"""A question's window never closes while its answer is still coming in (issue 48).

In loud talk the endpointer may hold a short "yes" open for seconds; the question
("... Is that right?") must not be cancelled meanwhile and the answer heard after
"No answer, so cancelled".  The rule is ``answer_window.waits`` (pure); the loop asks
it of the endpointer that cuts its stream (``run_audio``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from loop.loop_fakes import CaptionLog, RecordingSpeaker, ScriptedRecognizer, compass_session
from support import read_jsonl

from facilitator.speech.base import Frame, Segment, VoiceSettings
from facilitator.speech.loop.answer_window import waits
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState


def test_the_window_waits_for_an_answer_begun_inside_it() -> None:
    # begun before the deadline and still open: wait, up to the endpointer's cap past it
    assert waits(deadline=20.0, now=21.0, speech_since=19.5, longest=8.0)
    assert waits(deadline=20.0, now=28.0, speech_since=12.0, longest=8.0)
    assert not waits(deadline=20.0, now=28.1, speech_since=19.5, longest=8.0)   # never past the cap
    # nothing open, or an utterance begun after the window closed: the window closes
    assert not waits(deadline=20.0, now=21.0, speech_since=None, longest=8.0)
    assert not waits(deadline=20.0, now=21.0, speech_since=20.5, longest=8.0)


class Silence:
    """A stream of quiet frames up to ``seconds`` (the words ride in the scripted endpointer)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def frames(self) -> Iterator[Frame]:
        t = 0.0
        while t < self.seconds:
            yield Frame(b"\0\0" * 480, t)
            t = round(t + 0.03, 3)

    def close(self) -> None:
        return None


class ScriptedEndpointer:
    """Cuts the utterances of ``script`` (start, end, words): an utterance is open (its
    ``speech_since``) from its start until it has been handed on and heard."""

    max_seconds = 8.0

    def __init__(self, script: list[tuple[float, float, str]]) -> None:
        self.script = script
        self.speech_since: float | None = None

    def segments(self, frames: Iterable[Frame]) -> Iterator[Segment]:
        waiting = list(self.script)
        for frame in frames:
            if waiting and frame.t >= waiting[0][0]:
                self.speech_since = waiting[0][0]
            if waiting and frame.t >= waiting[0][1]:
                start, end, text = waiting.pop(0)
                yield Segment(text.encode("utf-8"), start, end)   # open while it is heard, as Endpointer
                self.speech_since = None


def asked_loop(tmp_path: Path) -> tuple[ListenLoop, RecordingSpeaker]:
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    return ListenLoop(compass_session(tmp_path), ScriptedRecognizer(), speaker, voice, CaptionLog(),
                      LoopSettings(earcon_seconds=0.0)), speaker


def test_a_yes_said_inside_the_window_but_ended_after_it_is_heard(tmp_path: Path) -> None:
    loop, speaker = asked_loop(tmp_path)
    # the command heard unsure: asked, said until 4.5 s, so the window closes at 12.5 s; the
    # "yes" begins at 11 s, and the talk around it holds it open until 15 s
    script = [(1.0, 2.5, "unsure:send north east south west"), (11.0, 15.0, "yes")]
    state = loop.run_audio(Silence(25.0), ScriptedEndpointer(script))
    assert state is not LoopState.CONFIRMING
    assert "Send north east south west. Is that right?" in speaker.spoken
    assert not any(line.startswith("No answer, so cancelled") for line in speaker.spoken), speaker.spoken
    assert [e["type"] for e in read_jsonl(tmp_path / "log.jsonl")].count("guess-scored") == 1
    loop.session.log.close()


def test_an_answer_begun_after_the_window_closed_does_not_hold_it(tmp_path: Path) -> None:
    loop, speaker = asked_loop(tmp_path)
    script = [(1.0, 2.5, "unsure:send north east south west"), (13.0, 16.0, "yes")]
    loop.run_audio(Silence(25.0), ScriptedEndpointer(script))
    assert "No answer, so cancelled: send north east south west." in speaker.spoken
    assert [e["type"] for e in read_jsonl(tmp_path / "log.jsonl")].count("guess-scored") == 0
    loop.session.log.close()


def test_the_endpointer_says_when_the_utterance_it_holds_began(tmp_path: Path) -> None:
    """``Endpointer.speech_since``: the open utterance's first voiced moment, kept while the
    utterance it hands on is heard, None between utterances."""
    import shutil

    import pytest
    from support import silence, speak

    from facilitator.speech.audio.endpoint import Endpointer
    from facilitator.speech.base import FRAME_BYTES, SAMPLE_RATE, SAMPLE_WIDTH

    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    pcm = silence(1.0) + speak("yes", "en-us", tmp_path) + silence(1.5)
    endpointer = Endpointer()
    seen: list[float | None] = []

    def frames() -> Iterator[Frame]:
        for i in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES):
            seen.append(endpointer.speech_since)
            yield Frame(pcm[i:i + FRAME_BYTES], i / (SAMPLE_RATE * SAMPLE_WIDTH))

    heard = []
    for segment in endpointer.segments(frames()):
        heard.append((segment.start, endpointer.speech_since))
    assert len(heard) == 1
    start, while_heard = heard[0]
    assert while_heard == start and 0.9 <= start <= 1.3
    assert seen[0] is None and seen[-1] is None and start in seen
