"""Recognition accuracy may not silently get worse: a fixed golden set with pinned counts.

The clips (tests/recognition/golden.toml, WAVs in clips/) are commands of all
four games and table chatter, in tuning and held-out espeak-ng voices, clean and
mixed with white noise or babble at measured SNR by the benchmark's own mixer.
They go through ``recognize_files``, the path of ``facilitator recognize`` (the
whole game grammar), on the default recognizer.

The pins are the counts measured when the set was made (see
benchmarks/RESULTS.md); a change that loses a right command, adds a wrong one or
lets more chatter through fails here.  When a change improves them, raise the
pins in the same commit.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from facilitator.speech.pocketsphinx_engine import PocketsphinxRecognizer
from facilitator.speech.recognize import recognize_files

HERE = Path(__file__).resolve().parent
SPEC = tomllib.loads((HERE / "golden.toml").read_text(encoding="utf-8"))["clip"]
GAMES = ("compass-code", "two-windows", "lantern-links", "clover")

#: at least this many commands right, per noise condition (out of the count in brackets)
MIN_RIGHT = {"clean": 12, "white-20": 4, "babble-20": 1, "babble-10": 1}   # of 12, 4, 4, 4
#: at most this many commands heard as another command, over the whole set
MAX_WRONG = 1
#: at most this many (chatter clip, game grammar) pairs heard as a command
MAX_CHATTER_ACCEPTED = 9   # of 10 clips x 4 games = 40


@pytest.fixture(scope="module")
def results() -> dict[tuple[str, str], str | None]:
    """(file, game grammar) -> the command ``recognize`` gives, for every clip and chatter x game."""
    recognizer = PocketsphinxRecognizer()
    out: dict[tuple[str, str], str | None] = {}
    for game in GAMES:
        files = [c["file"] for c in SPEC if c["game"] in (game, "")]
        for row in recognize_files(game, [HERE / "clips" / f for f in files], recognizer):
            out[(Path(row["file"]).name, game)] = row["command"]
    return out


def _commands(noise: str) -> list[dict[str, object]]:
    return [c for c in SPEC if c["want"] and c["noise"] == noise]


def test_the_set_covers_every_game_noise_and_chatter() -> None:
    assert {c["game"] for c in SPEC if c["want"]} == set(GAMES)
    assert {c["noise"] for c in SPEC if c["want"]} == set(MIN_RIGHT)
    assert sum(1 for c in SPEC if not c["want"]) >= 8
    assert all((HERE / "clips" / str(c["file"])).is_file() for c in SPEC)


@pytest.mark.parametrize("noise", sorted(MIN_RIGHT))
def test_commands_right_at_least_the_pinned_count(results: dict[tuple[str, str], str | None], noise: str) -> None:
    clips = _commands(noise)
    right = [c["file"] for c in clips
             if (results[(str(c["file"]), str(c["game"]))] or "").lower() == str(c["want"]).lower()]
    assert len(right) >= MIN_RIGHT[noise], (
        f"{noise}: {len(right)} of {len(clips)} right, pinned {MIN_RIGHT[noise]}; missed: "
        + ", ".join(f"{c['text']!r} -> {results[(str(c['file']), str(c['game']))]}"
                    for c in clips if c["file"] not in right))


def test_wrong_commands_at_most_the_pinned_count(results: dict[tuple[str, str], str | None]) -> None:
    wrong = [(c["text"], results[(str(c["file"]), str(c["game"]))]) for c in SPEC if c["want"]
             and results[(str(c["file"]), str(c["game"]))] not in (None, "")
             and str(results[(str(c["file"]), str(c["game"]))]).lower() != str(c["want"]).lower()]
    assert len(wrong) <= MAX_WRONG, wrong


def test_chatter_accepted_at_most_the_pinned_count(results: dict[tuple[str, str], str | None]) -> None:
    accepted = [(c["text"], game, results[(str(c["file"]), game)]) for c in SPEC if not c["want"]
                for game in GAMES if results[(str(c["file"]), game)]]
    assert len(accepted) <= MAX_CHATTER_ACCEPTED, accepted
