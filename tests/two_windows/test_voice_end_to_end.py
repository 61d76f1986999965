"""The rules' worked example by voice, end to end: espeak-ng speaks the table's lines
into a WAV file and ``facilitator play two-windows --practice --audio-in`` hears them
through the real endpointer and pocketsphinx.  The informants read their written
slips aloud (not confirmed); the decoder's final answer is echoed and applied on
"yes".  FORM ROUND with SURFACE STRIPED identifies Brook at the first stage: 2 points.
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

#: the opening (teams and the practice round) is spoken first; the table waits for it
OPENING = 24.0
# (what the table says, the espeak-ng voice, seconds of silence after it: room for the answer)
TABLE = [
    ("report a form round", "en-us", 5.0),
    ("report b surface striped", "en-gb", 14.0),
    ("final brook", "en-us", 5.0),
    ("yes", "en-us", 20.0),
]



def test_the_worked_example_by_voice_from_a_recording(tmp_path: Path) -> None:
    recording = record_table(TABLE, OPENING, tmp_path)
    log, private, said = tmp_path / "log.jsonl", tmp_path / "private.jsonl", tmp_path / "said"
    done = run_cli(["play", "two-windows", "--practice", "--audio-in", str(recording), "--speech-out",
                    str(said), "--private", str(private), "--names", "Ann,Bea,Cal", "--log", str(log)],
                   timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr

    heard = [line[2:] for line in done.stdout.splitlines() if line.startswith("> ")]
    assert heard == [text for text, _, _ in TABLE]
    events = read_jsonl(log)
    assert [(e["stage"], e["name"], e["correct"], e["points"]) for e in events
            if e["type"] == "answer-given"] == [(1, "Brook", True, 2)]
    revealed = next(e for e in events if e["type"] == "transmission-revealed")
    assert (revealed["a"], revealed["b"]) == ("FORM ROUND", "SURFACE STRIPED")
    assert not any(e["type"] == "command-rejected" for e in events)

    captions = [line for line in done.stdout.splitlines() if not line.startswith("> ")]
    assert captions[-6:] == [
        "Report B's slip is locked.",
        "Report A sends form round; report B sends surface striped. Oak, final or more?",
        "Final brook. Is that right?",
        "Right, Brook: 2 points, 2 of 2.",
        ("Report A held form round and size small; report B held surface "
        "striped and edge notched."),
        "Practice over: 2 of 2 points.",
    ]
    for line in read_jsonl(private):                     # reports went to their screens, not to speech
        assert line["text"] not in captions
    assert len(sorted(said.glob("*-speech.wav"))) == len(captions)   # every caption was spoken
