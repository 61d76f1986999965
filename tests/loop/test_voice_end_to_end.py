"""A Compass Code leg by voice, end to end: espeak-ng speaks the table's lines into a
WAV file, and ``facilitator play compass-code --audio-in`` hears it through the real
endpointer and pocketsphinx, confirms, applies, logs and speaks (to WAV files).

Leg 1's hidden route is fixed (``--routes``) at E S N W.  By the rules, a guess
scores an anchor for each direction in its right place and a clockwise step for
each place where the hidden direction is one step clockwise (N->E->S->W->N) of
the guessed one.  N E S W: W in place (1 anchor), N->E and E->S (2 steps).
W N E S: nothing in place, S->W at place 4 (1 step).  E S N W: 4 anchors.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import read_jsonl, record_table, run_cli, silence, speak

from facilitator.speech.audio.devices import write_wav

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]

# (what the table says, the espeak-ng voice, seconds of silence after it: room for the answer)
# pocketsphinx alone (``--second-engine off``, the light mode) never says it is sure
# (Hypothesis.sure is False): a query is addressed with the wake phrase said first, and
# every guess is asked
TABLE = [
    ("hey referee", "en-us", 1.5),
    ("how many candidates", "en-us", 5.0),
    ("send north east south west", "en-gb", 5.5),          # echoed
    ("yes", "en-gb", 9.0),                                 # applied: scored, next captain
    ("is west in position four", "en-us", 5.5),            # echoed
    ("yes", "en-us", 6.0),
    ("send west north east south", "en-us", 5.5),          # echoed ...
    ("no", "en-us", 4.0),                                  # ... and cancelled
    ("send west north east south", "en-us", 5.5),
    ("yes", "en-us", 9.0),
    ("send east south north west", "en-gb", 5.5),
    ("yes", "en-gb", 16.0),                                # leg 1 solved, leg 2 announced
]



def test_a_compass_code_leg_by_voice_from_a_recording(tmp_path: Path) -> None:
    recording = record_table(TABLE, 8.0, tmp_path)     # the opening announcement is said first
    log, said = tmp_path / "log.jsonl", tmp_path / "said"
    done = run_cli(["play", "compass-code", "--second-engine", "off", "--audio-in", str(recording),
                    "--speech-out", str(said), "--seed", "1", "--routes", "ESNW,NESW,WSEN", "--log", str(log)],
                   timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr

    events = [e for e in read_jsonl(log) if e["audience"] == "public"
              and e["type"] not in ("game-started", "captain-named")]
    assert [(e["type"], e.get("route"), e.get("anchors"), e.get("clockwise")) for e in events] == [
        ("guess-scored", "NESW", 1, 2),
        ("bearing-checked", None, None, None),
        ("guess-scored", "WNES", 0, 1),
        ("guess-scored", "ESNW", 4, 0),
        ("leg-ended", "ESNW", None, None),
    ]
    check = events[1]
    assert (check["direction"], check["position"], check["answer"]) == ("W", 4, True)
    assert not any(e["type"] == "command-rejected" for e in read_jsonl(log))

    captions = [line for line in done.stdout.splitlines() if not line.startswith("> ")]
    heard = [line[2:] for line in done.stdout.splitlines() if line.startswith("> ")]
    assert [h.replace("fourth", "four") for h in heard] == [text for text, _, _ in TABLE]
    assert captions == [
        "Leg 1 of 3, new route. Player 1 captains guess 1 of 4.",
        "24 candidates remain.",
        "Send north east south west. Is that right?",
        "North east south west: 1 anchor, 2 clockwise steps.",
        "Guess 2 of 4: Player 2 is captain.",
        "Is west in position four. Is that right?",
        "Yes, west is in position 4.",
        "Send west north east south. Is that right?",
        "Cancelled.",
        "Send west north east south. Is that right?",
        "West north east south: 0 anchors, 1 clockwise step.",
        "Guess 3 of 4: Player 3 is captain.",
        "Send east south north west. Is that right?",
        "Four anchors! Leg 1 is solved.",
        "Leg 2 of 3, new route. Player 4 captains guess 1 of 4.",
    ]
    spoken = sorted(said.glob("*-speech.wav"))
    assert len(spoken) == len(captions)          # every caption was also spoken
    assert all(path.stat().st_size > 1000 for path in spoken)


# the default engines (pocketsphinx with Whisper beside it): when both hear the same
# command the hearing is sure, so a query needs no wake phrase and a guess is echoed
# implicitly, applied when its undo window closes (or at once on "yes"), taken back by
# a "no" inside it.  A guess applied when its window closes is announced then: the
# table waits longer after it than after a "yes".
SURE_TABLE = [
    ("how many candidates", "en-us", 5.0),
    ("send north east south west", "en-gb", 13.0),         # echoed, applied when the window closes
    ("send west north east south", "en-us", 3.5),          # echoed ...
    ("no", "en-us", 4.0),                                  # ... and taken back inside the window
    ("send west north east south", "en-us", 3.5),
    ("yes", "en-us", 9.0),                                 # applied at once
    ("send east south north west", "en-gb", 16.0),         # leg 1 solved, leg 2 announced
]


def test_sure_hearings_are_echoed_implicitly_and_a_no_in_the_window_takes_one_back(tmp_path: Path) -> None:
    recording = record_table(SURE_TABLE, 8.0, tmp_path)
    log, said = tmp_path / "log.jsonl", tmp_path / "said"
    done = run_cli(["play", "compass-code", "--second-engine", "always", "--audio-in", str(recording),
                    "--speech-out", str(said), "--seed", "1", "--routes", "ESNW,NESW,WSEN", "--log", str(log)],
                   timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    events = [e for e in read_jsonl(log) if e["audience"] == "public"
              and e["type"] not in ("game-started", "captain-named")]
    assert [(e["type"], e.get("route"), e.get("anchors"), e.get("clockwise")) for e in events] == [
        ("guess-scored", "NESW", 1, 2),
        ("guess-scored", "WNES", 0, 1),
        ("guess-scored", "ESNW", 4, 0),
        ("leg-ended", "ESNW", None, None),
    ]
    assert not any(e["type"] == "command-rejected" for e in read_jsonl(log))
    heard = [line[2:] for line in done.stdout.splitlines() if line.startswith("> ")]
    assert heard == [text for text, _, _ in SURE_TABLE]
    captions = [line for line in done.stdout.splitlines() if not line.startswith("> ")]
    assert captions == [
        "Leg 1 of 3, new route. Player 1 captains guess 1 of 4.",
        "24 candidates remain.",
        "Send north east south west.",
        "North east south west: 1 anchor, 2 clockwise steps.",
        "Guess 2 of 4: Player 2 is captain.",
        "Send west north east south.",
        "Cancelled.",
        "Send west north east south.",
        "West north east south: 0 anchors, 1 clockwise step.",
        "Guess 3 of 4: Player 3 is captain.",
        "Send east south north west.",
        "Four anchors! Leg 1 is solved.",
        "Leg 2 of 3, new route. Player 4 captains guess 1 of 4.",
    ]
    assert len(sorted(said.glob("*-speech.wav"))) == len(captions)   # every caption was also spoken


def test_with_the_wake_phrase_only_the_called_command_is_heard(tmp_path: Path) -> None:
    table = [
        ("how many candidates", "en-us", 5.0),       # chatter: no wake phrase, ignored
        ("hey referee", "en-gb", 2.5),
        ("how many candidates", "en-us", 5.0),       # called: answered
        ("status", "en-us", 8.0),                    # not called again: ignored
    ]
    recording = record_table(table, 8.0, tmp_path)
    log = tmp_path / "log.jsonl"
    done = run_cli(["play", "compass-code", "--wake-phrase", "--audio-in", str(recording),
                    "--speech-out", str(tmp_path / "said"), "--seed", "1", "--log", str(log)], timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["> hey referee", "> how many candidates", "24 candidates remain."]
    assert [e["type"] for e in read_jsonl(log)] == ["game-started", "leg-started", "captain-named"]


def test_a_recording_without_a_speaker_is_still_heard_and_answered_in_captions(tmp_path: Path) -> None:
    recording = record_table([("hey referee", "en-us", 1.5), ("how many candidates", "en-us", 3.0)], 8.0,
                             tmp_path)
    done = run_cli(["play", "compass-code", "--audio-in", str(recording), "--output-device",
                    "no-such-speaker", "--seed", "1"], timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    complaints = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(complaints) == 2 and "printed only" in complaints[0]
    assert complaints[1].startswith("facilitator: the game is kept in ")     # no --log: where it went
    assert done.stdout.splitlines()[1:] == ["> hey referee", "> how many candidates", "24 candidates remain."]


def test_a_voice_game_resumes_by_voice(tmp_path: Path) -> None:
    log, said = tmp_path / "log.jsonl", tmp_path / "said"
    first, second = tmp_path / "first.wav", tmp_path / "second.wav"
    write_wav(first, silence(8.0) + speak("send north east south west", "en-gb", tmp_path) + silence(5.5)
              + speak("yes", "en-gb", tmp_path) + silence(8.0))
    write_wav(second, silence(12.0) + speak("hey referee", "en-us", tmp_path)
              + silence(1.5) + speak("how many candidates", "en-us", tmp_path) + silence(3.0))
    base = ["play", "compass-code", "--speech-out", str(said)]
    done = run_cli([*base, "--audio-in", str(first), "--seed", "1", "--routes", "ESNW,NESW,WSEN",
                    "--log", str(log)], timeout=300)
    assert done.returncode == 0, done.stderr
    done = run_cli([*base, "--audio-in", str(second), "--resume", str(log)], timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Resuming the game."
    # N E S W scored 1 anchor, 2 clockwise steps: so do N S W E, E S N W, E W S N and S E W N
    assert lines[-2:] == ["> how many candidates", "4 candidates remain."]
    assert [e["seq"] for e in read_jsonl(log)] == list(range(1, len(read_jsonl(log)) + 1))


def test_wake_phrase_and_command_in_one_breath_and_chatter_gets_silence(tmp_path: Path) -> None:
    table = [
        ("pass the crisps please", "en-gb", 3.0),                       # chatter
        ("ha ha ha that was close", "en-us", 3.0),                      # chatter
        ("hey referee send north east south west", "en-gb", 3.5),       # one breath, gated
        ("yes", "en-gb", 9.0),                                          # inside the undo window
    ]
    recording = record_table(table, 8.0, tmp_path)
    log = tmp_path / "log.jsonl"
    done = run_cli(["play", "compass-code", "--wake-phrase", "--audio-in", str(recording),
                    "--speech-out", str(tmp_path / "said"), "--seed", "1", "--routes", "ESNW,NESW,WSEN",
                    "--log", str(log)], timeout=300)
    assert done.returncode == 0, done.stderr
    captions = [line for line in done.stdout.splitlines()[1:] if not line.startswith("> ")]
    assert "> hey referee send north east south west" in done.stdout.splitlines()
    # both engines agree on the one breath: a sure hearing, so the command is addressed
    # and echoed implicitly (invariant 7); the "yes" inside its undo window applies it at once
    assert "> yes" in done.stdout.splitlines()
    assert captions == ["Send north east south west.",
                        "North east south west: 1 anchor, 2 clockwise steps.", "Guess 2 of 4: Player 2 is captain."]
    assert [e["type"] for e in read_jsonl(log)][3:] == ["guess-scored", "captain-named"]
