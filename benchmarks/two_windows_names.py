"""How Two Windows' name matcher treats one-slip misspellings of every catalogue name.

Run from the repository root: ``python benchmarks/two_windows_names.py``.  Every
single deletion, transposition, substitution and insertion (letters a-z) of each
name is matched against its own catalogue; the table counts how often the slip is
accepted as the right name, asked back with the right name among the candidates,
taken for a wrong name, or not recognised at all.
"""

from __future__ import annotations

import string
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from facilitator.games.two_windows import load_deck, load_practice, match_name


def slips(name: str) -> set[str]:
    word = name.lower()
    out = set()
    for i in range(len(word)):
        out.add(word[:i] + word[i + 1:])
        if i + 1 < len(word):
            out.add(word[:i] + word[i + 1] + word[i] + word[i + 2:])
        for c in string.ascii_lowercase:
            out.add(word[:i] + c + word[i + 1:])
    for i in range(len(word) + 1):
        for c in string.ascii_lowercase:
            out.add(word[:i] + c + word[i:])
    out.discard(word)
    return {s for s in out if s}


def main() -> None:
    print(f"{'catalogue':<10} {'name':<8} {'slips':>6} {'right':>7} {'asked':>7} {'wrong':>7} {'unknown':>8}")
    total: Counter[str] = Counter()
    started = time.perf_counter()
    for label, deck in (("scored", load_deck()), ("practice", load_practice())):
        for name in deck.names:
            counts: Counter[str] = Counter()
            for slip in slips(name):
                found = match_name(slip, deck.names)
                if found.name == name:
                    counts["right"] += 1
                elif found.name is not None:
                    counts["wrong"] += 1
                elif name in found.candidates:
                    counts["asked"] += 1
                else:
                    counts["unknown"] += 1
            n = sum(counts.values())
            total.update(counts)
            total["slips"] += n
            print(f"{label:<10} {name:<8} {n:>6} " + " ".join(
                f"{100 * counts[k] / n:>6.1f}%" for k in ("right", "asked", "wrong", "unknown")))
    elapsed = time.perf_counter() - started
    n = total["slips"]
    print(f"{'all':<10} {'':<8} {n:>6} " + " ".join(
        f"{100 * total[k] / n:>6.1f}%" for k in ("right", "asked", "wrong", "unknown")))
    print(f"{1e6 * elapsed / n:.0f} µs a match")


if __name__ == "__main__":
    main()
