"""A Lantern Links route by voice, end to end: espeak-ng speaks the table's lines into
a WAV file, and ``facilitator play lantern-links --audio-in`` hears them through the
real endpointer and pocketsphinx, confirms the consequential ones, applies, logs and
speaks (to WAV files).

Card 1 (START LEAF): with seed 4 and three players, seat 1 holds B and I, seat 2 C
and J, seat 3 F and H.  I then J leave KEY open, which none of B, C, F, H shows:
every player passes, the table is asked "rewind or finish?", seat 3 rewinds J, seat
1's B (SUN MOON) does not match KEY and counts as a pass, and the table finishes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import read_jsonl, record_table, run_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]

# (what the table says, the espeak-ng voice, seconds of silence after it: room for the answer)
# timed for pocketsphinx alone (--second-engine off), which is never sure: a query is
# addressed with the wake phrase first, and every consequential command (a pass too) is
# asked; with both engines a tile heard sure is echoed and applied after its undo window,
# and the "yes" said 4.5 s later would find nothing to confirm
TABLE = [
    ("hey referee", "en-us", 1.5),
    ("what's in my hand", "en-us", 18.0),   # every hand, then whose turn it is
    ("play india", "en-us", 4.5),           # echoed
    ("yes", "en-us", 9.0),                  # placed: the open word is KEY
    ("key key", "en-gb", 4.5),
    ("yes", "en-gb", 9.0),
    ("pass", "en-us", 4.5),
    ("yes", "en-us", 7.0),
    ("i pass", "en-gb", 4.5),
    ("yes", "en-gb", 7.0),
    ("pass", "en-us", 4.5),
    ("yes", "en-us", 9.0),                  # everyone passed: rewind or finish?
    ("rewind", "en-us", 4.5),
    ("yes", "en-us", 11.0),                 # J goes back to seat 2
    ("play bravo", "en-gb", 4.5),
    ("yes", "en-gb", 12.0),                 # a mismatch: a pass
    ("finish", "en-us", 4.5),
    ("no", "en-us", 3.0),                   # cancelled
    ("finish the route", "en-us", 4.5),
    ("yes", "en-us", 3.0),                  # route 1 scores 1, route 2 is dealt
]



def test_a_lantern_route_by_voice_from_a_recording(tmp_path: Path) -> None:
    recording = record_table(TABLE, 22.0, tmp_path)                   # the opening: the card, every hand, who starts
    log, said = tmp_path / "log.jsonl", tmp_path / "said"
    done = run_cli(["play", "lantern-links", "--audio-in", str(recording), "--speech-out", str(said),
                    "--seed", "4", "--routes", "1,7,12", "--log", str(log), "--second-engine", "off"],
                       timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr

    events = [e for e in read_jsonl(log) if e["type"] not in ("game-started", "route-started")]
    assert [(e["type"], e.get("seat"), e.get("tile")) for e in events] == [
        ("tile-placed", 1, "I"),
        ("tile-placed", 2, "J"),
        ("passed", 3, None),
        ("passed", 1, None),
        ("passed", 2, None),
        ("route-paused", 3, None),
        ("rewound", 3, "J"),
        ("tile-returned", 1, "B"),
        ("passed", 1, None),
        ("route-ended", None, None),
    ]
    assert (events[-1]["reason"], events[-1]["points"]) == ("finished", 1)
    assert "Player 1 holds sun moon and leaf key. The open word is leaf." in done.stdout
    assert "Everyone has passed. Player 3: rewind or finish?" in done.stdout
