"""The listen loop's settings (times in seconds)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LoopSettings:
    """How the loop gates and paces the table (times in seconds)."""

    wake_phrase: bool = False
    push_to_talk: bool = False
    #: after the wake phrase or a key press, a command must start within this window
    armed_window_seconds: float = 6.0
    #: a command may start this long before the key press (people press while talking)
    press_slack_seconds: float = 0.5
    #: earcons count as assistant sound for half duplex
    earcon_seconds: float = 0.3
    #: a "louder" or "softer" step, in decibels (3 dB is clearly audible)
    volume_step_db: float = 3.0
    min_volume: float = 0.1    # -20 dB
    max_volume: float = 1.0    # the loudest the voice goes without clipping
    #: the undo window after an implicit echo ("Send north east south west.")
    implicit_window_seconds: float = 3.0
    #: the least of an utterance kept after trimming the assistant's own sound off its front
    min_trimmed_seconds: float = 0.25
    #: "Please say yes or no." said this many times for one question, the next talk closes it
    max_yes_or_no_prompts: int = 2
    #: after "Please say yes or no.", at least this long to answer (the timeout does not restart)
    answer_seconds: float = 4.0
    #: an aside heard unsure and met with silence, heard unsure again within this
    #: window, is answered (a player who got no answer says it again)
    repeat_window_seconds: float = 15.0
    #: failures in a row before the referee offers the right form (once)
    hint_after_failures: int = 2
    #: stream time only (a recording, a benchmark): the second engine's verdict on an echo is in
    #: this many times its CPU seconds after it started (1: this machine; a Raspberry Pi 4 is
    #: slower, see benchmarks/RESULTS.md for the estimate); at a live table it is computed
    #: in a worker thread and is in when it is done
    verify_cpu_scale: float = 1.0
    rate_step_wpm: int = 25
    min_rate_wpm: int = 90
    max_rate_wpm: int = 280
