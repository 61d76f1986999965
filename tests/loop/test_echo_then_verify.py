"""Answer at once, verify while speaking: the echo of the fast engine's first hearing, and
what the second engine's verdict does to it (docs/voice-loop.md).

Times are stream seconds: the recording speaker takes 2 s a sentence, earcons none, the
deaf window is 0.3 s and the undo window 3 s.  ``"FIRST=>VERDICT"`` is an utterance the
fast engine hears as FIRST and the two engines together as VERDICT
(``loop_fakes.TwoStageRecognizer``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    TwoStageRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    compass_session,
    said,
)
from support import read_jsonl

from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState
from facilitator.speech.loop.policy import Hearing, Take, VerifyTake, after_verify, take

SEND = "send north east south west"           # route NESW; leg 1 hides ESNW: 1 anchor, 2 steps
OTHER = "send west south east north"
ECHO = "Send north east south west."
SCORED = ["North east south west: 1 anchor, 2 clockwise steps.", "Guess 2 of 4: Player 2 is captain."]

_open = OPENED


def make(tmp_path: Path, cpu_seconds: float = 0.0, scale: float = 1.0,
         wall_clock: object = None) -> tuple[ListenLoop, RecordingSpeaker, TwoStageRecognizer]:
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    recognizer = TwoStageRecognizer(cpu_seconds)
    loop = ListenLoop(compass_session(tmp_path), recognizer, speaker, voice, CaptionLog(),
                      LoopSettings(earcon_seconds=0.0, implicit_window_seconds=3.0, verify_cpu_scale=scale),
                      wall_clock=wall_clock)  # type: ignore[arg-type]
    _open.append(loop)
    return loop, speaker, recognizer


def logged(tmp_path: Path) -> list[str]:
    return [e["type"] for e in read_jsonl(tmp_path / "log.jsonl")][3:]


# -- the rules, pure ---------------------------------------------------------------------
@pytest.mark.parametrize(("confirm", "aside", "acceptable", "expected"), [
    ("true", False, True, Take.HOLD_FIRST),     # an undoable command: echoed now
    ("true", False, False, Take.WAIT),          # the rules would refuse it: both engines first
    ("always", False, True, Take.WAIT),         # cannot be taken back: both engines first
    (None, False, True, Take.WAIT),             # applied at once when heard: both engines first
    (None, True, True, Take.WAIT),              # a question to answer: both engines first
    ("unsure", False, True, Take.WAIT),         # a free move: both engines say whether it is sure
])
def test_only_an_undoable_legal_command_is_echoed_from_the_first_hearing(
        confirm: str | None, aside: bool, acceptable: bool, expected: Take) -> None:
    assert take(Hearing(first=True), aside=aside, confirm=confirm, acceptable=acceptable) is expected
    assert take(Hearing(first=True, addressed=True), aside=aside, confirm=confirm,
                acceptable=acceptable) is expected


@pytest.mark.parametrize(("verified", "sure", "aside", "acceptable", "expected"), [
    ("send NESW", True, False, True, VerifyTake.KEEP),
    ("SEND nesw", True, False, True, VerifyTake.KEEP),        # canonical forms compare without case
    ("send NESW", False, False, True, VerifyTake.ASK),
    ("send WSEN", True, False, True, VerifyTake.CORRECT),
    ("send WSEN", False, False, True, VerifyTake.CORRECT),
    ("send WSEN", True, False, False, VerifyTake.WITHDRAW),   # another command the rules refuse now
    ("status", True, True, True, VerifyTake.WITHDRAW),         # an aside is no correction
    (None, False, False, False, VerifyTake.WITHDRAW),          # the two engines heard nothing
])
def test_the_verdict_keeps_asks_corrects_or_withdraws_the_echo(
        verified: str | None, sure: bool, aside: bool, acceptable: bool, expected: VerifyTake) -> None:
    assert after_verify(held="send NESW", verified=verified, sure=sure, aside=aside,
                        acceptable=acceptable) is expected


# -- in the loop -------------------------------------------------------------------------
def test_the_echo_is_said_before_the_verdict_and_the_command_applied_after_its_window(tmp_path: Path) -> None:
    loop, speaker, recognizer = make(tmp_path)
    loop.hear(said(SEND, 1.0))                 # echo 2.0-4.0 from the first hearing alone
    assert speaker.spoken == [ECHO] and recognizer.verdicts == []   # nothing verified yet
    assert loop.state is LoopState.HOLDING and logged(tmp_path) == []
    loop.tick(4.1)                             # the verdict is in (it took no time): it agrees
    assert recognizer.verdicts == [SEND] and loop.verified == 1 and logged(tmp_path) == []
    loop.tick(7.4)                             # the window closes: applied once
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert speaker.spoken == [ECHO, *SCORED]


def test_an_unsure_verdict_turns_the_echo_into_a_question(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(f"{SEND}=>unsure:{SEND}", 1.0))
    loop.tick(4.1)
    assert speaker.spoken == [ECHO, "Is that right?"] and loop.state is LoopState.CONFIRMING
    loop.tick(9.0)                             # the window would have closed: nothing applied
    assert logged(tmp_path) == []
    loop.hear(said("yes", 9.5, 0.5))
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


def test_a_verdict_of_another_command_asks_about_it(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(f"{SEND}=>{OTHER}", 1.0))
    loop.tick(4.1)
    assert speaker.spoken[-1] == "Sorry, did you say send west south east north?"
    assert loop.state is LoopState.CONFIRMING and logged(tmp_path) == []
    loop.hear(said("yes", 7.0, 0.5))
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert read_jsonl(tmp_path / "log.jsonl")[3]["route"] == "WSEN"


def test_a_verdict_of_nothing_withdraws_the_echo_and_logs_nothing(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(f"{SEND}=>", 1.0))          # chatter the fast engine forced onto a guess
    loop.tick(4.1)
    assert speaker.spoken == [ECHO, "Sorry, I misheard that."]
    assert loop.state is LoopState.LISTENING and loop.withdrawn == 1
    loop.tick(20.0)
    assert logged(tmp_path) == []


def test_the_window_waits_for_a_slow_verdict(tmp_path: Path) -> None:
    # 1 ms of CPU a million times slower: the verdict is in 1,000 s after it started
    loop, _, _ = make(tmp_path, cpu_seconds=0.001, scale=1e6)
    loop.hear(said(SEND, 1.0))
    loop.tick(10.0)                            # the undo window is long past: still no verdict
    assert logged(tmp_path) == [] and loop.state is LoopState.HOLDING
    loop.tick(2000.0)
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


def test_no_inside_the_window_takes_the_echo_back_whatever_the_verdict(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, cpu_seconds=0.001, scale=1e6)
    loop.hear(said(SEND, 1.0))
    loop.hear(said("no", 5.0, 0.5))            # the verdict is settled first, then the "no" is heard
    assert speaker.spoken == [ECHO, "Cancelled."]
    loop.tick(3000.0)
    assert logged(tmp_path) == []


def test_a_typed_line_in_the_window_waits_for_the_verdict_first(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(f"{SEND}=>", 1.0))
    loop.submit_text("status")                 # typed before the verdict was looked at
    loop.tick(2.5)
    assert "Sorry, I misheard that." in speaker.spoken
    assert logged(tmp_path) == []              # the withdrawn guess was never applied


def test_a_command_that_cannot_be_taken_back_waits_for_both_engines(tmp_path: Path) -> None:
    loop, speaker, recognizer = make(tmp_path)
    loop.hear(said("restart the leg=>restart the leg", 1.0))
    assert recognizer.verdicts == ["restart the leg"]          # verified before anything was said
    assert speaker.spoken == ["Restart the leg. Is that right?"]


def test_a_question_is_answered_only_on_the_two_engines_verdict(tmp_path: Path) -> None:
    loop, speaker, recognizer = make(tmp_path)
    loop.hear(said("how many candidates=>", 1.0))               # the two engines heard nothing
    assert speaker.spoken == [] and recognizer.firsts == ["how many candidates"]
    loop.hear(said("how many candidates=>how many candidates", 5.0))
    assert recognizer.verdicts == ["how many candidates"] and len(speaker.spoken) == 1
    assert "routes" in speaker.spoken[0] or "candidate" in speaker.spoken[0]


def test_at_a_live_table_the_verdict_is_computed_beside_the_echo(tmp_path: Path) -> None:
    now = [100.0]
    loop, speaker, recognizer = make(tmp_path, wall_clock=lambda: now[0])
    loop.tick(0.0)
    now[0] = 102.0
    loop.hear(said(SEND, 1.0))
    assert speaker.spoken == [ECHO]
    for _ in range(200):                       # a worker thread computes it
        if recognizer.verdicts:
            break
        import time
        time.sleep(0.01)
    now[0] = 103.0
    loop.tick(3.0)
    assert loop.verified == 1
    now[0] = 110.0
    loop.tick(10.0)
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
