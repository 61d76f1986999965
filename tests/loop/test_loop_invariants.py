"""Invariants 6 and 7 over random tables: whatever is said, whenever it is said.

* Half duplex: no utterance that starts before the assistant's last sound (plus
  the deaf window) ends is ever decoded.
* Confirmation: every guess or bearing check in the log was applied either on a
  "yes" heard while that command waited, or, heard sure, when its undo window
  closed with nothing taking it back or when the same command was said again
  inside that window (applied once); an unsure hearing is never held, only asked.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from loop.loop_fakes import CaptionLog, RecordingSpeaker, compass_session, said
from support import read_jsonl

from facilitator.speech.base import Hypothesis, RecognitionGrammar, Segment, VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState

WORDS = ["send north east south west", "send east south north west", "send west north east south",
         "is west in position four", "bearing check north in position one", "yes", "no", "cancel",
         "repeat", "status", "how many candidates", "louder", "slower", "", "raw:the boat is late",
         "unsure:send north east south west", "unsure:is west in position four", "unsure:yes", "undo that",
         "hey referee", "hey referee send east south north west", "unsure:hey referee status",
         "unsure:status", "go on", "help"]
CONSEQUENTIAL = ("send", "is west", "bearing check")


class WatchingRecognizer:
    """Decodes like the scripted one, and records what the loop was doing at each decode."""

    name = "watching"

    def __init__(self) -> None:
        self.loop: ListenLoop | None = None
        self.early: list[tuple[float, float]] = []
        self.yes_while_confirming = 0
        self.yes_while_holding = 0
        self.sure_consequential = 0

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        assert self.loop is not None
        text = pcm.decode(errors="replace")
        sure = not text.startswith("unsure:")
        text = text.removeprefix("unsure:")
        segment_start = self.loop.current.start if self.loop.current else 0.0
        if segment_start < self.loop.quiet_from:
            self.early.append((segment_start, self.loop.quiet_from))
        if text.startswith("raw:"):
            return Hypothesis(text[4:], sure=sure)
        if text not in grammar.phrases:
            return None
        if text == "yes" and self.loop.state is LoopState.CONFIRMING:
            self.yes_while_confirming += 1
        if text == "yes" and self.loop.state is LoopState.HOLDING:
            self.yes_while_holding += 1
        if sure and any(text.removeprefix("hey referee ").startswith(c) for c in CONSEQUENTIAL):
            self.sure_consequential += 1
        return Hypothesis(text, sure=sure)


utterances = st.lists(
    st.tuples(st.sampled_from(WORDS), st.floats(0.0, 12.0), st.floats(0.2, 3.0)), max_size=25)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=utterances)
def test_half_duplex_and_confirmation_hold_for_any_table(tmp_path_factory, script) -> None:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("table")
    voice = VoiceSettings()
    recognizer = WatchingRecognizer()
    loop = ListenLoop(compass_session(tmp), recognizer, RecordingSpeaker(voice, seconds=1.5), voice,
                      CaptionLog(), LoopSettings())
    recognizer.loop = loop
    segments: list[Segment] = []
    t = 0.0
    for text, gap, seconds in script:
        t += gap
        segments.append(said(text, t, seconds))
        t += seconds
    try:
        loop.run(segments)
    finally:
        loop.session.log.close()
    assert recognizer.early == []
    applied = [e for e in read_jsonl(tmp / "log.jsonl") if e["type"] in ("guess-scored", "bearing-checked")]
    assert len(applied) == (recognizer.yes_while_confirming + recognizer.yes_while_holding + loop.released
                            + loop.repeated)
    assert loop.held <= recognizer.sure_consequential
