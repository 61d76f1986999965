"""Short answers that hold (issue 40): "yes" and "no" to "... Is that right?" said by
voices of two synthesizers into a phone while the table talks, decoded by pocketsphinx
(the light mode) under the question's grammar.

The talk around a short answer was forced onto the first word of a long aside
("what did you say"), the path ended inside it, and the answer was lost; the answer
hearing (``engines/short_answers.py``) takes that talk as filler."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

pytestmark = pytest.mark.slow

VOICES = ("flite:awb", "flite:kal", "flite:slt", "flite:rms", "espeak:en-029", "espeak:en-gb-scotland",
          "espeak:en-us", "espeak:en-us+m3")
ANSWERS = (("yes", "yes"), ("yeah", "yes"), ("no", "no"), ("nope", "no"))
#: the table's talk at the phone, below the player's line (talk 10 dB below at the table,
#: the phone 12 dB closer to its player: the session benchmark's phone at talk 10)
TALK_BELOW_DB = 22.0
#: each answer said over this many stretches of the table's talk
PLACES = 4


@pytest.fixture(scope="module")
def heard() -> dict[str, list[tuple[str, str, str | None]]]:
    if shutil.which("flite") is None or shutil.which("espeak-ng") is None:
        pytest.fail("this test needs espeak-ng and flite (.ci/setup installs both)")
    from benchmarks.session import room
    from benchmarks.session.table import phone_hears
    from benchmarks.session.voices import Voices
    from facilitator.games import find_game
    from facilitator.games.clover.referee import Clover
    from facilitator.grammar import load_grammar
    from facilitator.speech.engines.grammar_build import recognition_grammar
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer
    from facilitator.speech.engines.short_answers import answer_grammar
    from facilitator.speech.loop.core import CONFIRM_INTENTS, QUESTION_ASIDES

    grammar = load_grammar("clover")
    queries = Clover.queries
    question = recognition_grammar(grammar, intents=sorted(CONFIRM_INTENTS | QUESTION_ASIDES | set(queries)),
                                   lists=find_game("clover").recognition_lists() or None)
    voices = Voices()
    try:
        bed = room.background_bed(voices.say, 40.0, seed=5)
        rng = np.random.default_rng(1)
        recognizer = PocketsphinxRecognizer()
        out: dict[str, list[tuple[str, str, str | None]]] = {"plain": [], "answer": []}
        for voice in VOICES:
            for text, meant in ANSWERS:
                line = voices.say(voice, text).astype(np.float64)
                n = len(line) + int(0.6 * 16_000)
                for _ in range(PLACES):
                    start = int(rng.integers(0, len(bed) - n))
                    talk = room.level(bed[start:start + n], room.SPEECH_DBFS - TALK_BELOW_DB + 12.0)
                    pcm = phone_hears(line, 0.2, talk)
                    for name, decoding in (("plain", question), ("answer", answer_grammar(question))):
                        hyp = recognizer.decode(pcm, decoding)
                        out[name].append((voice, meant, decoding.commands.get(hyp.text) if hyp else None))
    finally:
        voices.close()
    return out


def test_yes_and_no_said_into_a_phone_while_the_table_talks_are_heard_more_often(heard) -> None:
    """Measured when written: 46 of 128 heard right with the answer hearing, 25 of 128
    under the question's grammar as it was (flite's awb: 3 of 16, was 0); both heard the
    other answer 7 times.  Far from every voice (issue 40's target is not met yet); the
    margins below keep the gain without asserting the exact figures."""
    got, plain = heard["answer"], heard["plain"]
    right = sum(1 for _, meant, command in got if command == meant)
    before = sum(1 for _, meant, command in plain if command == meant)
    assert right >= 1.4 * before and right >= 0.28 * len(got), (right, before)
    # the other answer no more often than before: a "no" heard as "yes" applies a command nobody wanted
    def opposite(rows: list[tuple[str, str, str | None]]) -> int:
        return sum(1 for _, meant, command in rows if command in ("yes", "no") and command != meant)
    assert opposite(got) <= opposite(plain) + 1
    awb = [c for v, m, c in got if v == "flite:awb" and c == m]
    assert awb, "flite's awb voice: its yes and no still never heard"
