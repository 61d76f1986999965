"""Make the regression snippets: short table sessions, kept in git.

``python -m benchmarks.session.snippets [FOLDER [NAME...]]`` (default ``tests/audio/sessions``)
plays a few short sessions with held-out voices (see ``SNIPPETS``) exactly as the
session benchmark does, and writes for each the microphone's signal
(``NAME.wav``: players, room, background talk, the assistant's leak) and
``NAME.json``: the game, its seed and seats, the recognizer (``engines``: both,
or light: pocketsphinx alone), the room, the lines typed before it, the commands
the players meant in order, and how many of them the loop understood.  There
are snippets in background talk, one in a quiet reverberant room and one of the
light mode in that room.  ``tests/loop/test_session_snippets.py`` plays the
WAVs back through the real loop and pins those counts, so no change can make
the loop deaf in talk, in reverb or in the light mode again unnoticed.  Regenerate them only on purpose (new voices, a new room), and say
why in the commit.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.session import run, table

#: a reverberant room (the issue's hidden room: T20 0.50 s) for the quiet snippets
REVERBERANT_RT60 = 0.5


@dataclass(frozen=True)
class Snippet:
    game: str
    condition: str
    seconds: float
    seed: int
    seats: tuple[str, ...]
    engines: str = "both"          # both (pocketsphinx with Whisper) or light (pocketsphinx alone)
    rt60: float | None = None      # None: the benchmark's room (RT60 0.35 s)


SNIPPETS = {
    "compass-code-talk-20": Snippet("compass-code", "talk-20", 60.0, 31,
                                    ("flite:slt", "espeak:en-gb-scotland", "flite:rms", "piper:joe")),
    "two-windows-talk-20": Snippet("two-windows", "talk-20", 35.0, 23,
                                   ("espeak:en-gb-scotland", "flite:rms", "piper:joe", "flite:slt")),
    "clover-talk-10": Snippet("clover", "talk-10", 50.0, 34,
                              ("flite:rms", "piper:joe", "flite:slt", "espeak:en-gb-scotland")),
    # the quiet reverberant room: the reverb tail is what pocketsphinx's own check judged
    "lantern-links-quiet-reverberant": Snippet("lantern-links", "quiet", 50.0, 41,
                                               ("piper:joe", "flite:slt", "espeak:en-gb-scotland", "flite:rms"),
                                               rt60=REVERBERANT_RT60),
    # the light mode (a Pi Zero 2 W): pocketsphinx alone, the same table in the same room
    "lantern-links-quiet-light": Snippet("lantern-links", "quiet", 50.0, 41,
                                         ("piper:joe", "flite:slt", "espeak:en-gb-scotland", "flite:rms"),
                                         engines="light", rt60=REVERBERANT_RT60),
    # the light mode asks about a misheard card number in talk, twice; the players say "no",
    # and the second "no" goes unheard: nothing misheard may be applied
    "clover-talk-10-light-no": Snippet("clover", "talk-10", 75.0, 311,
                                       ("espeak:en-us", "espeak:en-gb", "espeak:en-us+f3", "espeak:en-us+m3"),
                                       engines="light"),
}


def make(folder: Path, only: tuple[str, ...] = ()) -> None:
    os.environ.setdefault("FACILITATOR_DATA_DIR", tempfile.mkdtemp(prefix="facilitator-snippets-"))
    from benchmarks.corpus import CHATTER
    from facilitator.speech.audio.devices import write_wav
    from facilitator.speech.audio.endpoint import Endpointer
    from facilitator.speech.engines.recognize import make_recognizer

    folder.mkdir(parents=True, exist_ok=True)
    for name, snip in SNIPPETS.items():
        if only and name not in only:
            continue
        record: list[bytes] = []
        recognizer = make_recognizer(second_engine=run.ENGINES[snip.engines])
        result = table.play(snip.game, snip.condition, run.CONDITIONS[snip.condition], "held-out", snip.seats,
                            snip.seconds / 60, snip.seed, recognizer,
                            lambda loop: Endpointer(complete=loop.complete),
                            chatter=CHATTER, record=record, engines=snip.engines, rt60=snip.rt60)
        write_wav(folder / f"{name}.wav", b"".join(record))
        meant = [c.canonical for c in result.commands]
        meta: dict[str, object] = {
            "game": snip.game, "condition": snip.condition, "seed": snip.seed, "players": len(snip.seats),
            "voices": list(snip.seats), "engines": snip.engines, "rt60": snip.rt60 or 0.35,
            "typed": result.trace["typed"],
            "meant": meant,
            "understood": sum(1 for c in result.commands if c.understood_at),
            "wrong_actions": result.wrong_actions,
            "applied_twice": result.applied_twice,
            # every answer the players gave to a question or an echo: (start, end, yes or no)
            "answers": [[u["start"], u["end"], u["meant"]] for u in result.trace["said"] if u["kind"] == "answer"],
            # every utterance: (start, end, command / answer / chatter, what it meant)
            "said": [[u["start"], u["end"], u["kind"], u.get("meant")] for u in result.trace["said"]],
        }
        (folder / f"{name}.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        print("\n".join(result.transcript))
        print(f"{name}: {len(record) * 0.03:.0f} s, {meta['understood']} of {len(meant)} understood, "
              f"{meta['wrong_actions']} wrong, {meta['applied_twice']} applied twice")


if __name__ == "__main__":
    make(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "audio" / "sessions", tuple(sys.argv[2:]))
