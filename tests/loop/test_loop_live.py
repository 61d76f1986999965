"""The loop on a live microphone's terms: wall-clock time, a blocking speaker, typed
lines and push-to-talk taps from a terminal."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from loop.loop_fakes import CaptionLog, ScriptedRecognizer, compass_session, said
from support import read_jsonl

from facilitator.errors import OptionsError
from facilitator.speech.audio.push_to_talk import check_spec, read_lines
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState

ECHO = "Send north east south west. Is that right?"


@dataclass
class Clock:
    t: float = 100.0

    def __call__(self) -> float:
        return self.t


@dataclass
class BlockingSpeaker:
    """Takes real (fake-clock) time to speak, as a sound card does."""

    clock: Clock
    seconds: float = 2.0
    spoken: list[str] = field(default_factory=list)

    def speak(self, text: str) -> float:
        self.spoken.append(text)
        self.clock.t += self.seconds
        return self.seconds

    def earcon(self, name: str) -> None:
        """Earcons take no time here and are not what these tests look at."""


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[ListenLoop, BlockingSpeaker, Clock]]:
    clock = Clock()
    speaker = BlockingSpeaker(clock)
    loop = ListenLoop(compass_session(tmp_path), ScriptedRecognizer(), speaker,
                      VoiceSettings(confirm_timeout_seconds=8.0), CaptionLog(),
                      LoopSettings(earcon_seconds=0.0), wall_clock=clock)
    yield loop, speaker, clock
    loop.session.log.close()


def test_wall_clock_half_duplex_measures_the_speech(live: tuple[ListenLoop, BlockingSpeaker, Clock],
                                                    tmp_path: Path) -> None:
    loop, speaker, clock = live
    loop.tick(0.0)                                  # the first frame: stream 0.0 is now
    clock.t = 102.1                                 # the utterance ended at 2.0 and was cut at 2.1
    loop.hear(said("unsure:send north east south west", 1.0))
    assert speaker.spoken == [ECHO]                 # spoken from 2.1 to 4.1, deaf until 4.4
    loop.hear(said("yes", 3.0, 0.5))                # the microphone heard the speaker
    loop.hear(said("yes", 4.2, 0.4))                # too little of it after the deaf window
    assert [d.reason for d in loop.discarded] == ["half-duplex", "half-duplex"]
    clock.t = 105.5
    loop.hear(said("yes", 4.5, 0.5))
    assert [e["type"] for e in read_jsonl(tmp_path / "log.jsonl")][3:] == ["guess-scored", "captain-named"]


def test_wall_clock_timeout_fires_on_the_clock(live: tuple[ListenLoop, BlockingSpeaker, Clock]) -> None:
    loop, speaker, clock = live
    loop.tick(0.0)
    clock.t = 102.0
    loop.hear(said("unsure:send north east south west", 1.0))   # echo ends 4.0, deaf until 4.3
    clock.t = 100.0 + 4.3 + 8.0 - 0.1
    loop.tick(5.0)                                  # frames may lag: the clock decides
    assert loop.state is LoopState.CONFIRMING
    clock.t += 0.2
    loop.tick(5.0)
    assert loop.state is LoopState.LISTENING and speaker.spoken[-1] == "No answer, so cancelled: send north east south west."


@dataclass
class Taps:
    calls: list[str] = field(default_factory=list)

    def press(self, t: float | None = None) -> None:
        self.calls.append("press")

    def release(self, t: float | None = None) -> None:
        self.calls.append("release")

    def submit_text(self, line: str) -> None:
        self.calls.append(line)


def test_terminal_lines_are_typed_commands_and_empty_lines_taps() -> None:
    taps = Taps()
    read_lines(io.StringIO("status\n\nsend NESW\n"), taps, tap_on_empty=True).join(5)
    assert taps.calls == ["status", "press", "release", "send NESW"]
    quiet = Taps()
    read_lines(io.StringIO("\nhelp\n"), quiet, tap_on_empty=False).join(5)
    assert quiet.calls == ["help"]


@pytest.mark.parametrize("spec", ["pedal", "key:5", "gpio", "evdev", "gpio:"])
def test_push_to_talk_specs_are_checked(spec: str) -> None:
    with pytest.raises(OptionsError):
        check_spec(spec)


def test_typed_lines_reach_the_session_through_the_loop(tmp_path: Path) -> None:
    loop = ListenLoop(compass_session(tmp_path), ScriptedRecognizer(), BlockingSpeaker(Clock()),
                      VoiceSettings(), CaptionLog(), LoopSettings())
    try:
        read_lines(io.StringIO("send NESW\n"), loop, tap_on_empty=False).join(5)
        loop.tick(1.0)
        assert [e["type"] for e in read_jsonl(tmp_path / "log.jsonl")][3:] == ["guess-scored", "captain-named"]
    finally:
        loop.session.log.close()


def test_wall_clock_opening_speech_is_deaf_from_the_first_frame(live: tuple[ListenLoop, BlockingSpeaker, Clock]) -> None:
    loop, speaker, clock = live                     # the microphone started with the loop, at 100.0
    loop.announce(["Leg 1 of 3."])                  # 100.0 to 102.0, before any frame was read
    loop.hear(said("how many candidates", 1.0))     # captured while the opening was said
    assert [d.reason for d in loop.discarded] == ["half-duplex"]
    clock.t = 104.0
    loop.hear(said("how many candidates", 2.6))
    assert speaker.spoken[-1] == "24 candidates remain."


def test_a_late_frame_does_not_move_the_origin_later(live: tuple[ListenLoop, BlockingSpeaker, Clock]) -> None:
    loop, _, clock = live
    clock.t = 105.0
    loop.tick(1.0)                                  # a backlog: frame 1.0 read at 105.0
    assert loop.now() == pytest.approx(5.0)         # stream time is still measured from 100.0
