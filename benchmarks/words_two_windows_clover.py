"""Words a listener hears in a whole Two Windows and a whole Clover game.

Run from the repository root: ``python benchmarks/words_two_windows_clover.py``.
Plays the golden transcripts' scripts (``tests/transcripts/*.in``) through the real
session and counts words: per announcement line (replies to moves, not queries),
per ``status`` answer, and per turn change (Two Windows: the reply to a final
answer that starts the next round; Clover: the commit that scores a board and lays
out the next).  The limits are in docs/two-windows.md and docs/clover.md and are
enforced by tests/transcripts/.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from facilitator.games import find_game
from facilitator.session import Session
from facilitator.table_data import TableData

GAMES = {
    "two-windows": ({"packets": "1,8,13,4,17,10"}, 7,
                    {"status", "help", "read rules", "read catalogue", "read entry", "which entries"}),
    "clover": ({"extra": 1}, 11,
               {"status", "help", "read rules", "read card", "read cards", "read clues", "read board"}),
}


def measure(game: str) -> dict[str, float]:
    flags, seed, queries = GAMES[game]
    referee = find_game(game)
    options = referee.parse_options({"packets": flags["packets"]}) if "packets" in flags else flags
    script = (ROOT / "tests" / "transcripts" / f"{game}.in").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        session, opening = Session.start(game, players=4, seed=seed, options=options,
                                         table=TableData(Path(tmp)))
        lines, statuses, changes = list(opening.public), [], []
        for text in script.splitlines():
            if not text.strip() or text.startswith("#"):
                continue
            reply = session.handle(text)
            intent = reply.command.intent if reply.command else ""
            if intent == "status":
                statuses.append(len(reply.public[0].split()))
            elif intent not in queries:
                lines += reply.public
            changed = (intent == "final" and any(" decodes, " in p for p in reply.public)) or (
                intent == "commit" and any(p.startswith("Resolution ") for p in reply.public))
            if changed:
                changes.append(sum(len(p.split()) for p in reply.public))
        session.log.close()
    counts = [len(p.split()) for p in lines]
    return {"lines": len(counts), "mean": mean(counts), "max": max(counts),
            "status max": max(statuses), "change mean": mean(changes), "change max": max(changes)}


def main() -> None:
    print(f"{'game':<12} {'lines':>6} {'mean':>6} {'max':>5} {'status max':>11} {'change mean':>12} "
          f"{'change max':>11}")
    for game in GAMES:
        m = measure(game)
        print(f"{game:<12} {m['lines']:>6} {m['mean']:>6.1f} {m['max']:>5} {m['status max']:>11} "
              f"{m['change mean']:>12.1f} {m['change max']:>11}")


if __name__ == "__main__":
    main()
