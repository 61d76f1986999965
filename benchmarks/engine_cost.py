"""What the second engine costs: peak RSS of the recognizing process, and decode time per utterance.

``python -m benchmarks.engine_cost [--clips N]`` runs ``facilitator recognize`` in a
child process per second-engine mode (``off``, ``always``) on the same
held-out clips of the corpus (``benchmarks/corpus/``, built by ``python -m
benchmarks``), and reports for each the child's peak RSS and the decode time per
utterance (the part of "end of speech -> answer" the recognizer adds; the loop's
endpointing wait and synthesis come on top, see ``benchmarks/RESULTS.md``).

**The whole process's CPU per command** (``--process``): user + system CPU seconds
of ``facilitator recognize`` over N clips less a 1-clip run (so loading the models is
not counted), divided by N - 1, for each second-engine mode; ``--one-core`` runs the
children on one core (``taskset -c 0``: Whisper then runs one thread), as a Pi's
per-command price is counted.  ``--wait active`` (or ``passive``) sets ``OMP_WAIT_POLICY`` in
the children, for comparison with the product's choice (passive).

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


def recognize_cpu(mode: str, files: list[Path], one_core: bool = False,
                  env: dict[str, str] | None = None) -> tuple[float, float]:
    """(user + system CPU seconds, wall seconds) of one ``facilitator recognize --second-engine MODE``
    child over ``files``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    prefix = ["taskset", "-c", "0"] if one_core else []
    began = time.perf_counter()
    done = subprocess.run([*prefix, sys.executable, "-m", "facilitator", "recognize", "--game", "compass-code",
                           "--second-engine", mode, *map(str, files)], capture_output=True, text=True,
                          cwd=ROOT, env={**{k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"},
                               "PYTHONPATH": str(ROOT), **(env or {})}, check=False)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"recognize failed: {done.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), wall


def process_cpu_per_command(mode: str, files: list[Path], one_core: bool = False,
                            env: dict[str, str] | None = None) -> tuple[float, float]:
    """CPU and wall seconds per command of the whole recognize process: N clips less 1, over N - 1."""
    one_cpu, one_wall = recognize_cpu(mode, files[:1], one_core, env)
    all_cpu, all_wall = recognize_cpu(mode, files, one_core, env)
    return (all_cpu - one_cpu) / (len(files) - 1), (all_wall - one_wall) / (len(files) - 1)


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
    parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parent / "corpus",
                        help="a corpus built by benchmarks.corpus (default: benchmarks/corpus)")
    parser.add_argument("--process", action="store_true",
                        help="only the whole recognize process's CPU seconds per command (N clips less 1)")
    parser.add_argument("--one-core", action="store_true", help="run the recognize children on one core")
    parser.add_argument("--wait", choices=("unset", "passive", "active"), default="unset",
                        help="OpenMP's wait policy in the children (unset: the product's choice, passive)")
    args = parser.parse_args(argv)
    directory = args.corpus
    clips = [c for c in corpus.load(directory) if c.held_out and c.game == "compass-code" and c.want]
    files = [directory / "clean" / c.file for c in clips[: args.clips]]
    if args.process:
        env = {} if args.wait == "unset" else {"OMP_WAIT_POLICY": args.wait.upper()}
        rows = ["| second engine | CPU-s per command (user + system) | wall s per command |", "|---|---|---|"]
        for mode in ("off", "always"):
            cpu, wall = process_cpu_per_command(mode, files, args.one_core, env)
            rows.append(f"| {mode} | {cpu:.3f} | {wall:.3f} |")
        print(f"{len(files)} held-out compass-code clips less 1, {'one core' if args.one_core else 'all cores'}, "
              f"OMP_WAIT_POLICY={args.wait}")
        print("\n".join(rows))
        return 0
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
