"""``python -m benchmarks.array_cost``: what the bearing of an utterance costs, here and on a Pi.

The bearing (``voices/direction.py``: NormMUSIC over 300-3,500 Hz) is taken once an
utterance from the array's raw microphones.  Utterances: role commands and the
enrollment line said by espeak-ng from each seat of a simulated table
(``benchmarks/session/array_room.py``: 0.55-0.65 s of reverberation, seats 0.7-0.9 m
from the array), for each array the product knows.

* **Here**: CPU time of ``Finder.bearing`` an utterance (median and 95th percentile).
* **Instructions**: the same bearings counted under valgrind's callgrind on x86_64, one
  thread: a run that takes ``1 + N`` bearings minus one that takes 1 (the first pays
  the finder's steering vectors and NumPy's first calls), over ``N``.
* **A Pi's seconds**: the x86 count converted as ``pi_estimate`` converts NumPy's code
  (``estimate.Model``, stage ``bearing``).  The bearing is also counted on aarch64 now,
  inside ``python -m benchmarks.pi_estimate count`` (the workload's ``bearing`` stage, on
  utterances this module makes): 29 M instructions on the Cortex-A72 (24-32 M), against
  34 M here on x86 (callgrind); ``python -m benchmarks.pi_estimate report`` gives its seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

ARRAYS = ("respeaker-4mic-hat", "respeaker-usb-v2")
LINES = ("I'm ready to play", "send north east south west", "is west in position three", "we pass",
         "play moon leaf")
VOICE = "espeak:en-us"
#: bearings counted under callgrind, after the first
COUNTED = 8


def utterances(geometry_name: str, seed: int = 5) -> list[np.ndarray]:
    """Every line from every seat of a 4-seat simulated table: (M, samples) float each."""
    from benchmarks.session import room
    from benchmarks.session.array_room import Table
    from benchmarks.session.voices import Voices
    from facilitator.speech.voices.direction import GEOMETRIES

    table = Table(GEOMETRIES[geometry_name], seats=4, seed=seed, background=0)
    voices = Voices()
    try:
        out = []
        for text in LINES:
            dry = room.level(voices.say(VOICE, text, 165), room.SPEECH_DBFS)
            out += [table.seat_says(seat, dry) for seat in range(1, 5)]
        return out
    finally:
        voices.close()


def _child(path: str, geometry_name: str, count: int) -> None:
    """Under callgrind: ``count`` bearings of the saved utterances."""
    from facilitator.speech.voices.direction import GEOMETRIES, finder

    saved = np.load(path)
    find = finder(GEOMETRIES[geometry_name])
    keys = sorted(saved.files)
    for k in range(count):
        find.bearing(saved[keys[k % len(keys)]])


def count_instructions(said: list[np.ndarray], geometry_name: str) -> float:
    """Instructions of one bearing (x86_64, callgrind), from two runs' difference."""
    from benchmarks.pi_estimate.__main__ import ENV, _callgrind

    env = {**ENV, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "said.npz"
        np.savez(path, **{f"{k:03d}": a for k, a in enumerate(said)})
        totals = []
        for count in (1, 1 + COUNTED):
            program = [sys.executable, "-m", "benchmarks.array_cost", "--child", str(path),
                       "--array", geometry_name, "--count", str(count)]
            _, total = _callgrind(f"bearing x{count}", program, False, env)
            totals.append(total)
    return (totals[1] - totals[0]) / COUNTED


def pi_seconds(instructions: float) -> dict[str, tuple[float, float, float]]:
    """A Pi 4's and a Pi 5's seconds for ``instructions`` of scalar code (centre, low, high)."""
    from benchmarks.pi_estimate import estimate
    from benchmarks.pi_estimate.__main__ import RAW

    records = estimate.load(RAW["aarch64"])
    out = {}
    for cpu, board in estimate.BOARD.items():
        if not estimate.calibration(records, cpu):
            continue
        out[board] = estimate.Model(records, cpu).spread({"bearing": instructions})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.array_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--array", choices=ARRAYS, action="append")
    parser.add_argument("--count", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--no-count", action="store_true", help="CPU time here only (no callgrind)")
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child, args.array[0], args.count)
        return 0
    from facilitator.speech.voices.direction import GEOMETRIES, finder

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    lines = [("| array | utterances | CPU here, median / p95 | instructions (x86_64, callgrind) | Pi 4 (estimate) "
              "| Pi 5 (estimate) |"), "|---|---|---|---|---|---|"]
    for name in args.array or ARRAYS:
        said = utterances(name)
        find = finder(GEOMETRIES[name])
        find.bearing(said[0])
        cpu = []
        for audio in said:
            began = time.process_time()
            find.bearing(audio)
            cpu.append((time.process_time() - began) * 1000)
        cells = [name, str(len(said)), f"{statistics.median(cpu):.1f} / {np.percentile(cpu, 95):.1f} ms"]
        if args.no_count:
            cells += ["-", "-", "-"]
        else:
            instructions = count_instructions(said, name)
            pis = pi_seconds(instructions)
            cells.append(f"{instructions / 1e6:.0f} M")
            for board in ("Pi 4", "Pi 5"):
                centre, low, high = pis.get(board, (0.0, 0.0, 0.0))
                cells.append(f"{centre * 1000:.0f} ms ({low * 1000:.0f}-{high * 1000:.0f})" if board in pis else "-")
        lines.append("| " + " | ".join(cells) + " |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
