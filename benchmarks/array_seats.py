"""Who is speaking at a microphone array: ``python -m benchmarks.speakers --array``.

Each table is simulated with pyroomacoustics (``benchmarks/session/array_room.py``) in
one of its rooms (``--rooms``: the lounge the thresholds were chosen in, and kitchen,
den and hall, where nothing was chosen: 0.3-0.8 s of reverberation, the array off the
room's centre and turned, seats at irregular angles and distances, every line said
from a point it leans to), with 4 or 6 seats, for the ReSpeaker 4-Mic HAT and the
ReSpeaker USB v2.  Voices: *distinct* (a different held-out voice at every seat) and
*alike* (one voice at two seats side by side, every pair: the worst case a voiceprint
meets).  Every seat enrols ("I'm ready to play") from where it sits; every line is
rendered through the room's response from its talker to each microphone; steady noise
(independent at each microphone, 35 dB below) and, for ``talk-20``/``talk-10``, the
four background talkers' own lines rendered from where they stand, 20 or 10 dB below
the players at the array, are added.

Per utterance: the bearing (``direction.py``, its CPU time counted), the seat the
direction names (``seats.seat_of``, with each seat's bearing adapting as play does),
the voice's similarity to each enrolled seat when the speakers extra is installed
(the first raw microphone, as the recognizer hears it), and then play's own rules:
``speakers.rule`` for the voice alone (one microphone) and ``seats.combined_rule``
for the array.  Every seat says every command; each command is ruled once as its
own seat's (right seat) and once as every other seat's (wrong seat).  Where the
array's rule asks the owner by name ("Ann, was that you?"), the speaker says "yes"
from where it sits and ``seats.answer_from`` says whether that yes is the owner's:

* right seat *refused*: refused, taken for a stranger, or asked and its own yes not
  taken (the command is then not applied);
* wrong seat *applied*: taken at once (a wrong seat asked is not applied: the owner
  did not say it, and says no or nothing); *own yes taken*: the worst case beside it,
  a wrong seat asked whose speaker answers "yes" for the owner and is taken.

Recognition is not in the loop here.  The light mode (no voiceprints) is the
direction alone.
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
ROOMS = ("kitchen", "den", "hall")
VOICE_SETS = ("distinct", "alike")
MODES = ("voice (one microphone)", "array + voice", "array alone (light)")


@dataclass
class Row:
    room: str
    geometry: str
    seats: int
    voices: str
    condition: str
    mode: str
    right: int = 0
    refused: int = 0
    wrong: int = 0
    applied: int = 0
    named: int = 0
    named_right: int = 0
    asked_right: int = 0
    asked_wrong: int = 0
    yes_taken_wrong: int = 0


def voices_for(kind: str, held_out: tuple[str, ...], count: int) -> dict[int, str]:
    """Seat -> voice: ``distinct`` (a different voice at every seat, as far as there are
    voices) or ``alike`` (seats 1 and 2 share one, 3 and 4 the next, ...)."""
    if kind == "distinct":
        return {s: held_out[(s - 1) % len(held_out)] for s in range(1, count + 1)}
    return {s: held_out[((s - 1) // 2) % len(held_out)] for s in range(1, count + 1)}


def measure(voices: object, embedder: object | None, conditions: tuple[str, ...], commands: tuple[str, ...],
            held_out: tuple[str, ...], seed: int = 3, rooms: tuple[str, ...] = ROOMS,
            voice_sets: tuple[str, ...] = VOICE_SETS) -> tuple[list[Row], list[float], list[float]]:
    """Rows for every room, geometry, seat count, voice set and condition; the DOA CPU times
    (ms) and the angle errors (degrees) of every play utterance."""
    say = voices.say  # type: ignore[attr-defined]
    rows: list[Row] = []
    cpu_ms: list[float] = []
    errors: list[float] = []
    for room_name in rooms:
        for name in GEOMETRY_NAMES:
            geometry = GEOMETRIES[name]
            find = finder(geometry)
            for count in SEAT_COUNTS:
                table = ArrayTable(geometry, seats=count, seed=seed + count, room=room_name)
                for kind in voice_sets:
                    voice_of = voices_for(kind, held_out, count)
                    for condition in conditions:
                        out = _table_rows(table, find, say, embedder, voice_of, condition, commands, seed,
                                          cpu_ms, errors, (room_name, name, count, kind))
                        rows.extend(out)
                        print(f"{room_name}, {name}, {count} seats, {kind}, {condition}: done", file=sys.stderr,
                              flush=True)
    return rows, cpu_ms, errors


def _table_rows(table: ArrayTable, find: object, say: object, embedder: object | None,
                voice_of: dict[int, str], condition: str, commands: tuple[str, ...], seed: int,
                cpu_ms: list[float], errors: list[float], key: tuple[str, str, int, str]) -> list[Row]:
    snr = {"quiet": None, "talk-20": 20.0, "talk-10": 10.0}[condition]
    mix_rng = np.random.default_rng(seed)
    lean_rng = np.random.default_rng(seed + 1)
    talk = _background(table, say, mix_rng) if snr is not None else None
    count = table.seats
    bearing_of = find.bearing  # type: ignore[attr-defined]

    def hear(pcm: np.ndarray, where: tuple[float, float, float]) -> np.ndarray:
        wet = table.render(pcm.astype(np.float64), where)
        unit = np.sqrt(room.active_power(wet[0]))
        wet = wet / max(unit, 1e-9) * 32768 * 10 ** (room.SPEECH_DBFS / 20)
        level = 32768 * 10 ** (room.SPEECH_DBFS / 20)
        out = wet + mix_rng.normal(0, level * 10 ** (-room.NOISE_BELOW_DB / 20), wet.shape)
        if talk is not None and snr is not None:
            start = int(mix_rng.integers(0, talk.shape[1] - wet.shape[1]))
            out = out + talk[:, start:start + wet.shape[1]] * level * 10 ** (-snr / 20)
        return np.clip(out, -32768, 32767)

    def embed(heard: np.ndarray) -> np.ndarray:
        return np.asarray(embedder.embed_samples((heard[0] / 32768).astype(np.float32)))  # type: ignore[union-attr]

    prints: dict[int, list[np.ndarray]] = {}
    bearings: dict[int, float] = {}
    for seat in range(1, count + 1):
        heard = hear(say(voice_of[seat], ENROLL_LINE), table.leaned(seat, lean_rng))  # type: ignore[operator]
        found = bearing_of(heard)
        if found is not None and found.clarity >= by_direction.DIRECTION.min_clarity:
            bearings[seat] = found.degrees
        if embedder is not None:
            prints[seat] = [embed(heard)]
    modes = [m for m in MODES if embedder is not None or m == "array alone (light)"]
    out = {m: Row(*key, condition, m) for m in modes}
    for text in commands:
        for seat in range(1, count + 1):
            where = table.leaned(seat, lean_rng)
            heard = hear(say(voice_of[seat], text), where)  # type: ignore[operator]
            began = time.process_time()
            found = bearing_of(heard)
            cpu_ms.append((time.process_time() - began) * 1000)
            if found is not None:
                errors.append(apart(found.degrees, table.bearing_of(where)))
            by = by_direction.seat_of(found, bearings)
            if by is not None and found is not None:
                bearings[by] = by_direction.adapted(bearings[by], found)
            scores = similarities(embed(heard), prints) if embedder is not None else {}
            yes: object = None   # the speaker's "yes" from where it sits: heard only when asked
            for mode, row in out.items():
                if mode != "voice (one microphone)":
                    row.named += by is not None
                    row.named_right += by == seat
                for owner in range(1, count + 1):
                    acting = frozenset({owner})
                    if mode == "voice (one microphone)":
                        ruling: str = rule(scores, acting, DEFAULT)
                    else:
                        ruling = by_direction.combined_rule(by, scores if mode == "array + voice" else {},
                                                            acting, bearings)
                    taken = ruling == "take"
                    if ruling == "ask":
                        if yes is None:
                            yes = bearing_of(hear(say(voice_of[seat], "yes"), where))  # type: ignore[operator]
                        taken = by_direction.answer_from(yes, owner, bearings)  # type: ignore[arg-type]
                    if owner == seat:
                        row.right += 1
                        row.refused += not taken
                        row.asked_right += ruling == "ask"
                    else:
                        row.wrong += 1
                        row.applied += ruling == "take"
                        row.asked_wrong += ruling == "ask"
                        row.yes_taken_wrong += ruling == "ask" and taken
    return list(out.values())


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
        ("| room | array | seats | voices | condition | who decides | right seat refused | wrong seat applied "
         "| asked by name (right / wrong seat) | a wrong seat's own yes taken | seat named by direction "
         "| named right |"),
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        voice = r.mode.startswith("voice")
        named = "-" if voice else pct(r.named, r.right)
        right = "-" if voice else pct(r.named_right, r.named)
        asked = "-" if voice else f"{r.asked_right} / {r.asked_wrong}"
        taken = "-" if voice else pct(r.yes_taken_wrong, r.asked_wrong)
        lines.append(f"| {r.room} | {r.geometry} | {r.seats} | {r.voices} | {r.condition} | {r.mode} "
                     f"| {pct(r.refused, r.right)} | {pct(r.applied, r.wrong)} | {asked} | {taken} "
                     f"| {named} | {right} |")
    return lines


def summary(rows: list[Row]) -> list[str]:
    """Each condition and mode over every room, array, seat count and voice set."""
    def pct(part: int, whole: int) -> str:
        return f"{100 * part / whole:.1f}% ({part}/{whole})" if whole else "-"

    lines = ["| condition | who decides | right seat refused | wrong seat applied | a wrong seat's own yes taken |",
             "|---|---|---|---|---|"]
    for condition in dict.fromkeys(r.condition for r in rows):
        for mode in MODES:
            some = [r for r in rows if r.condition == condition and r.mode == mode]
            if some:
                lines.append(f"| {condition} | {mode} | {pct(sum(r.refused for r in some), sum(r.right for r in some))} "
                             f"| {pct(sum(r.applied for r in some), sum(r.wrong for r in some))} "
                             f"| {pct(sum(r.yes_taken_wrong for r in some), sum(r.asked_wrong for r in some))} |")
    return lines
