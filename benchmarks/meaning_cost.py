"""``python -m benchmarks.meaning_cost``: what the meaning stage costs on this machine.

For each game: the CPU seconds to train its model with no cache (the first start after a
grammar or tuning change; the examples' sentence vectors included) and to read it back
from the cache (every later start), then the CPU milliseconds to place a line the grammar
does not parse (the tuning lines of that game that the grammar misses; median and 90th
percentile, one thread as the loop runs it), and the process's resident memory before the
stage, after reading it and after placing.  The product runs the stage only on lines the
grammar does not parse.  Figures: benchmarks/RESULTS.md, "The meaning stage's cost".
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

GAMES = ("compass-code", "lantern-links", "two-windows", "clover")


def _rss_mb() -> float:
    """The resident set now, from /proc (peak from getrusage when /proc is absent)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.meaning_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(GAMES))
    args = parser.parse_args(argv)
    from benchmarks.phrasing import corpus

    start_rss = _rss_mb()
    from facilitator.command import NotRecognized
    from facilitator.meaning import MeaningStage, stage_for

    for game in args.games.split(","):
        base = stage_for(game)
        with tempfile.TemporaryDirectory() as cache:
            fresh = MeaningStage(game, base.grammar, base.lists, cache=Path(cache), encode=base.encode,
                                 encoder_id=base.encoder_id)
            began = time.process_time()
            fresh.model()
            trained = time.process_time() - began
            again = MeaningStage(game, base.grammar, base.lists, cache=Path(cache), encode=base.encode,
                                 encoder_id=base.encoder_id)
            began = time.process_time()
            again.model()
            read = time.process_time() - began
        loaded_rss = _rss_mb()
        lines = [line for half in ("tuning", "wide_tuning", "third_tuning") for line in corpus.read(half)
                 if line.game == game and line.state != "question"
                 and isinstance(base.grammar.parse(line.text, intents=corpus.intents(line),
                                                   lists=corpus.lists(line.game)), NotRecognized)]
        costs = []
        for line in lines:
            began = time.process_time()
            again.place(line.text, intents=corpus.intents(line), lists=corpus.lists(line.game))
            costs.append(1000 * (time.process_time() - began))
        costs.sort()
        print(f"{game:14} train {trained:5.1f} CPU-s (no cache), read back {1000 * read:6.1f} ms; "
              f"a line: median {statistics.median(costs):5.1f} ms, p90 {costs[int(0.9 * len(costs))]:5.1f} ms "
              f"(N={len(costs)}, encoder {'on' if base.encoded else 'off'}); resident {start_rss:.0f} MB "
              f"before, {loaded_rss:.0f} MB with the stage, {_rss_mb():.0f} MB after placing", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
