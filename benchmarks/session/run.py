"""``python -m benchmarks session [--quick]``: whole table sessions through the real listen loop.

For every game, condition and voice set, one session of a few minutes is played
from file audio through ``ListenLoop.run_audio`` with the product's endpointer
(``Endpointer(complete=loop.complete)``, as ``facilitator play`` builds it) and
recognizer (``make_recognizer()``): see ``table.py`` for the players and
``room.py`` for the room.  Conditions: a quiet room (steady noise only), and
other people talking in the background for the whole session 30, 20 and 10 dB
below the players (with the same steady noise).

The table is printed as markdown and, unless ``--no-write``, written as the
first table of ``benchmarks/RESULTS.md`` and of ``README.md`` (between the
``session-table`` markers).
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.session import table, voices  # noqa: E402

GAMES = ("compass-code", "two-windows", "lantern-links", "clover")
#: condition -> background talk below the players in dB (None: no background talk)
CONDITIONS: dict[str, float | None] = {"quiet": None, "talk-30": 30.0, "talk-20": 20.0, "talk-10": 10.0}
QUICK_CONDITIONS = tuple(CONDITIONS)
MINUTES = 5.0
QUICK_MINUTES = 2.0
START, END = "<!-- session-table:start -->", "<!-- session-table:end -->"


@dataclass(frozen=True)
class Job:
    game: str
    condition: str
    voice_set: str
    seats: tuple[str, ...]
    minutes: float
    seed: int
    background: str | None
    room: str | None
    endpoint: tuple[tuple[str, Any], ...]
    transcripts: str | None


def _run(job: Job) -> table.Result:
    os.nice(5)
    os.environ.setdefault("FACILITATOR_DATA_DIR", tempfile.mkdtemp(prefix="facilitator-session-"))
    from benchmarks.corpus import CHATTER
    from facilitator.speech.endpoint import Endpointer
    from facilitator.speech.recognize import make_recognizer

    recognizer = make_recognizer()
    options = dict(job.endpoint)
    result = table.play(job.game, job.condition, CONDITIONS[job.condition], job.voice_set, job.seats,
                        job.minutes, job.seed, recognizer,
                        lambda loop: Endpointer(complete=loop.complete, **options),
                        background=Path(job.background) if job.background else None,
                        ir_path=Path(job.room) if job.room else None, chatter=CHATTER)
    if job.transcripts:
        path = Path(job.transcripts) / f"{job.game}-{job.condition}-{job.voice_set}.txt"
        path.write_text("\n".join(result.transcript) + "\n", encoding="utf-8")
    result.transcript = []
    return result


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summarize(results: list[table.Result], conditions: tuple[str, ...], sets: tuple[str, ...]) -> list[str]:
    lines = [
        "| condition | voices | commands said | understood, 1st try | within 2 tries | wrong actions "
        "| chatter lines | chatter reaching the referee | \"Say again?\" per min of chatter "
        "| \"Say again?\" to nobody, per min "
        "| end of speech → answer, median / p95 | segments cut at the cap | peak RSS |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for condition in conditions:
        for voice_set in sets:
            rows = [r for r in results if r.condition == condition and r.voices == voice_set]
            if not rows:
                continue
            commands = [c for r in rows for c in r.commands]
            said = len(commands)
            first = sum(1 for c in commands if c.understood_at == 1)
            two = sum(1 for c in commands if 1 <= c.understood_at <= 2)
            wrong = sum(r.wrong_actions for r in rows)
            chat = sum(r.chatter_lines for r in rows)
            reached = sum(r.chatter_reached for r in rows)
            minutes = sum(r.chatter_seconds for r in rows) / 60
            again = sum(r.say_again_chatter for r in rows)
            unprompted = sum(r.say_again_unprompted for r in rows)
            session_minutes = sum(r.stream_seconds for r in rows) / 60
            lat = [x for r in rows for x in r.latencies]
            segs = sum(r.segments for r in rows)
            capped = sum(r.capped_segments for r in rows)
            rss = max(r.peak_rss_mb for r in rows)
            latency = (f"{statistics.median(lat) * 1000:.0f} / {percentile(lat, 0.95) * 1000:.0f} ms"
                       if lat else "-")
            lines.append(
                f"| {condition} | {voice_set} | {said} | {_pct(first, said)} | {_pct(two, said)} | {wrong} "
                f"| {chat} | {reached} | {again / minutes if minutes else 0:.1f} "
                f"| {unprompted / session_minutes if session_minutes else 0:.1f} | {latency} "
                f"| {capped} of {segs} | {rss:.0f} MB |")
    return lines


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}% ({part})" if whole else "-"


def write_between(path: Path, text: str, heading: str) -> None:
    """Put ``text`` between the markers in ``path`` (first section after the title if absent)."""
    body = path.read_text(encoding="utf-8")
    block = f"{START}\n{text}\n{END}"
    if START in body and END in body:
        before, rest = body.split(START, 1)
        after = rest.split(END, 1)[1]
        body = before + block + after
    else:
        lines = body.split("\n")
        at = next((i for i, line in enumerate(lines) if line.startswith("## ")), len(lines))
        body = "\n".join(lines[:at] + [heading, "", block, ""] + lines[at:])
    path.write_text(body, encoding="utf-8")


def parse_value(value: str) -> Any:
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(value.lower(), value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks session", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two-minute sessions, held-out voices only")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--minutes", type=float, help="stream minutes per session")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--conditions", help="comma-separated, from " + ", ".join(CONDITIONS))
    parser.add_argument("--voice", action="append", default=[], metavar="COMMAND",
                        help="a held-out voice: a command with {text} and {wav} (any number); replaces the set")
    parser.add_argument("--background", help="a WAV of background talk to loop under the whole session")
    parser.add_argument("--room", help="a room impulse response (WAV)")
    parser.add_argument("--endpoint", action="append", default=[], metavar="OPTION=VALUE",
                        help="an Endpointer option to try (silence_seconds=0.4)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--transcripts", help="write each session's transcript into this folder")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md and README.md alone")
    args = parser.parse_args(argv)

    for spec in args.voice:   # a voice asked for by name must work
        why = voices.available(spec)
        if why is not None:
            print(f"voice {spec}: {why}", file=sys.stderr)
            return 2
    held_out = tuple(args.voice) or _usable(voices.HELD_OUT_VOICES)
    tuning = _usable(voices.TUNING_VOICES)
    if not held_out or not tuning:
        print("no voice can speak on this machine (espeak-ng is needed)", file=sys.stderr)
        return 2
    sets = {"held-out": held_out} if args.quick else {"tuning": tuning, "held-out": held_out}
    conditions = tuple(args.conditions.split(",")) if args.conditions else (
        QUICK_CONDITIONS if args.quick else tuple(CONDITIONS))
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        print(f"unknown condition {unknown[0]!r} (one of {', '.join(CONDITIONS)})", file=sys.stderr)
        return 2
    games = [g for g in args.games.split(",") if g]
    if not games or any(g not in GAMES for g in games):
        print(f"--games takes names from {', '.join(GAMES)}", file=sys.stderr)
        return 2
    for option, path in (("--background", args.background), ("--room", args.room)):
        if path and not Path(path).is_file():
            print(f"{option}: no such file {path}", file=sys.stderr)
            return 2
    minutes = args.minutes or (QUICK_MINUTES if args.quick else MINUTES)
    endpoint = tuple((k, parse_value(v)) for k, _, v in (item.partition("=") for item in args.endpoint))
    try:
        from facilitator.speech.endpoint import Endpointer

        Endpointer(**dict(endpoint))
    except (TypeError, ValueError) as exc:
        print(f"--endpoint: {exc}", file=sys.stderr)
        return 2
    if args.transcripts:
        Path(args.transcripts).mkdir(parents=True, exist_ok=True)
    jobs = [Job(game, condition, name, specs, minutes, args.seed + 100 * g, args.background, args.room,
                endpoint, args.transcripts)
            for condition in conditions for name, specs in sets.items()
            for g, game in enumerate(games)]
    began = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.workers, maxtasksperchild=1) as pool:
        results = pool.map(_run, jobs, chunksize=1)
    took = time.perf_counter() - began
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    setting = ", ".join(f"{k}={v}" for k, v in endpoint) or "the product's defaults"
    stream = sum(r.stream_seconds for r in results) / 60
    text = "\n".join([
        (f"`python -m benchmarks session{' --quick' if args.quick else ''}` on {_machine()}, {stamp}: "
         f"{len(results)} sessions of {minutes:g} minutes ({', '.join(games)}), "
         f"{stream:.0f} minutes of table audio "
         f"in {took / 60:.0f} minutes; endpointer: {setting}; held-out voices: "
         f"{', '.join(voices.label(v) for v in held_out)}."),
        "",
        *summarize(results, conditions, tuple(sets)),
    ])
    print(text)
    if not args.no_write:
        heading = "## Table sessions (the first table)"
        write_between(ROOT / "benchmarks" / "RESULTS.md", text, heading)
        write_between(ROOT / "README.md", text, "## How well it hears a table")
    return 0


def _usable(specs: tuple[str, ...]) -> tuple[str, ...]:
    """The default voices this machine has; one line for each missing one (the table names those used)."""
    kept = []
    for spec in specs:
        why = voices.available(spec)
        if why is None:
            kept.append(spec)
        else:
            print(f"voice {spec} left out: {why}", file=sys.stderr)
    return tuple(kept)


def _machine() -> str:
    from benchmarks.run import machine

    return machine()


if __name__ == "__main__":
    raise SystemExit(main())
