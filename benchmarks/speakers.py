"""Who is speaking: how often voice turns refuse the right seat, apply another seat's
command, or let an unknown voice through; and what they cost.

``python -m benchmarks.speakers [--quick] [--tune]``

Each table's voices are enrolled from one line ("I'm ready to play") said in the
same room and noise as the game: reverb (the session benchmark's room), steady
pink noise, and four other people talking in the background 20 or 10 dB below
the players (``talk-20``, ``talk-10``; ``quiet`` has none), from
``benchmarks/session/room.py`` and ``voices.py``.  Then every seat says every
role command of the four games (the captain's send and check, the keeper's
totals, the current player's tile, the spokesperson's final, the committer's
commit):

* *right seat*: the command said by the seat it belongs to; a **false refusal**
  is one the rules of ``facilitator/speech/voices/speakers.py`` refuse or take for a
  stranger (chatter);
* *wrong seat*: the same line said by each other seat (a neighbour answering for
  the captain); **applied** is one taken (not refused, not chatter);
* *unknown voices*: the background talkers' own lines (voices no seat enrolled:
  the next table, a television); **reaching the referee** is one not taken for
  a stranger (it would then be heard as usual).

The verdicts are exactly play's (``speakers.identify`` and ``speakers.rule`` on
the d-vectors of ``speaker_embed.Embedder``); recognition is not in the loop
here, so the rates are those of utterances the recognizer took for a role
command.  Voice sets: *tuning* (thresholds were chosen on these, ``--tune``),
*held-out* (the session benchmark's held-out voices: espeak-ng, flite and the
neural Piper voice), and *similar pairs*: two seats of the same engine and sex,
where it fails.  Synthetic voices are easier to tell apart than people: these
rates are a lower bound on what a real table sees.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.session import room
from benchmarks.session.players import ENROLL_LINE
from benchmarks.session.voices import HELD_OUT_VOICES, Voices, available
from facilitator.speech.voices.speakers import (
    DEFAULT,
    Limits,
    identify,
    rule,
    similarities,
    too_close,
)

#: role commands of the four games, as a player says them
COMMANDS = (
    "send north east south west", "is west in position three", "one anchor two clockwise steps",
    "play charlie", "pass", "rewind", "final hazel", "more", "a sends form round", "commit",
)
QUICK_COMMANDS = COMMANDS[:5]
#: voices chosen for tuning (the session benchmark's tuning set has three espeak-ng male
#: variants this embedder cannot tell apart: they are in the similar pairs below)
TUNING = ("espeak:en-us", "espeak:en-us+f3", "flite:awb", "flite:kal16")
HELD_OUT = HELD_OUT_VOICES
#: two seats of the same engine and sex
SIMILAR_PAIRS = (
    ("espeak:en-us", "espeak:en-gb"), ("espeak:en-us", "espeak:en-us+m3"),
    ("espeak:en-us+f3", "espeak:en-us+f2"), ("flite:awb", "flite:rms"),
)
CONDITIONS: dict[str, float | None] = {"quiet": None, "talk-20": 20.0, "talk-10": 10.0}
QUICK_CONDITIONS = ("quiet", "talk-10")
STRANGER_LINES = room.BACKGROUND_LINES[:6]


@dataclass
class Counts:
    right: int = 0
    refused: int = 0
    wrong: int = 0
    applied: int = 0
    strangers: int = 0
    reached: int = 0
    named_right: int = 0
    named_wrong: int = 0

    def add(self, other: Counts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Table:
    """One table's similarities: enrollment prints, then each clip's scores."""

    label: str
    condition: str
    seats: int
    #: (speaker seat, similarities to each enrolled seat)
    commands: list[tuple[int, dict[int, float]]] = field(default_factory=list)
    strangers: list[dict[int, float]] = field(default_factory=list)
    #: each pair of seats' voiceprint similarity at enrollment
    alike: dict[tuple[int, int], float] = field(default_factory=dict)

    def pair_applied(self, limits: Limits) -> dict[tuple[int, int], tuple[int, int]]:
        """For each pair of seats: (one's role commands applied from the other's voice, said)."""
        out: dict[tuple[int, int], tuple[int, int]] = {}
        for speaker, sims in self.commands:
            for owner in range(1, self.seats + 1):
                if owner == speaker:
                    continue
                pair = (min(owner, speaker), max(owner, speaker))
                applied, said = out.get(pair, (0, 0))
                out[pair] = (applied + (rule(sims, frozenset({owner}), limits) == "take"), said + 1)
        return out

    def count(self, limits: Limits) -> Counts:
        c = Counts()
        for speaker, sims in self.commands:
            verdict = identify(sims, limits)
            c.named_right += verdict.sure and verdict.seat == speaker
            c.named_wrong += verdict.sure and verdict.seat != speaker
            for owner in range(1, self.seats + 1):
                ruling = rule(sims, frozenset({owner}), limits)
                if owner == speaker:
                    c.right += 1
                    c.refused += ruling != "take"
                else:
                    c.wrong += 1
                    c.applied += ruling == "take"
        for sims in self.strangers:
            c.strangers += 1
            c.reached += rule(sims, None, limits) != "chatter"
        return c


class Room:
    """Lines said in the room under a condition: reverb, pink noise, background talk."""

    def __init__(self, voices: Voices, seed: int = 7) -> None:
        self.voices = voices
        self.ir = room.impulse_response()
        self.rng = np.random.default_rng(seed)
        self.bed = room.background_bed(voices.say, 90.0, seed)
        self.noise = room.pink_noise(30.0, seed)

    def say(self, spec: str, text: str, snr: float | None) -> np.ndarray:
        dry = self.voices.say(spec, text)
        wet = room.level(room.reverb(dry, self.ir), room.SPEECH_DBFS)
        return self.mix(wet, snr)

    def mix(self, speech: np.ndarray, snr: float | None) -> np.ndarray:
        n = len(speech)
        unit = 32768.0 * 10 ** (room.SPEECH_DBFS / 20)
        start = int(self.rng.integers(0, len(self.noise) - n))
        out = speech + self.noise[start:start + n] * unit * 10 ** (-room.NOISE_BELOW_DB / 20)
        if snr is not None:
            start = int(self.rng.integers(0, len(self.bed) - n))
            out = out + self.bed[start:start + n] * unit * 10 ** (-snr / 20)
        return np.clip(out, -32768, 32767) / 32768.0


def measure_table(label: str, voices: tuple[str, ...], condition: str, where: Room,
                  embedder: object, commands: tuple[str, ...], times: list[float]) -> Table:
    snr = CONDITIONS[condition]

    def embed(samples: np.ndarray) -> np.ndarray:
        began = time.perf_counter()
        out = embedder.embed_samples(samples.astype(np.float32))  # type: ignore[attr-defined]
        times.append((time.perf_counter() - began) * 1000)
        return np.asarray(out)

    prints = {seat: [embed(where.say(v, ENROLL_LINE, snr))] for seat, v in enumerate(voices, 1)}
    table = Table(label, condition, len(voices))
    table.alike = {(a, b): s for a, b, s in too_close(prints, replace(DEFAULT, too_close=-1.0))}
    for seat, voice in enumerate(voices, 1):
        for text in commands:
            table.commands.append((seat, similarities(embed(where.say(voice, text, snr)), prints)))
    for k, voice in enumerate(room.BACKGROUND_VOICES):
        for text in STRANGER_LINES[k % 2::2]:
            table.strangers.append(similarities(embed(where.say(voice, text, snr)), prints))
    return table


def tune(tables: list[Table], max_refusal: float = 0.02) -> Limits:
    """Thresholds chosen on ``tables``: the refusal margin and stranger threshold with the
    fewest wrong-seat commands applied, then strangers let in, whose false refusal is at
    most ``max_refusal``; then the naming thresholds with the most right seats named and
    at most ``max_refusal`` named wrong."""
    best: tuple[float, float, Limits] | None = None
    for refuse, stranger in itertools.product(np.arange(0.02, 0.31, 0.01), np.arange(0.0, 0.51, 0.025)):
        limits = replace(DEFAULT, refuse_margin=round(float(refuse), 3), stranger=round(float(stranger), 3))
        total = Counts()
        for t in tables:
            total.add(t.count(limits))
        if total.refused > max_refusal * total.right:
            continue
        key = (total.applied / max(total.wrong, 1), total.reached / max(total.strangers, 1))
        if best is None or key < best[:2]:
            best = (*key, limits)
    assert best is not None
    chosen, named = best[2], -1
    for match, margin in itertools.product(np.arange(0.0, 0.81, 0.05), np.arange(0.0, 0.31, 0.02)):
        limits = replace(best[2], match=round(float(match), 3), margin=round(float(margin), 3))
        total = Counts()
        for t in tables:
            total.add(t.count(limits))
        if total.named_wrong <= max_refusal * total.right and total.named_right > named:
            chosen, named = limits, total.named_right
    return chosen


def cost_mb() -> float:
    """RSS the embedder adds to a process: a child imports it, loads the model and
    embeds one utterance (VmRSS after minus before)."""
    code = (
        "import numpy as np\n"
        "def rss():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmRSS'): return int(line.split()[1])\n"
        "import facilitator.speech.voices.speakers\n"
        "before = rss()\n"
        "from facilitator.speech.voices.speaker_embed import Embedder\n"
        "e = Embedder(); e.embed_samples(np.zeros(32000, dtype=np.float32) + 0.01)\n"
        "print((rss() - before) / 1024)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    return float(done.stdout.strip())


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}% ({part}/{whole})" if whole else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speakers", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="quiet and talk-10, five commands")
    parser.add_argument("--tune", action="store_true", help="choose the thresholds on the tuning voices")
    parser.add_argument("--array", action="store_true",
                        help="a microphone array at a table simulated with pyroomacoustics (benchmarks/array_seats.py)")
    parser.add_argument("--rooms", default="kitchen,den,hall",
                        help="with --array: the simulated rooms (benchmarks/session/array_room.py), comma-separated")
    args = parser.parse_args(argv)
    if args.array:
        from benchmarks.session.array_room import ROOMS

        rooms = tuple(r for r in args.rooms.split(",") if r)
        if not rooms or any(r not in ROOMS for r in rooms):
            print(f"--rooms takes names from {', '.join(ROOMS)}", file=sys.stderr)
            return 2
        return array_main(args.quick, rooms)

    from facilitator.speech.voices.speaker_embed import Embedder

    sets: list[tuple[str, tuple[str, ...]]] = [("tuning", TUNING), ("held-out", HELD_OUT)]
    sets += [(f"similar: {a} / {b}", (a, b)) for a, b in SIMILAR_PAIRS]
    missing = {v: why for _, vs in sets for v in vs if (why := available(v))}
    for voice, why in missing.items():
        print(f"skipping voice {voice}: {why}", file=sys.stderr)
    conditions = QUICK_CONDITIONS if args.quick else tuple(CONDITIONS)
    commands = QUICK_COMMANDS if args.quick else COMMANDS
    voices = Voices()
    began = time.perf_counter()
    times: list[float] = []
    tables: list[Table] = []
    try:
        where = Room(voices)
        embedder = Embedder()
        for condition in conditions:
            for label, vs in sets:
                kept = tuple(v for v in vs if v not in missing)
                if len(kept) < 2:
                    continue
                tables.append(measure_table(label, kept, condition, where, embedder, commands, times))
    finally:
        voices.close()
    limits = tune([t for t in tables if t.label == "tuning"]) if args.tune else DEFAULT
    mb = cost_mb()
    header = (
        f"`python -m benchmarks.speakers{' --quick' if args.quick else ''}` on {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: refusal margin {limits.refuse_margin}, "
        f"stranger below {limits.stranger}, named from {limits.match} with margin {limits.margin}"
        f"{' (chosen now on the tuning voices)' if args.tune else ''}; "
        f"embedding {statistics.median(times):.0f} ms median, {np.percentile(times, 95):.0f} ms p95 "
        f"per utterance (1 thread); the embedder adds {mb:.0f} MB RSS; "
        f"{len(times)} utterances in {time.perf_counter() - began:.0f} s."
    )
    lines = [
        header,
        "",
        "| condition | voices | right seat refused | wrong seat applied | unknown voices reaching the referee | speaker named right | named wrong |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in tables:
        c = t.count(limits)
        lines.append(f"| {t.condition} | {t.label} | {pct(c.refused, c.right)} | {pct(c.applied, c.wrong)} "
                     f"| {pct(c.reached, c.strangers)} | {pct(c.named_right, c.right)} "
                     f"| {pct(c.named_wrong, c.right)} |")
    lines += ["", ("Pairs of seats by how alike their enrollment voiceprints are (cosine), and how often one's "
                   f"role command was applied from the other's voice; flagged at enrollment from {limits.too_close} "
                   "(\"I can't tell Ann's voice from Ben's\"):"), "",
              "| condition | voices | pair | voiceprints alike | wrong seat applied | flagged |", "|---|---|---|---|---|---|"]
    for t in tables:
        rates = t.pair_applied(limits)
        names = t.label.split(": ")[-1].split(" / ") if t.label.startswith("similar") else None
        for (a, b), alike in sorted(t.alike.items(), key=lambda kv: -kv[1]):
            applied, said = rates.get((a, b), (0, 0))
            who = f"{names[a - 1]} / {names[b - 1]}" if names else f"seats {a} / {b}"
            lines.append(f"| {t.condition} | {t.label.split(':')[0]} | {who} | {alike:.2f} | {pct(applied, said)} "
                         f"| {'yes' if alike >= limits.too_close else 'no'} |")
    print("\n".join(lines))
    return 0


def array_main(quick: bool, rooms: tuple[str, ...]) -> int:
    """``--array``: the pool's held-out voices (flite, Festival; distinct and alike) at 4 and 6
    seats round a simulated array in each room of ``rooms`` (``array_seats.py``)."""
    from benchmarks import array_seats
    from benchmarks.session.voices import POOL_HELD_OUT

    try:
        from facilitator.speech.voices.speaker_embed import Embedder, EmbedderMissing

        embedder: object | None = Embedder()
    except EmbedderMissing:
        embedder = None
    held_out = tuple(v for v in POOL_HELD_OUT if not available(v))
    voices = Voices()
    began = time.perf_counter()
    cpu = time.process_time()
    conditions = ("talk-10",) if quick else ("talk-20", "talk-10")
    try:
        rows, cpu_ms, errors = array_seats.measure(voices, embedder, conditions, QUICK_COMMANDS, held_out,
                                                   rooms=rooms)
    finally:
        voices.close()
    print(f"`python -m benchmarks.speakers --array{' --quick' if quick else ''} --rooms {','.join(rooms)}` on "
          f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: held-out voices {', '.join(held_out)} "
          f"(distinct: a different one at every seat; alike: one voice at seats 1 and 2, the next at 3 and 4, ...), "
          f"{len(QUICK_COMMANDS)} commands a seat, {time.process_time() - cpu:.0f} CPU seconds "
          f"({time.perf_counter() - began:.0f} s).")
    print()
    print("\n".join(array_seats.report(rows, cpu_ms, errors)))
    print()
    print("\n".join(array_seats.summary(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
