"""Make the regression snippets: short table sessions with background talk, kept in git.

``python -m benchmarks.session.snippets [FOLDER [NAME...]]`` (default ``tests/audio/sessions``)
plays a few short sessions with held-out voices (see ``SNIPPETS``) exactly as the
session benchmark does, and writes for each the microphone's signal
(``NAME.wav``: players, room, background talk, the assistant's leak) and
``NAME.json``: the game, its seed and seats, the lines typed before it, the
commands the players meant in order, and how many of them the loop understood.
``tests/loop/test_session_snippets.py`` plays the WAVs back through the real loop
and pins those counts, so no change can make the loop deaf in talk again
unnoticed.  Regenerate them only on purpose (new voices, a new room), and say
why in the commit.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.session import players, run, table  # noqa: E402

#: name -> (game, condition, seconds, seed, seats)
SNIPPETS = {
    "compass-code-talk-20": ("compass-code", "talk-20", 60.0, 31, ("flite:slt", "espeak:en-gb-scotland", "flite:rms", "piper:joe")),
    "two-windows-talk-20": ("two-windows", "talk-20", 35.0, 23, ("espeak:en-gb-scotland", "flite:rms", "piper:joe", "flite:slt")),
    "clover-talk-10": ("clover", "talk-10", 50.0, 34, ("flite:rms", "piper:joe", "flite:slt", "espeak:en-gb-scotland")),
}


def make(folder: Path, only: tuple[str, ...] = ()) -> None:
    os.environ.setdefault("FACILITATOR_DATA_DIR", tempfile.mkdtemp(prefix="facilitator-snippets-"))
    from benchmarks.corpus import CHATTER
    from facilitator.session import Session
    from facilitator.speech.audio import write_wav
    from facilitator.speech.endpoint import Endpointer
    from facilitator.speech.recognize import make_recognizer

    folder.mkdir(parents=True, exist_ok=True)
    for name, (game, condition, seconds, seed, seats) in SNIPPETS.items():
        if only and name not in only:
            continue
        record: list[bytes] = []
        result = table.play(game, condition, run.CONDITIONS[condition], "held-out", seats, seconds / 60, seed,
                            make_recognizer(second_engine="always"), lambda loop: Endpointer(complete=loop.complete),
                            chatter=CHATTER, record=record)
        write_wav(folder / f"{name}.wav", b"".join(record))
        session, _ = Session.start(game, players=len(seats), seed=seed)
        meta = {
            "game": game, "condition": condition, "seed": seed, "players": len(seats),
            "voices": list(seats),
            "typed": players.typed_opening(game, session),
            "meant": [c.canonical for c in result.commands],
            "understood": sum(1 for c in result.commands if c.understood_at),
            "wrong_actions": result.wrong_actions,
        }
        session.log.close()
        (folder / f"{name}.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        print("\n".join(result.transcript))
        print(f"{name}: {len(record) * 0.03:.0f} s, {meta['understood']} of {len(meta['meant'])} understood, "
              f"{meta['wrong_actions']} wrong")


if __name__ == "__main__":
    make(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "audio" / "sessions", tuple(sys.argv[2:]))
