"""The two engines together may not silently get worse: the same golden clips, pins of their own.

The clips and the path are those of ``test_golden_accuracy.py`` (``recognize_files``,
the whole game grammar); the recognizer is ``HybridRecognizer`` (both engines),
what ``facilitator recognize`` and play use when the ``whisper`` extra is installed.

The pins hold on any CPU and any version in the lock: CTranslate2 picks its kernels
by CPU (AVX-512 on Intel, AVX2 on AMD, NEON on a Raspberry Pi), and those move a
clip or two near the edge.  Each pin is the lowest count measured over the kernels
(``CT2_FORCE_CPU_ISA`` GENERIC, AVX, AVX2, AVX512) and thread counts (1, 2, 4)
less a margin of about one clip in eight, on 12 to 16 clips per condition, so
that no single clip decides.  The exact counts per kernel are in
benchmarks/RESULTS.md ("Golden clips across CPU kernels"); raise the pins there
and here when a change improves every kernel's count.  Whisper runs with two
intra-op threads (``WhisperRecognizer(threads=2)``, the product's setting); the
counts did not depend on the thread count.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "golden.toml").read_text(encoding="utf-8"))["clip"]
GAMES = ("compass-code", "two-windows", "lantern-links", "clover")


def _commands(noise: str) -> list[dict[str, object]]:
    return [c for c in SPEC if c["want"] and c["noise"] == noise]

#: at least this many commands right, per noise condition (of 12, 16, 16); lowest measured
#: over the kernels and thread counts 11 (AVX), 14, 15 (benchmarks/RESULTS.md).  babble-10 (4 clips) is left out:
#: both engines got none of them right, and a pin of 0 could not fail; its clips still
#: count for the wrong and chatter pins
MIN_RIGHT = {"clean": 10, "white-20": 12, "babble-20": 13}
#: commands heard as another command, of 48 (measured: 0 on every kernel)
MAX_WRONG = 1
#: (chatter clip, game grammar) pairs heard as a command, of 10 clips x 4 games = 40 (measured: 1)
MAX_CHATTER_ACCEPTED = 3


@pytest.fixture(scope="module")
def results() -> dict[tuple[str, str], str | None]:
    pytest.importorskip("faster_whisper")
    from facilitator.speech.engines.hybrid import HybridRecognizer
    from facilitator.speech.engines.recognize import recognize_files

    recognizer = HybridRecognizer("always")
    out: dict[tuple[str, str], str | None] = {}
    for game in GAMES:
        files = [c["file"] for c in SPEC if c["game"] in (game, "")]
        for row in recognize_files(game, [HERE / "clips" / f for f in files], recognizer):
            out[(Path(row["file"]).name, game)] = row["command"]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("noise", sorted(MIN_RIGHT))
def test_commands_right_at_least_the_pinned_count(results: dict[tuple[str, str], str | None], noise: str) -> None:
    clips = _commands(noise)
    right = [c for c in clips if (results[(str(c["file"]), str(c["game"]))] or "").lower() == str(c["want"]).lower()]
    assert len(right) >= MIN_RIGHT[noise], [(c["text"], results[(str(c["file"]), str(c["game"]))])
                                             for c in clips if c not in right]


@pytest.mark.slow
def test_wrong_commands_at_most_the_pinned_count(results: dict[tuple[str, str], str | None]) -> None:
    wrong = [(c["text"], results[(str(c["file"]), str(c["game"]))]) for c in SPEC if c["want"]
             and results[(str(c["file"]), str(c["game"]))]
             and str(results[(str(c["file"]), str(c["game"]))]).lower() != str(c["want"]).lower()]
    assert len(wrong) <= MAX_WRONG, wrong


@pytest.mark.slow
def test_chatter_accepted_at_most_the_pinned_count(results: dict[tuple[str, str], str | None]) -> None:
    accepted = [(c["text"], game, results[(str(c["file"]), game)]) for c in SPEC if not c["want"]
                for game in GAMES if results[(str(c["file"]), game)]]
    assert len(accepted) <= MAX_CHATTER_ACCEPTED, accepted
