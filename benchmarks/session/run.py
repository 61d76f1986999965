"""``python -m benchmarks session [--quick]``: whole table sessions through the real listen loop.

For every game, condition and voice set, one session of a few minutes is played
from file audio through ``ListenLoop.run_audio`` with the product's endpointer
(``Endpointer(complete=loop.complete)``, as ``facilitator play`` builds it) and
recognizer (``make_recognizer()``): see ``table.py`` for the players and
``room.py`` for the room.  Conditions: a quiet room (steady noise only), and
other people talking in the background for the whole session 30, 20 and 10 dB
below the players (with the same steady noise).  ``--mode`` says how the table
addresses the referee (always listening, the wake phrase in the same breath,
push-to-talk, push-to-talk with a close-talk microphone; ``all``: each in turn)
and ``--engines`` which recognizer hears it (``both``: pocketsphinx with Whisper,
as the README installs it; ``light``: pocketsphinx alone, ``--second-engine off``).
Every row is one condition x voice set x mode x engines.

``--mode array`` hears the table at a microphone array (``--array``, the ReSpeaker
4-Mic HAT unless told) in a room simulated with pyroomacoustics (``array_audio.py``):
each player, background talker and the referee's loudspeaker from their own place;
the recognizer hears one microphone, and the referee first asks every seat to enrol
("Ann, say: I'm ready to play"), so where a voice comes from names its seat.  As with
phones, the seat that may give a role's command says it, and now and then another
seat says it first: the table then counts how often such a line was applied, and how
often the right seat's own line was refused.  ``--seats 6`` seats six (``--voices
pool`` has voices enough).  ``--mode room`` is the same table heard by one microphone
at the array's place (its first microphone, no raw channels): seats are then told by
voiceprint (both engines) or not at all (the light mode), as without an array.

``--phrasing natural`` makes the players say each command as a table does
without reading the manual (``natural.toml``: "let's send ...", a bare route,
"is west third", "I'll pass", "spin card one", "lock it in", "yep"), and
``--voices pool`` takes every synthesizer this machine has (``voices.POOL_*``):
espeak-ng's voices are the tuning set, and flite's, Festival's and Piper's are
held out whole; a set larger than a table is played in tables of four.  After
the table comes each voice's share of commands understood within two tries, and
the worst voice's.

The table is printed as markdown and, unless ``--no-write``, written as the
first table of ``benchmarks/RESULTS.md`` (between the ``session-table`` markers);
the README keeps only the headline figures, in words, and links there.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
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

from benchmarks.session import table, voices
from benchmarks.session.array_room import ROOMS
from benchmarks.session.natural import PHRASINGS
from facilitator.speech.voices.direction import GEOMETRIES

GAMES = ("compass-code", "two-windows", "lantern-links", "clover")
#: condition -> background talk below the players in dB (None: no background talk)
CONDITIONS: dict[str, float | None] = {"quiet": None, "talk-30": 30.0, "talk-20": 20.0, "talk-10": 10.0}
QUICK_CONDITIONS = tuple(CONDITIONS)
MINUTES = 5.0
QUICK_MINUTES = 2.0
#: players at one table when a voice set is larger than that (every game seats four)
TABLE_SIZE = 4
START, END = "<!-- session-table:start -->", "<!-- session-table:end -->"


#: how the table addresses the referee (``table.MODES``); ``all`` runs each
MODES = table.MODES
#: the recognizer: both engines (the README's install) or pocketsphinx alone (a Pi Zero 2 W)
ENGINES = {"both": "always", "light": "off"}
#: ``--voices``: the voice sets (``distinct`` and ``alike`` seat one table of held-out voices)
VOICE_SETS = ("default", "pool", "distinct", "alike")
#: the rooms a gated mode is run in unless --conditions says (a noisy table's choice)
GATED_CONDITIONS = ("quiet", "talk-20", "talk-10")


@dataclass(frozen=True)
class Job:
    game: str
    condition: str
    voice_set: str
    mode: str
    engines: str
    seats: tuple[str, ...]
    minutes: float
    seed: int
    background: str | None
    room: str | None
    endpoint: tuple[tuple[str, Any], ...]
    transcripts: str | None
    verify_scale: float = 1.0
    phrasing: str = "plain"
    #: which table of a voice set larger than a table this is (0: the first or only one)
    table: int = 0
    #: the array mode's microphone array (``direction.GEOMETRIES``)
    array: str = "respeaker-4mic-hat"
    #: the array mode's room (``array_room.ROOMS``)
    array_room: str = "lounge"


def _run(job: Job) -> table.Result:
    os.nice(5)
    os.environ.setdefault("FACILITATOR_DATA_DIR", tempfile.mkdtemp(prefix="facilitator-session-"))
    from benchmarks.corpus import CHATTER
    from facilitator.speech.audio.endpoint import Endpointer
    from facilitator.speech.engines.recognize import make_recognizer

    recognizer = make_recognizer(second_engine=ENGINES[job.engines])
    # the label says what heard the table: without the whisper extra "both" is pocketsphinx alone
    engines = "both" if getattr(recognizer, "name", "") == "pocketsphinx+whisper" else "light"
    options = dict(job.endpoint)
    result = table.play(job.game, job.condition, CONDITIONS[job.condition], job.voice_set, job.seats,
                        job.minutes, job.seed, recognizer,
                        lambda loop: Endpointer(complete=loop.complete, **options),
                        background=Path(job.background) if job.background else None,
                        ir_path=Path(job.room) if job.room else None, chatter=CHATTER,
                        mode=job.mode, engines=engines, verify_cpu_scale=job.verify_scale,
                        phrasing=job.phrasing, array=job.array, array_room=job.array_room)
    if job.transcripts:
        table_number = f"-{job.seats[0].replace(':', '_')}" if job.table > 0 else ""
        mode = (f"{job.mode}-{job.array}-{job.array_room}-{len(job.seats)}" if job.mode in table.SEATED
                else job.mode)
        stem = f"{job.game}-{job.condition}-{job.voice_set}{table_number}-{mode}-{engines}"
        folder = Path(job.transcripts)
        (folder / f"{stem}.txt").write_text("\n".join(result.transcript) + "\n", encoding="utf-8")
        keep = {**result.trace, "peak_rss_mb": round(result.peak_rss_mb, 1),
                "wall_seconds": round(result.wall_seconds, 1)}
        (folder / f"{stem}.trace.json").write_text(json.dumps(keep) + "\n", encoding="utf-8")
    result.transcript = []
    result.trace = {}
    return result


def rescored(folders: list[str]) -> list[table.Result]:
    """Results scored again from the traces ``--transcripts`` wrote (no session is played)."""
    from benchmarks.session import score

    results = []
    for folder in folders:
        for path in sorted(Path(folder).glob("*.trace.json")):
            trace = json.loads(path.read_text(encoding="utf-8"))
            result = table.Result(game=trace["game"], condition=trace["condition"], voices=trace["voices"],
                                  mode=trace["mode"], engines=trace["engines"], trace=trace)
            table.apply_score(result, score.score(trace))
            result.peak_rss_mb = float(trace.get("peak_rss_mb", 0.0))
            result.wall_seconds = float(trace.get("wall_seconds", 0.0))
            results.append(result)
    return results


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


COLUMNS = ("condition", "voices", "mode", "engines", "commands said", "understood, 1st try", "within 2 tries",
           "applied twice", "wrong actions from chatter", "wrong actions from mishearing, per 100 commands",
           "chatter lines", "chatter reaching the referee", "\"Say again?\" per min of chatter",
           "\"Say again?\" to nobody, per min", "end of speech → answer, median / p95",
           "segments cut at the cap", "peak RSS", "applied from a seat that may not act",
           "the right seat refused", "a question's yes heard", "asked by name (own line / another seat's)",
           "end of speech → echo of the first hearing, median", "end of speech → verdict in, median")


def summarize(results: list[table.Result], conditions: tuple[str, ...], sets: tuple[str, ...],
              modes: tuple[str, ...] = ("always",), engines: tuple[str, ...] = ("both",)) -> list[str]:
    """The table: one row per condition x voice set x mode x engines that has sessions."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    labels = tuple(dict.fromkeys(engines + tuple(r.engines for r in results)))
    for condition in conditions:
        for voice_set in sets:
            for mode in modes:
                for label in labels:
                    rows = [r for r in results if (r.condition, r.voices, r.mode, r.engines)
                            == (condition, voice_set, mode, label)]
                    if rows:
                        lines.append(_row(rows, (condition, voice_set, mode, label)))
    return lines


def _row(rows: list[table.Result], key: tuple[str, str, str, str]) -> str:
    commands = [c for r in rows for c in r.commands]
    said = len(commands)
    first = sum(1 for c in commands if c.understood_at == 1)
    two = sum(1 for c in commands if 1 <= c.understood_at <= 2)
    twice = sum(r.applied_twice for r in rows)
    from_chatter = sum(r.wrong_chatter for r in rows)
    misheard = sum(r.wrong_misheard for r in rows)
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
    per_100 = f"{misheard} ({100 * misheard / said:.1f})" if said else str(misheard)
    echo = [x for r in rows for x in r.echo_latencies]
    verdict = [x for r in rows for x in r.verdict_seconds]
    cells = [*key, str(said), _pct(first, said), _pct(two, said), str(twice), str(from_chatter), per_100,
             str(chat), str(reached), f"{again / minutes if minutes else 0:.1f}",
             f"{unprompted / session_minutes if session_minutes else 0:.1f}", latency,
             f"{capped} of {segs}", f"{rss:.0f} MB",
             (f"{sum(r.wrong_seat for r in rows)} of {sum(r.intruder_lines for r in rows)}"
              if key[2] in ("phone", *table.SEATED) else "-"),
             (f"{sum(r.right_seat_refused for r in rows)} of {said}"
              + (f" (+{late} late)" if (late := sum(r.late_refused for r in rows)) else "")
              if key[2] in table.SEATED else "-"),
             _of(sum(r.yes_heard for r in rows), sum(r.yes_said for r in rows)),
             (f"{sum(r.by_name_right for r in rows)} / {sum(r.by_name_intruder for r in rows)}"
              if key[2] in table.SEATED else "-"),
             f"{statistics.median(echo) * 1000:.0f} ms ({len(echo)})" if echo else "-",
             f"{statistics.median(verdict) * 1000:.0f} ms" if verdict else "-"]
    return "| " + " | ".join(cells) + " |"


#: the recognition stages, in the order an utterance meets them
STAGES = ("early finish", "pocketsphinx", "encode", "n-best", "scoring", "swaps")


def voice_table(results: list[table.Result], sets: dict[str, tuple[str, ...]]) -> list[str]:
    """Each voice's share of commands understood within two tries (over every row it
    spoke in), its synthesizer and set, and the worst voice of each set."""
    from benchmarks.session.voices import label, synthesizer

    lines = ["| voice | synthesizer | set | commands said | within 2 tries |", "|---|---|---|---|---|"]
    worst: dict[str, tuple[float, str]] = {}
    for name, specs in sets.items():
        for spec in specs:
            said = [c for r in results if r.voices == name for c in r.commands if c.voice == spec]
            if not said:
                continue
            two = sum(1 for c in said if 1 <= c.understood_at <= 2)
            lines.append(f"| {label(spec)} | {synthesizer(spec)} | {name} | {len(said)} | {_pct(two, len(said))} |")
            share = two / len(said)
            if name not in worst or share < worst[name][0]:
                worst[name] = (share, spec)
    lines.append("")
    for name, (share, spec) in worst.items():
        lines.append(f"Worst {name} voice: {label(spec)}, {100 * share:.0f}% within two tries.")
    return lines


def stage_table(results: list[table.Result]) -> list[str]:
    """CPU seconds per utterance of each recognition stage (median / 95th percentile), per
    engines, over every utterance decoded, and the phrases Whisper scored per utterance."""
    lines = ["| engines | utterances | " + " | ".join(STAGES) + " | all stages | phrases scored |",
             "|---|---|" + "---|" * (len(STAGES) + 2)]
    for label in dict.fromkeys(r.engines for r in results):
        costs = [c for r in results if r.engines == label for c in r.stage_cpu]
        if not costs:
            continue
        cells = [label, str(len(costs))]
        for stage in STAGES:
            values = [c[stage] for c in costs if stage in c]
            cells.append(_ms(values))
        cells.append(_ms([sum(v for k, v in c.items() if k in STAGES) for c in costs]))
        scored = [c["phrases scored"] for c in costs if "phrases scored" in c]
        cells.append(f"{statistics.median(scored):.0f}" if scored else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} / {percentile(values, 0.95) * 1000:.0f} ms" if values else "-"


def _of(part: int, whole: int) -> str:
    """``part`` of ``whole`` with its share: "18 of 20 (90%)"."""
    return f"{part} of {whole} ({100 * part / whole:.0f}%)" if whole else "-"


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
    parser.add_argument("--voices", default="default",
                        help="default: four tuning and four held-out voices; pool: every synthesizer here, "
                             "espeak-ng's voices tuning, flite's, Festival's and Piper's held out whole; "
                             "distinct: one table of --seats different held-out voices (the pool's); alike: "
                             "the same held-out voice at two seats side by side, every pair (distinct,alike: both)")
    parser.add_argument("--phrasing", choices=PHRASINGS, default="plain",
                        help="plain: the grammar's own phrases; natural: as a table says them (natural.toml)")
    parser.add_argument("--background", help="a WAV of background talk to loop under the whole session")
    parser.add_argument("--room", help="a room impulse response (WAV)")
    parser.add_argument("--endpoint", action="append", default=[], metavar="OPTION=VALUE",
                        help="an Endpointer option to try (silence_seconds=0.4)")
    parser.add_argument("--mode", default="always",
                        help="how the table addresses the referee, comma-separated from "
                             + ", ".join(MODES) + ", or all")
    parser.add_argument("--engines", default="both",
                        help="both (pocketsphinx with Whisper), light (pocketsphinx alone), or both,light")
    parser.add_argument("--second-engine", choices=("auto", "off", "always"),
                        help="as facilitator's option: off is --engines light, always or auto --engines both")
    parser.add_argument("--array", choices=tuple(GEOMETRIES), default="respeaker-4mic-hat",
                        help="the array mode's microphone array (simulated with pyroomacoustics)")
    parser.add_argument("--array-room", choices=tuple(ROOMS), default="lounge",
                        help="the array mode's room (benchmarks/session/array_room.py)")
    parser.add_argument("--seats", type=int, metavar="N",
                        help=f"players at a table (every voice set must have N; without it, up to {TABLE_SIZE}); "
                             "a voice set larger is played in tables of N")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--verify-scale", type=float, default=1.0, metavar="X",
                        help="the second engine's verdict on an echo is in X times its CPU seconds after it "
                             "started (1: this machine; see benchmarks/RESULTS.md for a Raspberry Pi's X)")
    parser.add_argument("--transcripts", help="write each session's transcript into this folder")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    parser.add_argument("--rescore", action="append", default=[], metavar="DIR",
                        help="print the table scored again from the traces a --transcripts run wrote into DIR "
                             "(any number); nothing is played, nothing written")
    args = parser.parse_args(argv)
    if args.rescore:
        return _print_rescored(args.rescore)

    for spec in args.voice:   # a voice asked for by name must work
        why = voices.available(spec)
        if why is not None:
            print(f"voice {spec}: {why}", file=sys.stderr)
            return 2
    kinds = tuple(k for k in args.voices.split(",") if k)
    if not kinds or any(k not in VOICE_SETS for k in kinds) or (len(kinds) > 1 and set(kinds) != {"distinct", "alike"}):
        print(f"--voices takes one of {', '.join(VOICE_SETS)}, or distinct,alike", file=sys.stderr)
        return 2
    pool = kinds[0] != "default"
    held_out = tuple(args.voice) or _usable(voices.POOL_HELD_OUT if pool else voices.HELD_OUT_VOICES)
    tuning = _usable(voices.POOL_TUNING if pool else voices.TUNING_VOICES)
    if not held_out or not tuning:
        print("no voice can speak on this machine (espeak-ng is needed)", file=sys.stderr)
        return 2
    sets = {"held-out": held_out} if args.quick else {"tuning": tuning, "held-out": held_out}
    if kinds[0] in ("distinct", "alike"):
        seated = seated_sets(kinds, held_out, args.seats or TABLE_SIZE)
        if seated is None:
            print(f"--voices {args.voices}: {len(held_out)} held-out voices speak here, too few for "
                  f"{args.seats or TABLE_SIZE} seats", file=sys.stderr)
            return 2
        sets = seated
    conditions = tuple(args.conditions.split(",")) if args.conditions else (
        QUICK_CONDITIONS if args.quick else tuple(CONDITIONS))
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        print(f"unknown condition {unknown[0]!r} (one of {', '.join(CONDITIONS)})", file=sys.stderr)
        return 2
    modes = MODES if args.mode == "all" else tuple(m for m in args.mode.split(",") if m)
    if not modes or any(m not in MODES for m in modes):
        print(f"--mode takes names from {', '.join(MODES)}, or all", file=sys.stderr)
        return 2
    if set(modes) & set(table.SEATED) and importlib.util.find_spec("pyroomacoustics") is None:
        print("--mode array simulates the room with pyroomacoustics: install the array-sim extra", file=sys.stderr)
        return 2
    if args.seats is not None and args.seats < 2:
        print("--seats: at least 2", file=sys.stderr)
        return 2
    short = [name for name, specs in sets.items() if args.seats is not None and len(specs) < args.seats]
    if short:
        print(f"--seats {args.seats}: the {short[0]} set has {len(sets[short[0]])} voices "
              "(--voices pool has more)", file=sys.stderr)
        return 2
    if args.second_engine is not None:
        engine_sets: tuple[str, ...] = ("light",) if args.second_engine == "off" else ("both",)
    else:
        engine_sets = tuple(e for e in args.engines.split(",") if e)
    if not engine_sets or any(e not in ENGINES for e in engine_sets):
        print(f"--engines takes names from {', '.join(ENGINES)}", file=sys.stderr)
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
        from facilitator.speech.audio.endpoint import Endpointer

        Endpointer(**dict(endpoint))
    except (TypeError, ValueError) as exc:
        print(f"--endpoint: {exc}", file=sys.stderr)
        return 2
    if args.transcripts:
        Path(args.transcripts).mkdir(parents=True, exist_ok=True)
    def rooms(mode: str) -> tuple[str, ...]:
        if args.conditions or mode == "always":
            return conditions
        return tuple(c for c in conditions if c in GATED_CONDITIONS)

    jobs = [Job(game, condition, name, mode, engine, seats, minutes, args.seed + 100 * g + 1000 * t, args.background,
                args.room, endpoint, args.transcripts, args.verify_scale, args.phrasing, t, args.array,
                args.array_room)
            for mode in modes for engine in engine_sets for condition in rooms(mode)
            for name, specs in sets.items() for g, game in enumerate(games)
            for t, seats in enumerate(tables(specs, args.seats or TABLE_SIZE))]
    began = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(args.workers, maxtasksperchild=1) as pool:
        results = pool.map(_run, jobs, chunksize=1)
    took = time.perf_counter() - began
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    setting = ", ".join(f"{k}={v}" for k, v in endpoint) or "the product's defaults"
    stream = sum(r.stream_seconds for r in results) / 60
    command = " ".join(["python -m benchmarks session", *(argv if argv is not None else sys.argv[1:])])
    text = "\n".join([
        (f"`{command}` on {_machine()}, {stamp}: "
         f"{len(results)} sessions of {minutes:g} minutes ({', '.join(games)}), "
         f"{stream:.0f} minutes of table audio "
         f"in {took / 60:.0f} minutes; endpointer: {setting}; phrasing: {args.phrasing}; held-out voices: "
         f"{', '.join(voices.label(v) for v in held_out)}."),
        "",
        *summarize(results, conditions, tuple(sets), modes, engine_sets),
        "",
        "Each voice, commands understood within two tries (every row it spoke in):",
        "",
        *voice_table(results, sets),
        "",
        "CPU seconds per utterance of each recognition stage (median / 95th percentile, this machine):",
        "",
        *stage_table(results),
    ])
    print(text)
    if not args.no_write:
        write_table(text)
    return 0


def seated_sets(kinds: tuple[str, ...], held_out: tuple[str, ...], seats: int) -> dict[str, tuple[str, ...]] | None:
    """``--voices distinct`` and ``alike``: one table of ``seats`` different held-out voices, and
    one where every voice sits at two seats side by side (seats 1 and 2, 3 and 4, ...: the
    worst case a voiceprint meets, left for the direction alone); None when too few speak."""
    out: dict[str, tuple[str, ...]] = {}
    for kind in kinds:
        if kind == "distinct":
            if len(held_out) < seats:
                return None
            out[kind] = held_out[:seats]
        else:
            pairs = held_out[: (seats + 1) // 2]
            out[kind] = tuple(v for v in pairs for _ in (0, 1))[:seats]
    return out


def write_table(text: str, root: Path = ROOT) -> Path:
    """Put a run's table into ``benchmarks/RESULTS.md`` under ``root``, and only there:
    the README is for players and hosts, and says the headline figures in words."""
    path = root / "benchmarks" / "RESULTS.md"
    write_between(path, text, "## Table sessions (the first table)")
    return path


def tables(specs: tuple[str, ...], size: int = TABLE_SIZE) -> list[tuple[str, ...]]:
    """A voice set as tables of at most ``size`` players (every game seats four); the
    last table is filled up from the first voices, so every table has ``size`` seats."""
    if len(specs) <= size:
        return [specs]
    out = []
    for start in range(0, len(specs), size):
        group = specs[start:start + size]
        out.append(group + specs[:size - len(group)])
    return out


def _print_rescored(folders: list[str]) -> int:
    missing = [f for f in folders if not Path(f).is_dir()]
    if missing:
        print(f"--rescore: no such folder {missing[0]}", file=sys.stderr)
        return 2
    results = rescored(folders)
    if not results:
        print(f"--rescore: no *.trace.json in {', '.join(folders)}", file=sys.stderr)
        return 2
    def order(values: list[str], known: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(set(values), key=lambda v: known.index(v) if v in known else len(known)))

    conditions = order([r.condition for r in results], tuple(CONDITIONS))
    sets = order([r.voices for r in results], ("tuning", "held-out", "distinct", "alike"))
    modes = order([r.mode for r in results], MODES)
    engines = order([r.engines for r in results], tuple(ENGINES))
    print("\n".join(summarize(results, conditions, sets, modes, engines)))
    print()
    print("\n".join(stage_table(results)))
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
