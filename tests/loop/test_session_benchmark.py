"""The table-session benchmark's own rules: levels, attribution, and that a short
session runs through the real loop and is scored (``benchmarks/session/``)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from benchmarks.session import room, table
from facilitator.speech.base import SAMPLE_RATE, Segment


def _tone(seconds: float, amplitude: float) -> np.ndarray:
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    return amplitude * np.sin(2 * np.pi * 220 * t)


def test_level_sets_the_speech_active_power() -> None:
    x = np.concatenate([np.zeros(8000), _tone(1.0, 1000.0), np.zeros(8000)])
    out = room.level(x, -26.0)
    assert 10 * np.log10(room.active_power(out) / 32768.0**2) == pytest.approx(-26.0, abs=0.1)


def test_reverb_keeps_the_direct_sound_and_adds_a_tail() -> None:
    ir = room.impulse_response(rt60=0.35)
    assert ir[0] == 1.0 and len(ir) > 0.3 * SAMPLE_RATE
    click = np.zeros(1000)
    click[0] = 1.0
    wet = room.reverb(click, ir)
    assert wet[0] == pytest.approx(1.0) and np.abs(wet[2000:4000]).max() > 0


def test_a_segment_belongs_to_the_line_it_overlaps_most() -> None:
    said = [table.Utterance("command", "send", "v", 1.0, 2.0), table.Utterance("chatter", "hi", "v", 2.2, 3.0)]
    assert table.utterance_of(Segment(b"", 0.9, 2.3), said) is said[0]
    assert table.utterance_of(Segment(b"", 1.9, 3.1), said) is said[1]
    assert table.utterance_of(Segment(b"", 5.0, 6.0), said) is None   # background or the assistant's leak


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_a_short_session_in_background_talk_is_played_and_scored() -> None:
    from benchmarks.corpus import CHATTER
    from facilitator.speech.endpoint import Endpointer
    from facilitator.speech.pocketsphinx_engine import PocketsphinxRecognizer

    result = table.play("two-windows", "talk-20", 20.0, "tuning", ("espeak:en-us", "espeak:en-gb", "espeak:en-us+f3"),
                        0.5, 23, PocketsphinxRecognizer(), lambda loop: Endpointer(complete=loop.complete),
                        chatter=CHATTER)
    assert result.commands and result.stream_seconds >= 30
    assert all(0 <= c.understood_at <= c.tries <= table.TRIES for c in result.commands)
    assert any(c.understood_at for c in result.commands), result.transcript
    assert result.capped_segments == 0   # every utterance ended before the cap, talk or not
    assert result.latencies and result.peak_rss_mb > 0
