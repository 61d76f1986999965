"""The recognition benchmark: regenerate the corpus, measure, print the table.

Run from the repository root: ``python -m benchmarks`` (``--quick`` for a short
run).  It regenerates ``benchmarks/corpus/`` (see ``corpus.py``), then measures
on the embedded default recognizer (pocketsphinx):

* exact-command accuracy per condition (clean; babble and white noise at 20, 10
  and 5 dB, mixed at measured SNR), under the whole game grammar (as
  ``facilitator recognize``) and the state-narrowed grammar (as the loop), on
  tuning voices and held-out voices separately (``accuracy.py``);
* chatter returned as a command, under both grammars, and chatter reaching the
  referee through the real loop after gating and confirmation (``gating.py``);
* decode real-time factor (decode seconds over audio seconds);
* end of speech to start of the announcement, median and 95th percentile, from
  whole voyages through the real loop (``voice_loop_latency.py``'s probe);
* peak RSS of ``facilitator play`` in voice mode on a recording (``memory.py``).

The table is printed and written into ``benchmarks/RESULTS.md`` (between the
``table`` markers) with the machine and the date.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import accuracy, corpus, gating, memory

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
START, END = "<!-- table:start -->", "<!-- table:end -->"


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.machine()}, {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def accuracy_table(clips: list[corpus.Clip], rows: list[accuracy.Row], conditions: tuple[str, ...]) -> list[str]:
    right: dict[tuple[str, str, bool], list[int]] = defaultdict(lambda: [0, 0, 0])   # right, wrong, total
    chatter: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])          # accepted, total
    snr: dict[str, list[float]] = defaultdict(list)
    decode: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for row in rows:
        clip = clips[row.clip]
        if row.grammar == "whole":
            decode[row.condition][0] += row.seconds
            decode[row.condition][1] += row.audio_seconds
            snr[row.condition].append(row.snr_db)
        if clip.want:
            cell = right[(row.condition, row.grammar, clip.held_out)]
            cell[2] += 1
            if row.got.lower() == clip.want.lower():
                cell[0] += 1
            elif row.got:
                cell[1] += 1
        else:
            cell = chatter[(row.condition, row.grammar)]
            cell[1] += 1
            cell[0] += bool(row.got)
    n_cmd = sum(1 for c in clips if c.want)
    n_chat = sum(1 for c in clips if not c.want)
    lines = [
        (f"Commands: {n_cmd} clips ({sum(1 for c in clips if c.want and c.held_out)} in held-out voices); "
         f"chatter: {n_chat} clips, each decoded under all four games' grammars."),
        "",
        ("| condition | SNR measured | whole: tuning voices | whole: held out | narrowed: tuning "
         "| narrowed: held out | wrong command (whole / narrowed) | chatter as command (whole / narrowed) "
         "| decode RTF |"),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cond in conditions:
        finite = [s for s in snr[cond] if s != float("inf")]
        level = f"{statistics.mean(finite):.1f} dB" if finite else "-"
        cells = []
        for grammar in ("whole", "narrowed"):
            for held in (False, True):
                r, _, t = right[(cond, grammar, held)]
                cells.append(f"{pct(r, t)} ({r}/{t})")
        wrong = []
        for grammar in ("whole", "narrowed"):
            w = right[(cond, grammar, False)][1] + right[(cond, grammar, True)][1]
            t = right[(cond, grammar, False)][2] + right[(cond, grammar, True)][2]
            wrong.append(pct(w, t))
        chat = [f"{pct(*chatter[(cond, g)])} ({chatter[(cond, g)][0]}/{chatter[(cond, g)][1]})"
                for g in ("whole", "narrowed")]
        seconds, audio = decode[cond]
        lines.append(f"| {cond} | {level} | " + " | ".join(cells) + f" | {' / '.join(wrong)} | "
                     f"{' / '.join(chat)} | {seconds / audio:.3f} |")
    return lines


def voice_table(clips: list[corpus.Clip], rows: list[accuracy.Row], conditions: tuple[str, ...]) -> list[str]:
    """Commands right per voice (whole grammar), so a weak voice or engine shows."""
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        clip = clips[row.clip]
        if clip.want and row.grammar == "whole":
            cell = tally[(clip.voice, row.condition)]
            cell[1] += 1
            cell[0] += row.got.lower() == clip.want.lower()
    voices = sorted({c.voice for c in clips}, key=lambda v: (v in corpus.HELD_OUT_VOICES, v))
    lines = ["| voice | held out | " + " | ".join(conditions) + " |", "|---|---|" + "---|" * len(conditions)]
    for voice in voices:
        cells = [pct(*tally[(voice, cond)]) for cond in conditions]
        lines.append(f"| {voice} | {'yes' if voice in corpus.HELD_OUT_VOICES else 'no'} | " + " | ".join(cells) + " |")
    return lines


def misses(clips: list[corpus.Clip], rows: list[accuracy.Row], condition: str, limit: int = 25) -> list[str]:
    out = []
    for row in rows:
        clip = clips[row.clip]
        if row.condition != condition or row.grammar != "whole":
            continue
        if clip.want and row.got.lower() != clip.want.lower():
            out.append(f"  {clip.voice:<15} {clip.text!r} -> {row.got or 'null'} ({row.text!r})")
        elif not clip.want and row.got:
            out.append(f"  chatter {clip.voice:<7} {clip.text!r} -> {row.got} under {row.game}")
    return sorted(out)[:limit]


def gating_table(result: dict[tuple[str, str, str], Any]) -> list[str]:
    lines = [("| condition | game | mode | trials | chatter taken as a command | echoed for confirmation "
              "| reached the referee |"), "|---|---|---|---|---|---|---|"]
    for (cond, game, mode), c in result.items():
        lines.append(f"| {cond} | {game} | {mode} | {c['trials']} | {c['taken']} | {c['echoed']} | "
                     f"{c['reached']} |")
    return lines


def latency(seeds: range) -> dict[str, float]:
    from benchmarks.voice_loop_latency import HELD_OUT_VOICES, voyage

    rows: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            probe, _ = voyage(seed, HELD_OUT_VOICES, Path(tmp) / str(seed))
            rows += probe.rows
    values = [r["latency"] for r in rows]
    return {"count": len(values), "median": statistics.median(values), "p95": percentile(values, 0.95),
            "endpoint": statistics.median(r["endpoint"] for r in rows),
            "answer": statistics.median(r["answer"] for r in rows)}


def write_results(text: str) -> None:
    old = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    block = f"{START}\n{text}\n{END}"
    if START in old and END in old:
        head, rest = old.split(START, 1)
        new = head + block + rest.split(END, 1)[1]
    else:
        new = "# Recognition benchmark results\n\n" + block + "\n" + old
    RESULTS.write_text(new, encoding="utf-8")


def _option_value(value: str) -> Any:
    """``None``, a number, or the text itself (``--set min_posterior=0.05``)."""
    if value == "None":
        return None
    try:
        return float(value)
    except ValueError:
        return value


def recognizer_options(items: list[str]) -> dict[str, Any]:
    """``--set`` items as PocketsphinxRecognizer keywords; unknown names are decoder options.

    Checked here by building the recognizer once, so a bad option stops the run
    with one line instead of failing in every worker.
    """
    import inspect

    from facilitator.errors import FacilitatorError
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

    own = set(inspect.signature(PocketsphinxRecognizer).parameters)
    options: dict[str, Any] = {}
    decoder: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--set {item!r}: expected OPTION=VALUE")
        (options if key in own else decoder)[key] = _option_value(value)
    if decoder:
        options["options"] = {**options.get("options", {}), **decoder}
    try:
        PocketsphinxRecognizer(**options)._ensure()
    except (TypeError, FacilitatorError) as exc:
        raise SystemExit(f"--set: {exc}") from None
    return options


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer phrases, voices and conditions (a few minutes)")
    parser.add_argument("--reuse-corpus", action="store_true", help="do not regenerate benchmarks/corpus/")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    parser.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                        help="a recognizer option to try (max_unexplained=0.2) or a pocketsphinx decoder option "
                             "(cmn=batch)")
    args = parser.parse_args(argv)
    options = recognizer_options(args.set)
    began = time.perf_counter()
    directory = Path(__file__).resolve().parent / "corpus"
    os.environ.setdefault("FACILITATOR_DATA_DIR", tempfile.mkdtemp(prefix="facilitator-bench-"))
    clips = corpus.load(directory) if args.reuse_corpus else corpus.build(directory, quick=args.quick)
    conditions = accuracy.QUICK_CONDITIONS if args.quick else accuracy.CONDITIONS
    rows = list(accuracy.decode_all(directory, clips, conditions, args.workers, options))
    decoded = time.perf_counter()

    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

    recognizer = PocketsphinxRecognizer(**options)
    babble = corpus.babble_tracks(directory)
    chat = [(i, c) for i, c in enumerate(clips) if not c.want]
    chat = chat[:: max(1, len(chat) // 60)]   # at most about 60 trials per game and mode
    gate: dict[tuple[str, str, str], Any] = {}
    gate_games = ("compass-code", "lantern-links") if args.quick else corpus.GAMES
    for cond in ("clean", "babble-10"):
        kind, _, snr = cond.partition("-")
        pcms = [corpus.mix(corpus.read_wav(directory / "clean" / c.file), kind, float(snr or 0), i * 7,
                           babble)[0] for i, c in chat]
        for (game, mode), counts in gating.run_gating(gate_games, pcms, recognizer).items():
            gate[(cond, game, mode)] = counts
    gated = time.perf_counter()
    lat = latency(range(1, 2) if args.quick else range(1, 4))
    mem = memory.peak_rss(directory, clips, ROOT)
    done = time.perf_counter()

    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    setting = ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"
    lines = [
        (f"`python -m benchmarks{' --quick' if args.quick else ''}` on {machine()}, {stamp}; "
         f"recognizer: pocketsphinx ({setting}); run took {done - began:.0f} s "
         f"(decoding {decoded - began:.0f} s, gating {gated - decoded:.0f} s)."),
        "",
        "### Exact-command accuracy and chatter, per condition",
        "",
        *accuracy_table(clips, rows, conditions),
        "",
        "### Commands right per voice (whole grammar)",
        "",
        *voice_table(clips, rows, conditions),
        "",
        "### Chatter through the listen loop (gating, then confirmation answered by more chatter)",
        "",
        *gating_table(gate),
        "",
        "### Latency and memory",
        "",
        "| measure | value |",
        "|---|---|",
        (f"| end of speech -> announcement starts, median ({lat['count']} utterances, held-out voices) "
         f"| {lat['median'] * 1000:.0f} ms |"),
        f"| end of speech -> announcement starts, 95th percentile | {lat['p95'] * 1000:.0f} ms |",
        (f"| of which endpointing wait / decode+rules+log+synthesis (medians) "
         f"| {lat['endpoint'] * 1000:.0f} ms / {lat['answer'] * 1000:.0f} ms |"),
        f"| peak RSS, `facilitator play compass-code --audio-in` (the play process) | {mem['process_mb']:.0f} MB |",
        f"| peak RSS, play process plus its speech worker | {mem['with_children_mb']:.0f} MB |",
    ]
    text = "\n".join(lines)
    print(text)
    print("\nmisses, whole grammar, babble-10:" if "babble-10" in conditions else "")
    print("\n".join(misses(clips, rows, "babble-10")))
    if not args.no_write:
        write_results(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
