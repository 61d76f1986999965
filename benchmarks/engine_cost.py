"""What the second engine costs: peak RSS of the recognizing process, and decode time per utterance.

``python -m benchmarks.engine_cost [--clips N]`` runs ``facilitator recognize`` in a
child process per second-engine mode (``off``, ``always``) on the same
held-out clips of the corpus (``benchmarks/corpus/``, built by ``python -m
benchmarks``), and reports for each the child's peak RSS and the decode time per
utterance (the part of "end of speech -> answer" the recognizer adds; the loop's
endpointing wait and synthesis come on top, see ``benchmarks/RESULTS.md``).

Decode time is measured in process on the same clips: pocketsphinx alone (the
light mode) and both engines (pocketsphinx, then Whisper's n-best and closed-set
scoring), as wall time and as the process's CPU time (all threads).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import corpus


def peak_rss_mb(mode: str, files: list[Path]) -> float:
    """Peak RSS of one ``facilitator recognize --second-engine MODE`` child over ``files``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run([sys.executable, "-m", "facilitator", "recognize", "--game", "compass-code",
                           "--second-engine", mode, *map(str, files)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    if done.returncode != 0:
        raise SystemExit(f"recognize failed: {done.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest child so far: run the modes from the lightest up
    return max(after, before) / 1024


def decode_times(files: list[Path]) -> dict[str, list[float]]:
    """Wall and CPU seconds (all of the process's threads) per utterance, per engine setting."""
    from facilitator.grammar import load_grammar
    from facilitator.speech.audio.devices import read_wav
    from facilitator.speech.engines.grammar_build import recognition_grammar
    from facilitator.speech.engines.hybrid import HybridRecognizer

    grammar = recognition_grammar(load_grammar("compass-code"))
    hybrid = HybridRecognizer("always")
    out: dict[str, list[float]] = {"pocketsphinx alone": [], "both engines": [],
                                   "pocketsphinx alone, CPU": [], "both engines, CPU": []}
    hybrid.decode(read_wav(files[0]), grammar)   # warm up
    for path in files:
        pcm = read_wav(path)
        began, cpu_began = time.perf_counter(), time.process_time()
        hybrid.pocketsphinx.decode(pcm, grammar)
        middle, cpu_middle = time.perf_counter(), time.process_time()
        hybrid.decode(pcm, grammar)
        ended, cpu_ended = time.perf_counter(), time.process_time()
        out["pocketsphinx alone"].append(middle - began)
        out["both engines"].append(ended - middle)
        out["pocketsphinx alone, CPU"].append(cpu_middle - cpu_began)
        out["both engines, CPU"].append(cpu_ended - cpu_middle)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.engine_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=30)
    args = parser.parse_args(argv)
    directory = Path(__file__).resolve().parent / "corpus"
    clips = [c for c in corpus.load(directory) if c.held_out and c.game == "compass-code" and c.want]
    files = [directory / "clean" / c.file for c in clips[: args.clips]]
    rss = {mode: peak_rss_mb(mode, files) for mode in ("off", "always")}
    times = decode_times(files)
    lines = ["| measure | value |", "|---|---|"]
    lines += [f"| peak RSS, `facilitator recognize --second-engine {m}` ({len(files)} clips) | {v:.0f} MB |"
              for m, v in rss.items()]
    for name, values in times.items():
        ordered = sorted(values)
        lines.append(f"| decode time per utterance, {name}: median / 95th percentile | "
                     f"{statistics.median(values) * 1000:.0f} / {ordered[int(0.95 * (len(ordered) - 1))] * 1000:.0f} ms |")
    print("\n".join(lines))
    print(json.dumps({"rss_mb": rss, "decode_s": {k: statistics.median(v) for k, v in times.items()}}),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
