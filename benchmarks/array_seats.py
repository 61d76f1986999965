"""Who is speaking at a microphone array: ``python -m benchmarks.speakers --array``.

Each table is simulated with pyroomacoustics (``benchmarks/session/array_room.py``):
a 5 x 4 x 2.6 m room with 0.55-0.65 s of reverberation, the array at the table's
centre, 4 or 6 seats 0.7-0.9 m away, four background talkers 2-3 m off, for the
ReSpeaker 4-Mic HAT and the ReSpeaker USB v2.  Every seat enrols ("I'm ready to
play") from where it sits; for play each seat leans to a new place up to 10 degrees
round the table from where it enrolled (its own room response).  Every line is
rendered through the room's response from its talker to each microphone; steady
noise (independent at each microphone, 35 dB below) and, for ``talk-20``/``talk-10``,
the four background talkers' own lines rendered from where they stand, 20 or 10 dB
below the players at the array, are added.

Per utterance: the bearing (``direction.py``, its CPU time counted), the seat the
direction names (``seats.seat_of``, with each seat's bearing adapting as play does),
the voice's similarity to each enrolled seat when the speakers extra is installed
(the first raw microphone, as the recognizer hears it), and then play's own rules:
``speakers.rule`` for the voice alone (one microphone) and ``seats.combined_rule``
for the array.  Every seat says every command; each command is ruled once as its
own seat's (right seat: refused?) and once as every other seat's (wrong seat:
applied?).  Recognition is not in the loop here.  The light mode (no voiceprints) is
the direction alone.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass

import numpy as np

from benchmarks.session import room
from benchmarks.session.array_room import Table as ArrayTable
from benchmarks.session.players import ENROLL_LINE
from facilitator.speech.voices import seats as by_direction
from facilitator.speech.voices.direction import GEOMETRIES, apart, finder
from facilitator.speech.voices.speakers import DEFAULT, rule, similarities

GEOMETRY_NAMES = ("respeaker-4mic-hat", "respeaker-usb-v2")
SEAT_COUNTS = (4, 6)


@dataclass
class Row:
    geometry: str
    seats: int
    condition: str
    mode: str                 # "voice (one microphone)", "array + voice", "array alone (light)"
    right: int = 0
    refused: int = 0
    wrong: int = 0
    applied: int = 0
    named: int = 0
    named_right: int = 0


def _leaned(table: ArrayTable, seat: int, rng: np.random.Generator) -> tuple[float, float, float]:
    """Where ``seat`` speaks from in play: up to 10 degrees round the table from where it enrolled."""
    x, y, z = table.positions[seat]
    cx, cy, _ = table.centre
    r = float(np.hypot(x - cx, y - cy))
    angle = np.degrees(np.arctan2(y - cy, x - cx)) + float(rng.uniform(-10.0, 10.0))
    return (cx + r * float(np.cos(np.radians(angle))), cy + r * float(np.sin(np.radians(angle))), z)


def measure(voices: object, embedder: object | None, conditions: tuple[str, ...], commands: tuple[str, ...],
            held_out: tuple[str, ...], seed: int = 3) -> tuple[list[Row], list[float], list[float]]:
    """Rows for every geometry, seat count and condition; the DOA CPU times (ms) and the
    angle errors (degrees) of every play utterance."""
    say = voices.say  # type: ignore[attr-defined]
    rows: list[Row] = []
    cpu_ms: list[float] = []
    errors: list[float] = []
    for name in GEOMETRY_NAMES:
        geometry = GEOMETRIES[name]
        find = finder(geometry)
        for count in SEAT_COUNTS:
            table = ArrayTable(geometry, seats=count, seed=seed + count)
            rng = np.random.default_rng(seed + count)
            play_at = {s: _leaned(table, s, rng) for s in range(1, count + 1)}
            voice_of = {s: held_out[(s - 1) % len(held_out)] for s in range(1, count + 1)}
            for condition in conditions:
                snr = {"quiet": None, "talk-20": 20.0, "talk-10": 10.0}[condition]
                mix_rng = np.random.default_rng(seed)
                talk = _background(table, say, mix_rng) if snr is not None else None

                def hear(pcm: np.ndarray, where: tuple[float, float, float],
                         snr: float | None = snr, talk: np.ndarray | None = talk,
                         mix_rng: np.random.Generator = mix_rng, table: ArrayTable = table) -> np.ndarray:
                    wet = table.render(pcm.astype(np.float64), where)
                    unit = np.sqrt(room.active_power(wet[0]))
                    wet = wet / max(unit, 1e-9) * 32768 * 10 ** (room.SPEECH_DBFS / 20)
                    level = 32768 * 10 ** (room.SPEECH_DBFS / 20)
                    out = wet + mix_rng.normal(0, level * 10 ** (-room.NOISE_BELOW_DB / 20), wet.shape)
                    if talk is not None and snr is not None:
                        start = int(mix_rng.integers(0, talk.shape[1] - wet.shape[1]))
                        out = out + talk[:, start:start + wet.shape[1]] * level * 10 ** (-snr / 20)
                    return np.clip(out, -32768, 32767)

                prints: dict[int, list[np.ndarray]] = {}
                bearings: dict[int, float] = {}
                for seat in range(1, count + 1):
                    heard = hear(say(voice_of[seat], ENROLL_LINE), table.positions[seat])
                    found = find.bearing(heard)
                    if found is not None and found.clarity >= by_direction.DIRECTION.min_clarity:
                        bearings[seat] = found.degrees
                    if embedder is not None:
                        prints[seat] = [np.asarray(embedder.embed_samples(  # type: ignore[attr-defined]
                            (heard[0] / 32768).astype(np.float32)))]
                modes = ["array alone (light)"]
                if embedder is not None:
                    modes = ["voice (one microphone)", "array + voice", *modes]
                out = {m: Row(name, count, condition, m) for m in modes}
                for text in commands:
                    for seat in range(1, count + 1):
                        heard = hear(say(voice_of[seat], text), play_at[seat])
                        began = time.process_time()
                        found = find.bearing(heard)
                        cpu_ms.append((time.process_time() - began) * 1000)
                        if found is not None:
                            errors.append(apart(found.degrees, _bearing_of(table, play_at[seat])))
                        by = by_direction.seat_of(found, bearings)
                        if by is not None and found is not None:
                            bearings[by] = by_direction.adapted(bearings[by], found)
                        scores = {}
                        if embedder is not None:
                            scores = similarities(np.asarray(embedder.embed_samples(  # type: ignore[attr-defined]
                                (heard[0] / 32768).astype(np.float32))), prints)
                        for mode, row in out.items():
                            if mode != "voice (one microphone)":
                                row.named += by is not None
                                row.named_right += by == seat
                            for owner in range(1, count + 1):
                                acting = frozenset({owner})
                                if mode == "voice (one microphone)":
                                    ruling = rule(scores, acting, DEFAULT)
                                elif mode == "array + voice":
                                    ruling = by_direction.combined_rule(by, scores, acting, bearings)
                                else:
                                    ruling = by_direction.combined_rule(by, {}, acting, bearings)
                                if owner == seat:
                                    row.right += 1
                                    row.refused += ruling != "take"
                                else:
                                    row.wrong += 1
                                    row.applied += ruling == "take"
                rows.extend(out.values())
                print(f"{name}, {count} seats, {condition}: done", file=sys.stderr, flush=True)
    return rows, cpu_ms, errors


def _bearing_of(table: ArrayTable, where: tuple[float, float, float]) -> float:
    return float(np.degrees(np.arctan2(where[1] - table.centre[1], where[0] - table.centre[0]))) % 360.0


def _background(table: ArrayTable, say: object, rng: np.random.Generator) -> np.ndarray:
    """The four background talkers' table talk, each from where it stands, at unit level."""
    beds = []
    for k, where in enumerate(table.talkers):
        voice = room.BACKGROUND_VOICES[k % len(room.BACKGROUND_VOICES)]
        lines = [say(voice, text).astype(np.float64)  # type: ignore[operator]
                 for text in room.BACKGROUND_LINES[k::len(table.talkers)]]
        dry = np.concatenate([np.concatenate([x, np.zeros(int(rng.integers(1600, 8000)))]) for x in lines])
        wet = table.render(dry, where)
        beds.append(wet / max(np.sqrt(room.active_power(wet[0])), 1e-9))
    n = min(b.shape[1] for b in beds)
    total = sum(b[:, :n] for b in beds)
    assert isinstance(total, np.ndarray)
    return total / max(np.sqrt(room.active_power(total[0])), 1e-9)


def report(rows: list[Row], cpu_ms: list[float], errors: list[float]) -> list[str]:
    def pct(part: int, whole: int) -> str:
        return f"{100 * part / whole:.1f}% ({part}/{whole})" if whole else "-"

    lines = [
        (f"Bearing: {statistics.median(cpu_ms):.1f} ms CPU median, {np.percentile(cpu_ms, 95):.1f} ms p95 an "
         f"utterance; error from the talker's true bearing {statistics.median(errors):.1f} degrees median, "
         f"{np.percentile(errors, 95):.1f} p95 ({len(errors)} utterances)."),
        "",
        ("| array | seats | condition | who decides | right seat refused | wrong seat applied "
         "| seat named by direction | named right |"),
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        named = "-" if r.mode.startswith("voice") else pct(r.named, r.right)
        right = "-" if r.mode.startswith("voice") else pct(r.named_right, r.named)
        lines.append(f"| {r.geometry} | {r.seats} | {r.condition} | {r.mode} | {pct(r.refused, r.right)} "
                     f"| {pct(r.applied, r.wrong)} | {named} | {right} |")
    return lines
