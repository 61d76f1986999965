"""From counted instructions to seconds on a Pi: the calibration, its sources, and the ranges.

**Counts** (``__main__``): guest instructions of each stage on aarch64 (qemu-user on
QEMU's Cortex-A72, a Pi 4's core, and Cortex-A76, a Pi 5's), one thread, per utterance.

**Calibration.**  Others timed faster-whisper's tiny.en (int8) transcribing sentences on
Pis (``PUBLISHED``).  The same kind of run is counted here (``WhisperModel(...,
compute_type="int8", cpu_threads=1).transcribe(file)`` with its defaults: a 30 s window,
beam 5) on sentences of the same lengths, so a board's rate on this code is
``R = counted instructions / published seconds`` (instructions per second of the
board running it as published, on several threads).

**Threads.**  The published runs used four threads (faster-whisper's default on a
four-core Pi, and issue 38's stated setting); the counts are of one.  A four-thread
run is ``S4`` times faster than one thread, with ``S4 = 1 / (f / S_enc + (1 - f) / S_dec)``:
``f`` the encoder's share of the calibration's instructions (counted: one 30 s encoder
pass beside each transcription), ``S_enc`` and ``S_dec`` the four-thread speedups of the
encoder (large int8 GEMMs) and of the decoder's steps (beam 5, one token at a time).
These two are not measured here (no Pi, and two shared cores); ``SPEEDUP`` gives the
ranges assumed.  One core's rate is then ``R1 = R / S4``.  The product's Whisper also
runs on four threads (``WhisperRecognizer``: the board's cores, up to four): a Whisper
stage takes ``I / (R1 * S)`` with ``S`` its own speedup (the encoder's for ``encode``, the
decoder's for the n-best, the scoring and the swaps, none for ``decide``, which is Python).

**Two kinds of Whisper code** (issue 42).  The calibration is 68-79 % encoder (large int8
GEMMs), the product's Whisper work mostly decoder (small steps), and the two retire
instructions at different rates (x86: 6.1 G a second in the encoder, 2.4-2.9 G in the
decoder's stages).  So the published seconds are split: ``T = I (f / (K S_enc) + (1 - f) /
S_dec) / R_dec`` with ``K`` the encoder's rate over the decoder's (``KIND_RATIO``), which
gives one core's decoder rate ``R_dec`` and encoder rate ``K R_dec``; ``encode`` is
converted at the encoder's, the n-best, the scoring and the swaps at the decoder's.

**Every early check.**  ``CHECKS`` early-finish checks a command (2.2 on average
measured, 5 for a route said word by word).  The check that ends an utterance is counted
as its own stage (``end-check``); while listening for commands its grammar is another
search than the decode's (docs/speech.md), so the fast path is that check and the
utterance's decode after it (``pocketsphinx``).  The checks before the last come during the
player's pauses (``early-check``, counted once a clip and multiplied by ``CHECKS`` less
one): CPU the board pays, and latency only when a check is still running as the player
stops.  Not counted: chatter, which pays the same pipeline as a command.

**Each kind of code at its own rate** (``KINDS``, ``Model.rate``): the encoder's and
the decoder's from the calibration (above); NumPy's (the one-pass scorer and the slot
swaps, the bearing, the speaker embedder's features) as the decoder's times the ratio
of the two kinds' instructions per CPU-second in the x86 cross-check (``numpy_ratio``);
scalar C (pocketsphinx, espeak-ng) as the calibration mix's one-core rate times
``SCALAR_IPC``, the range assumed for the ratio of their instructions per cycle to the
Whisper mix's on the Pi's core; the interpreter (the decision) at the mix's rate.  A
stage of the workload's ``STAGES`` names its own kind in the record (``stage_kinds``).

**Ranges.**  Every estimate is evaluated at each corner of (the calibration figure,
``S_enc``, ``S_dec``, the scalar ratio) and reported as centre and [lowest, highest].
"""

from __future__ import annotations

import itertools
import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

#: published timings of faster-whisper tiny.en on Pis: (board, counted input, seconds, note)
PUBLISHED: dict[str, list[tuple[str, str, float, str]]] = {
    "cortex-a72": [
        ("Pi 4 (4 GB)", "cv", 3.4, ("a Common Voice sentence, int8, mean (BotYue/Pi-Whisper-RSS25-Workshop, "
                                    "`Latency Analysis/latency_averages_Common.csv`)")),
        ("Pi 400 (1.8 GHz)", "file-11s", 3.9, "an 11 s file, 4 threads (SYSTRAN/faster-whisper issue 38)"),
        ("Pi 400 (1.8 GHz)", "file-3.5s", 3.2, "a 3.5 s file, 4 threads (the same)"),
    ],
    "cortex-a76": [
        ("Pi 5 (4 GB)", "cv", 1.3, "a Common Voice sentence, int8, mean (the workshop's csv)"),
        ("Pi 5 (8 GB)", "cv", 1.6, "the same"),
        ("Pi 5 (16 GB)", "cv", 1.7, "the same"),
    ],
}
BOARD = {"cortex-a72": "Pi 4", "cortex-a76": "Pi 5"}
#: the calibration's centre: the figure the estimate is read at (the others give its range)
CENTRE = {"cortex-a72": ("Pi 4 (4 GB)",), "cortex-a76": ("Pi 5 (4 GB)", "Pi 5 (8 GB)", "Pi 5 (16 GB)")}
#: four-thread speedups assumed (low, centre, high): the encoder's large GEMMs, the decoder's steps
SPEEDUP = {"enc": (2.5, 3.0, 3.5), "dec": (1.0, 1.5, 2.0)}
#: instructions per cycle of scalar C (pocketsphinx, espeak-ng) over the Whisper mix's (low, centre, high)
SCALAR_IPC = (0.5, 0.75, 1.1)
#: one core's rate on the encoder's code over the decoder's (low, centre, high): the x86 cross-check
#: retires 6.1 G instructions a second in the encoder and 2.4-2.9 G in the decoder's stages (2.1-2.5),
#: widened for the ARM kernels, which were not timed apart
KIND_RATIO = (1.8, 2.2, 2.6)
#: NumPy's products on one BLAS thread (the one-pass scorer, the bearing) against the decoder's
#: (CTranslate2's int8 steps): one core's rate on NumPy's code is the decoder's times this ratio.
#: Its centre is read from the x86 cross-check when it has both kinds (``numpy_ratio``: instructions
#: per CPU-second of the scoring and the swaps over the n-best's), its range that centre times
#: ``NUMPY_SPREAD`` (OpenBLAS's float32 kernels on NEON against CTranslate2's int8 ones were not
#: timed apart); ``NUMPY_RATIO`` stands in when no x86 record has them
NUMPY_RATIO = 1.0
NUMPY_SPREAD = (0.7, 1.0, 1.4)
#: early-finish checks a command (low, centre, high): 2.2 on average in the session benchmark, 5 for
#: a route said word by word.  The check that ends an utterance is its own stage (``end-check``),
#: followed by the utterance's decode (another search while listening for commands: docs/speech.md);
#: the checks before it (``early-check``, counted once a clip) come during the player's pauses
CHECKS = (1.0, 2.2, 5.0)

#: the kinds of code, each converted at its own rate (``Model.rate``)
KINDS = {
    "encoder": "CTranslate2's encoder: large int8 products (the calibration's encoder rate)",
    "decoder": "int8 steps a token at a time (CTranslate2's decoder)",
    "numpy": ("NumPy's products on one thread, and the embedder's (NumPy features, onnxruntime's int8 LSTM "
              "on one thread): the decoder's rate times the NumPy ratio"),
    "scalar": "single-threaded C (pocketsphinx, espeak-ng): the calibration mix's rate times the scalar IPC",
    "python": "the interpreter (the calibration mix's one-core rate)",
}
#: the stages the workload always counts: (kind, threads the product gives it on a Pi, row words)
STAGES: dict[str, tuple[str, int, str]] = {
    "early-check": ("scalar", 1, "early-finish checks before the last (pocketsphinx, 1.2 a command, 0-4)"),
    "end-check": ("scalar", 1, "the early-finish check that ends the utterance (pocketsphinx)"),
    "pocketsphinx": ("scalar", 1, "pocketsphinx's decode of the utterance (after the end check)"),
    "echo": ("scalar", 1, "espeak-ng: the echo, voice loaded (pyttsx3 worker)"),
    "echo-program": ("scalar", 1, "espeak-ng: the echo as a program run (fallback)"),
    "encode": ("encoder", 4, "Whisper: encode (the clip and 4 s)"),
    "n-best": ("decoder", 4, "Whisper: n-best (beam 5)"),
    "scoring": ("numpy", 1, "Whisper: closed-set scoring (one NumPy pass, int8 weights)"),
    "swaps": ("numpy", 1, "Whisper: slot swaps (NumPy)"),
    "decide": ("python", 1, "the decision (Python)"),
    # counted by benchmarks/array_cost.py on x86 too
    "bearing": ("numpy", 1, "a microphone array's bearing (NormMUSIC, ReSpeaker 4-mic)"),
}
#: when a stage of the workload's ``STAGES`` runs (its record's ``when``): what the totals add it to
WHEN = {
    "voices": "voices enrolled: before the echo (who said it)",
    "array": "at a microphone array: before the echo (where it was said)",
    "unparsed": "a line the grammar does not parse (the meaning stage)",
}
WHISPER = ("encode", "n-best", "scoring", "swaps", "decide")


def load(path: Path) -> list[dict[str, Any]]:
    """The records of a counts file (comment lines skipped); the newest of each (cpu, run) wins."""
    if not path.exists():
        return []
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            record = json.loads(line)
            newest[(record["cpu"], record["run"])] = record
    return list(newest.values())


def _find(records: list[dict[str, Any]], run: str, cpu: str | None = None) -> dict[str, Any] | None:
    return next((r for r in records if r["run"] == run and (cpu is None or r["cpu"] == cpu)), None)


def per_clip(record: dict[str, Any]) -> dict[str, list[int]]:
    """Instructions of each stage per utterance (the warm-up excluded), stage -> one value a clip."""
    sums: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    clips = set()
    for label, clip, count, *_ in record["marks"]:
        if clip >= 0 and label not in ("transcribe", "encode-30s"):
            sums[label][clip] += count
            clips.add(clip)
    return {label: [values.get(c, 0) for c in sorted(clips)] for label, values in sums.items()}


def cpu_seconds(record: dict[str, Any]) -> dict[str, list[float]]:
    """x86: CPU seconds of each stage per utterance, the fastest of the native repeats."""
    repeats = record.get("cpu_seconds") or []
    if not repeats:
        return {}
    best = [min(values) for values in zip(*repeats)]
    sums: dict[str, dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for (label, clip, *_), seconds in zip(record["marks"], best):
        if clip >= 0:
            sums[label][clip] += seconds
    return {label: [v for _, v in sorted(values.items())] for label, values in sums.items()}


def echo(records: list[dict[str, Any]], cpu: str) -> dict[str, float] | None:
    """espeak-ng: one echo sentence once the voice is loaded (the marginal sentence), and a whole program run."""
    one, many, arg = (_find(records, run, cpu) for run in ("echo-file-1", "echo-file-10", "echo-argument"))
    if not (one and many and arg):
        return None
    return {"echo": (many["exit"] - one["exit"]) / 9, "echo-program": float(arg["exit"])}


def calibration(records: list[dict[str, Any]], cpu: str) -> dict[str, dict[str, float]]:
    """Instructions of each calibration input: the transcription, and one 30 s encoder pass ("cv": their mean)."""
    record = _find(records, "calibration", cpu)
    if record is None:
        return {}
    names = [Path(f).stem for f in record["inputs"]]
    out: dict[str, dict[str, float]] = {n: {} for n in names}
    for label, clip, count, *_ in record["marks"]:
        if label in ("transcribe", "encode-30s"):
            out[names[clip]][label] = float(count)
    cv = [v for n, v in out.items() if n.startswith("cv")]
    if cv:
        out["cv"] = {k: statistics.mean(v[k] for v in cv) for k in ("transcribe", "encode-30s")}
    return out


def rates(records: list[dict[str, Any]], cpu: str) -> list[tuple[str, str, float, float, float, str]]:
    """Each published figure with its counted instructions and the rate (instructions per second) it gives."""
    counted = calibration(records, cpu)
    out = []
    for board, what, seconds, note in PUBLISHED[cpu]:
        if what in counted:
            instructions = counted[what]["transcribe"]
            out.append((board, what, seconds, instructions, instructions / seconds, note))
    return out


def _speedup4(f_enc: float, s_enc: float, s_dec: float) -> float:
    return 1.0 / (f_enc / s_enc + (1.0 - f_enc) / s_dec)


def stage_kinds(record: dict[str, Any] | None) -> dict[str, tuple[str, int, str]]:
    """Each stage's (kind, threads, row words): the built-in stages and those the record names."""
    out = dict(STAGES)
    for label, spec in ((record or {}).get("result", {}).get("stages") or {}).items():
        out[label] = (str(spec["kind"]), int(spec.get("threads", 1)), str(spec["name"]))
    return out


def numpy_ratio(x86: dict[str, Any] | None) -> float | None:
    """The x86 cross-check's instructions per CPU-second of NumPy's stages (scoring and swaps)
    over the decoder's (the n-best), both on one thread; None without both."""
    if x86 is None:
        return None
    counts, seconds = per_clip(x86), cpu_seconds(x86)
    try:
        numpy = sum(counts["scoring"] + counts["swaps"]) / sum(seconds["scoring"] + seconds["swaps"])
        decoder = sum(counts["n-best"]) / sum(seconds["n-best"])
    except (KeyError, ZeroDivisionError):
        return None
    return numpy / decoder


class Model:
    """One board's estimate: seconds of ``instructions`` of a kind of code, at every corner of the ranges."""

    def __init__(self, records: list[dict[str, Any]], cpu: str, numpy: float = NUMPY_RATIO,
                 kinds: dict[str, tuple[str, int, str]] | None = None) -> None:
        self.cpu = cpu
        self.rates = rates(records, cpu)
        self.numpy = numpy
        self.kinds = kinds or STAGES
        counted = calibration(records, cpu)
        self.f_enc = statistics.mean(min(1.0, v["encode-30s"] / v["transcribe"])
                                     for n, v in counted.items() if n != "cv")
        centre = [r[4] for r in self.rates if r[0] in CENTRE[cpu]]
        self.rate_centre = statistics.mean(centre)
        self.rate_range = (min(r[4] for r in self.rates), max(r[4] for r in self.rates))

    def corners(self) -> list[dict[str, float]]:
        keys = (("rate", (self.rate_range[0], self.rate_centre, self.rate_range[1])),
                ("s_enc", SPEEDUP["enc"]), ("s_dec", SPEEDUP["dec"]), ("ipc", SCALAR_IPC),
                ("kind", KIND_RATIO), ("numpy", tuple(self.numpy * k for k in NUMPY_SPREAD)), ("checks", CHECKS))
        centre = {"rate": self.rate_centre, "s_enc": SPEEDUP["enc"][1], "s_dec": SPEEDUP["dec"][1],
                  "ipc": SCALAR_IPC[1], "kind": KIND_RATIO[1], "numpy": self.numpy, "checks": CHECKS[1]}
        out = [centre]
        for values in itertools.product(*(v for _, v in keys)):
            out.append(dict(zip((k for k, _ in keys), values)))
        return out

    def rate_dec(self, c: dict[str, float]) -> float:
        """One core's instructions per second on the decoder's code.  The calibration's published
        seconds are its encoder's and its decoder's instructions, each at its own kind's rate
        (the encoder's ``kind`` times the decoder's) and four-thread speedup:
        ``T = I (f / (kind S_enc) + (1 - f) / S_dec) / rate_dec``."""
        f, kind = self.f_enc, c.get("kind", 1.0)
        return c["rate"] * (f / (kind * c["s_enc"]) + (1.0 - f) / c["s_dec"])

    def rate_enc(self, c: dict[str, float]) -> float:
        """One core's instructions per second on the encoder's code."""
        return c.get("kind", 1.0) * self.rate_dec(c)

    def rate1(self, c: dict[str, float]) -> float:
        """One core's instructions per second on the calibration's mix (its instructions over its
        one-thread seconds): the rate scalar code is compared with."""
        f = self.f_enc
        return 1.0 / (f / self.rate_enc(c) + (1.0 - f) / self.rate_dec(c))

    def rate(self, kind: str, c: dict[str, float], threads: int = 1) -> float:
        """Instructions per second of ``kind``'s code on ``threads`` cores (four: the Whisper
        kinds' four-thread speedups)."""
        if kind == "encoder":
            return self.rate_enc(c) * (c["s_enc"] if threads > 1 else 1.0)
        if kind == "decoder":
            return self.rate_dec(c) * (c["s_dec"] if threads > 1 else 1.0)
        if kind == "numpy":
            return self.rate_dec(c) * c.get("numpy", self.numpy)
        if kind == "scalar":
            return self.rate1(c) * c["ipc"]
        if kind == "python":
            return self.rate1(c)
        raise ValueError(f"unknown kind of code {kind!r} (one of {', '.join(KINDS)})")

    def seconds(self, stage: str, instructions: float, c: dict[str, float], threads: int | None = None) -> float:
        """``instructions`` of ``stage`` in seconds at corner ``c``, on the threads the product gives
        the stage (``threads=1``: every stage on one core)."""
        kind, own, _ = self.kinds.get(stage, ("scalar", 1, stage))
        if stage == "early-check":
            instructions *= c.get("checks", 2.0) - 1.0
        return instructions / self.rate(kind, c, own if threads is None else min(own, threads))

    def spread(self, stages: dict[str, float], threads: int | None = None) -> tuple[float, float, float]:
        """Centre, lowest and highest of the summed seconds of ``stages`` (stage -> instructions)."""
        values = [sum(self.seconds(s, n, c, threads) for s, n in stages.items()) for c in self.corners()]
        return values[0], min(values), max(values)


def _g(n: float) -> str:
    return f"{n / 1e9:.2f} G" if n >= 1e9 else f"{n / 1e6:.0f} M"


def _s(t: tuple[float, float, float]) -> str:
    centre, low, high = t
    if high < 1:
        return f"{centre * 1000:.0f} ms ({low * 1000:.0f}-{high * 1000:.0f})"
    return f"{centre:.2f} s ({low:.2f}-{high:.2f})"


def report(aarch64: list[dict[str, Any]], x86: list[dict[str, Any]]) -> str:
    """The tables of benchmarks/RESULTS.md's section, as Markdown."""
    lines: list[str] = []
    cpus = [c for c in ("cortex-a72", "cortex-a76") if _find(aarch64, "recognition", c) and _find(aarch64, "calibration", c)]
    if not cpus:
        return "no aarch64 counts yet: python -m benchmarks.pi_estimate count --root ROOT"
    if "cortex-a76" not in cpus and "cortex-a72" in cpus:
        # no Cortex-A76 counts: the Pi 5's estimate reads the A72's counts (the same program; a
        # Pi 5's dot-product kernels, where CTranslate2 takes them, would retire fewer
        # instructions for the calibration and the workload alike, so their ratio moves less)
        aarch64 = aarch64 + [{**r, "cpu": "cortex-a76", "copied": True} for r in aarch64 if r["cpu"] == "cortex-a72"]
        cpus.append("cortex-a76")
        lines += [("No Cortex-A76 counts were taken: the Pi 5's column uses the Cortex-A72's counts against the "
                   "Pi 5's published seconds."), ""]
    rec = _find(aarch64, "recognition", cpus[0])
    assert rec is not None
    kinds = stage_kinds(rec)
    x86_rec = _find(x86, "recognition")
    measured = numpy_ratio(x86_rec) if x86_rec and not stale(x86_rec) else None
    ratio = measured if measured is not None else NUMPY_RATIO
    per = {c: per_clip(_find(aarch64, "recognition", c)) for c in cpus}   # type: ignore[arg-type]
    echoes = {c: echo(aarch64, c) or {} for c in cpus}
    models = {c: Model(aarch64, c, ratio, kinds) for c in cpus}
    x86_per = per_clip(x86_rec) if x86_rec else {}
    x86_cpu = cpu_seconds(x86_rec) if x86_rec else {}
    x86_echo = echo(x86, x86[0]["cpu"]) if x86 else None
    clips = rec["result"]["clips"]
    scored = [c["scored"] for c in clips if c.get("scored") is not None]
    ended = sum(1 for c in clips if c.get("ended_on_check"))
    order = ["early-check", "end-check", "pocketsphinx", "echo", "echo-program", *WHISPER]
    extra = [label for label in kinds if label not in order and label in per[cpus[0]]]
    order += extra

    # 1. the counts
    lines += ["Instructions per utterance (mean over the clips, [lowest, highest] clip), one thread:", "",
              "| stage | kind | x86_64 (callgrind) | x86_64 CPU time | x86_64 instructions per CPU-second | "
              + " | ".join(f"aarch64, {c}" for c in cpus) + " |",
              "|---|---|---|---|---|" + "---|" * len(cpus)]
    for stage in order:
        row = [kinds[stage][2], kinds[stage][0]]
        if stage.startswith("echo"):
            xs = (x86_echo or {}).get(stage)
            row.append(_g(xs) if xs else "-")
            secs = _echo_seconds(x86, stage)
            row += [f"{secs * 1000:.0f} ms" if secs else "-", f"{xs / secs / 1e9:.1f} G/s" if xs and secs else "-"]
            row += [_g(echoes[c][stage]) if stage in echoes[c] else "-" for c in cpus]
        else:
            xs_list = x86_per.get(stage, [])
            row.append(_stat(xs_list))
            ts = x86_cpu.get(stage, [])
            row.append(f"{statistics.mean(ts) * 1000:.0f} ms" if ts else "-")
            row.append(f"{sum(xs_list) / sum(ts) / 1e9:.1f} G/s" if ts and sum(ts) > 0 and xs_list else "-")
            row += [_stat(per[c].get(stage, [])) for c in cpus]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", (f"Whisper scored {statistics.mean(scored):.1f} phrases an utterance ({min(scored)} to "
                   f"{max(scored)}), swaps included; the end check heard a whole phrase on {ended} of "
                   f"{len(clips)} clips (the grammar: {rec['result'].get('phrases')} phrases, the wake phrase "
                   "optional before each command, as the loop listens)."), ""]
    for record in (rec, x86_rec):
        if record is not None and stale(record):
            lines += [STALE.format(machine=record["machine"], commit=record["commit"]), ""]

    # 2. the calibration
    lines += [("The calibration: faster-whisper tiny.en int8 `transcribe` (30 s window, beam 5), counted on one "
               "thread, against the published seconds:"), "",
              ("| board (QEMU CPU) | published | counted input | counted instructions | encoder's share | "
               "rate at the published threads | one core's rate (centre, range) |"), "|---|---|---|---|---|---|---|"]
    for c in cpus:
        m = models[c]
        counted = calibration(aarch64, c)
        ones = [m.rate1(k) for k in m.corners()]
        for board, what, seconds, instructions, rate, note in m.rates:
            share = counted[what]["encode-30s"] / counted[what]["transcribe"]
            lines.append(f"| {board} ({c}) | {seconds} s, {note} | {what} | {_g(instructions)} | {share:.0%} | "
                         f"{rate / 1e9:.2f} G/s | {ones[0] / 1e9:.2f} G/s ({min(ones) / 1e9:.2f}-{max(ones) / 1e9:.2f}) |")
    lines += ["", "Each kind of code's rate on one core (centre, range), instructions per second:", "",
              "| kind | " + " | ".join(BOARD[c] for c in cpus) + " |", "|---|" + "---|" * len(cpus)]
    for kind, words in KINDS.items():
        cells = []
        for c in cpus:
            values = [models[c].rate(kind, k) for k in models[c].corners()]
            cells.append(f"{values[0] / 1e9:.2f} G/s ({min(values) / 1e9:.2f}-{max(values) / 1e9:.2f})")
        lines.append(f"| {kind}: {words} | " + " | ".join(cells) + " |")
    lines += ["", (f"The NumPy ratio (NumPy's instructions per second over the decoder's, one thread) is "
                   f"{ratio:.2f}" + (" (the x86 cross-check)" if measured is not None else " (no x86 record: assumed)")
                   + f", read at {NUMPY_SPREAD[0]}-{NUMPY_SPREAD[2]} times that for its range."), ""]

    # 3. the estimate
    lines += [("The estimate (seconds per utterance, centre and range; Whisper's encoder and n-best on four "
               "threads as the product runs them on a Pi, and on one):"), "",
              "| stage | " + " | ".join(f"{BOARD[c]}" for c in cpus) + " | "
              + " | ".join(f"{BOARD[c]}, Whisper on one thread" for c in cpus) + " |",
              "|---|" + "---|" * (2 * len(cpus))]

    def mean_of(c: str, stage: str) -> float:
        if stage.startswith("echo"):
            return echoes[c].get(stage, 0.0)
        values = per[c].get(stage, [])
        return statistics.mean(values) if values else 0.0

    for stage in order:
        row = [kinds[stage][2]]
        row += [_s(models[c].spread({stage: mean_of(c, stage)})) for c in cpus]
        row += [_s(models[c].spread({stage: mean_of(c, stage)}, threads=1)) if kinds[stage][1] > 1 else "same"
                for c in cpus]
        lines.append("| " + " | ".join(row) + " |")
    voices = tuple(label for label in extra if _when(rec, label) in ("voices", "array"))
    fast = ("end-check", "pocketsphinx")
    totals = {
        "the fast path (the check that ends the utterance, then pocketsphinx's decode)": fast,
        "to the echo (the fast path and the echo's synthesis)": (*fast, "echo"),
        "to a verified application (the fast path and Whisper's stages; the echo is synthesized beside them)":
            (*fast, *WHISPER),
        "the CPU a command pays (all of the above and the early checks before the last, during the pauses)":
            (*fast, "early-check", "echo", *WHISPER),
    }
    if voices:
        names = " and ".join(kinds[v][2].split(" (")[0] for v in voices)
        totals[f"to the echo with voices enrolled at an array (and {names})"] = (*fast, "echo", *voices)
        totals[f"to a verified application with voices enrolled at an array (and {names})"] = (*fast, *WHISPER, *voices)
    for label in extra:
        if _when(rec, label) == "unparsed":
            totals[f"a line the grammar does not parse: to a verified hearing, and {kinds[label][2]}"] = (
                *fast, *WHISPER, label)
    for name, stages in totals.items():
        row = [f"**{name}**"]
        row += [_s(models[c].spread({s: mean_of(c, s) for s in stages})) for c in cpus]
        row += [_s(models[c].spread({s: mean_of(c, s) for s in stages}, threads=1)) if "encode" in stages else "same"
                for c in cpus]
        lines.append("| " + " | ".join(row) + " |")

    # 4. the sources
    lines += ["", ("Sources: the records read (`benchmarks/aarch64/pi_estimate.txt`, "
                   "`benchmarks/x86_64/pi_estimate.txt`; the newest of each run):"), ""]
    for record in sorted(aarch64 + x86, key=lambda r: (r["machine"], r["cpu"], r["run"])):
        if record.get("copied"):
            continue
        lines.append(f"- {record['machine']} {record['cpu']} `{record['run']}`: commit {record['commit']}, "
                     f"{record.get('date', '?')}, {record.get('counter', '?')}")
    return "\n".join(lines)


def _when(record: dict[str, Any], label: str) -> str:
    spec = (record.get("result", {}).get("stages") or {}).get(label) or {}
    return str(spec.get("when", ""))


STALE = ("**Stale counts** ({machine}, commit {commit}): this recognition record predates what the product "
         "runs now (the one decoder pass with int8 weights) or the stages counted now (the end check); "
         "re-count: `python -m benchmarks.pi_estimate count --runs baseline,recognition`.")


def stale(record: dict[str, Any]) -> bool:
    """Whether a recognition record was counted before the product's present stages: the one-pass
    scorer with int8 weights, and the check that ends the utterance counted apart."""
    result = record.get("result", {})
    return not (result.get("scorer") == "one-pass" and result.get("weights") == "int8"
                and result.get("checks") == "end-check")


def _stat(values: list[int]) -> str:
    if not values:
        return "-"
    return f"{_g(statistics.mean(values))} [{_g(min(values))}, {_g(max(values))}]"


def _echo_seconds(x86: list[dict[str, Any]], stage: str) -> float | None:
    runs = {r["run"]: min(r["cpu_seconds"]) for r in x86 if r["run"].startswith("echo") and r.get("cpu_seconds")}
    if stage == "echo" and "echo-file-1" in runs and "echo-file-10" in runs:
        return (runs["echo-file-10"] - runs["echo-file-1"]) / 9
    if stage == "echo-program":
        return runs.get("echo-argument")
    return None


START, END = "<!-- pi-estimate-table:start -->", "<!-- pi-estimate-table:end -->"


def write_results(path: Path, table: str) -> None:
    """Put ``table`` between the section's markers in benchmarks/RESULTS.md."""
    text = path.read_text(encoding="utf-8")
    if START not in text:
        raise SystemExit(f"{path} has no {START} marker (the section 'What a Pi costs: guest instruction counts')")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{START}\n{table}\n{END}{tail}", encoding="utf-8")
