"""pocketsphinx's out-of-grammar rejection in a room: which voice the decoded words must explain.

``python -m benchmarks rejection [--quick]``

pocketsphinx refuses a hearing when its words leave too much of the voice under
silence or fillers (``pocketsphinx_engine``).  What counts as voice decides
whether a correct hearing survives a reverberant room: a word's reverb tail is
loud, lies after the word, and is decoded as silence.  This benchmark says each
command and each chatter line of every game in a room (reverb, steady noise,
optionally background talk), cuts it with the product's endpointer, decodes it
with pocketsphinx under the game's whole grammar with no rejection, and then
applies each candidate rule of what counts as voice:

* ``own floor``: a 10 ms frame 12 dB above the utterance's own quietest tenth
  (the rule before this benchmark);
* ``room floor``: 12 dB above the room's floor as the endpointer tracked it;
* ``onsets`` (the product's rule since): the own-floor mask, but a frame the
  decoder left to silence right after a word is that word's decay (its release,
  the room's reverb) until the level rises 3 dB above its lowest since the word,
  0.3 s at most (``pocketsphinx_engine.unexplained_frames``); ``unbounded``
  drops the 0.3 s limit.

For each rule: correct hearings kept (of those pocketsphinx decoded right) and
chatter lines refused (of those pocketsphinx forced onto a phrase).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from benchmarks.corpus import CHATTER, GAMES, sample_phrases
from benchmarks.session import room
from benchmarks.session.voices import HELD_OUT_VOICES, TUNING_VOICES, Voices, available
from facilitator.command import Command
from facilitator.games import find_game
from facilitator.grammar import load_grammar
from facilitator.speech.audio.endpoint import Endpointer
from facilitator.speech.base import FRAME_BYTES, SAMPLE_RATE, Frame, Segment
from facilitator.speech.engines.grammar_build import recognition_grammar
from facilitator.speech.engines.pocketsphinx_engine import (
    MAX_DECAY_SECONDS,
    PocketsphinxRecognizer,
    frame_levels,
    unexplained_frames,
    voiced_frames,
)

CONDITIONS = {"quiet": None, "talk-20": 20.0}
ROOMS = {"own room (RT60 0.35 s)": 0.35, "livelier room (RT60 0.5 s)": 0.5}


@dataclass
class Heard:
    game: str
    room: str
    condition: str
    voice: str
    text: str
    want: str          # canonical command, "" for chatter
    got: str           # canonical command pocketsphinx decoded ("" none)
    shares: dict[str, tuple[float, float]]   # rule -> (share, seconds) unexplained


def stream(dry: np.ndarray, ir: np.ndarray, snr_db: float | None, seed: int,
           talk: np.ndarray | None) -> Iterator[Frame]:
    """Two seconds of the room, the line, and 1.5 s of the room, as the microphone hears it."""
    wet = room.reverb(room.level(dry, room.SPEECH_DBFS), ir)
    before, after = 2 * SAMPLE_RATE, int(1.5 * SAMPLE_RATE)
    n = before + len(wet) + after
    bed = room.pink_noise(n / SAMPLE_RATE + 0.1, seed)[:n] * (32768.0 * 10 ** ((room.SPEECH_DBFS - room.NOISE_BELOW_DB) / 20))
    if snr_db is not None and talk is not None:
        start = random.Random(seed).randrange(0, len(talk) - n)
        bed += talk[start: start + n] * (32768.0 * 10 ** ((room.SPEECH_DBFS - snr_db) / 20))
    bed[before: before + len(wet)] += wet
    pcm = np.clip(np.round(bed), -32768, 32767).astype("<i2").tobytes()
    for i in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES):
        yield Frame(pcm[i: i + FRAME_BYTES], i / 2 / SAMPLE_RATE)


def cut(frames: Iterator[Frame], line_start: float) -> tuple[Segment | None, float]:
    """The endpointer's utterance that holds the line, and the room floor (dB) it had then."""
    endpointer = Endpointer()
    best: tuple[Segment | None, float] = (None, 0.0)
    for segment in endpointer.segments(frames):
        if segment.end > line_start and (best[0] is None or segment.end - segment.start > best[0].end - best[0].start):
            best = (segment, endpointer.noise_floor())
    return best


def levels(pcm: bytes) -> np.ndarray:
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    count = len(samples) // 160
    frames = samples[: count * 160].reshape(count, 160)
    return np.asarray(10 * np.log10(np.mean(frames**2, axis=1) + 1.0))


def rules(pcm: bytes, floor_db: float) -> dict[str, Callable[[], list[bool]]]:
    level = levels(pcm)
    return {
        "own floor": lambda: voiced_frames(pcm),
        "room floor": lambda: [bool(v) for v in level > max(floor_db + 12.0, 40.0)],
    }


def unexplained(rec: PocketsphinxRecognizer, voiced: list[bool], pcm: bytes, onsets: bool,
                max_decay_seconds: float = MAX_DECAY_SECONDS) -> tuple[float, float]:
    """The last decode's unexplained share under a voicing mask; ``onsets``: a word's decay is
    explained (the product's rule), else every voiced frame under silence counts."""
    segs = list(rec._decoder.seg())
    if not onsets:
        return unexplained_frames(segs, voiced, frame_levels(pcm), rise_db=0.0, max_decay_seconds=0.0)
    return unexplained_frames(segs, voiced, frame_levels(pcm), max_decay_seconds=max_decay_seconds)


def run(quick: bool) -> list[Heard]:
    rng = random.Random(7)
    voices = Voices()
    rec = PocketsphinxRecognizer(max_unexplained=None)
    held = [v for v in HELD_OUT_VOICES if available(v) is None and not v.startswith("piper")]
    specs = list(TUNING_VOICES[:2] if quick else TUNING_VOICES) + held[: 2 if quick else 3]
    talk = room.background_bed(voices.say, 120.0, 5)
    out: list[Heard] = []
    try:
        for game in GAMES:
            grammar = load_grammar(game)
            lists = find_game(game).recognition_lists() or None
            decoding = recognition_grammar(grammar, lists=lists)
            lines: list[tuple[str, str]] = [(p, c.canonical.lower())
                                            for p, c in sample_phrases(game, 1 if quick else 2, rng)]
            lines += [(c, "") for c in rng.sample(CHATTER, 6 if quick else 15)]
            for room_name, rt60 in ROOMS.items():
                ir = room.impulse_response(rt60=rt60, seed=3)
                for condition, snr in CONDITIONS.items():
                    for k, (text, want) in enumerate(lines):
                        spec = specs[k % len(specs)]
                        dry = voices.say(spec, text, 165)
                        segment, floor = cut(stream(dry, ir, snr, k, talk), 2.0)
                        if segment is None:
                            continue
                        hyp = rec.decode(segment.pcm, decoding)
                        got = ""
                        if hyp is not None:
                            parsed = grammar.parse(hyp.text, typed=False, lists=lists)
                            got = parsed.canonical.lower() if isinstance(parsed, Command) else ""
                        shares: dict[str, tuple[float, float]] = {}
                        if got:
                            for name, mask in rules(segment.pcm, floor).items():
                                shares[name] = unexplained(rec, mask(), segment.pcm, False)
                            shares["onsets"] = unexplained(rec, voiced_frames(segment.pcm), segment.pcm, True)
                            shares["onsets, unbounded"] = unexplained(rec, voiced_frames(segment.pcm),
                                                                      segment.pcm, True, 99.0)
                        out.append(Heard(game, room_name, condition, spec, text, want, got, shares))
    finally:
        voices.close()
    return out


def kept(share: tuple[float, float], limit: float = 0.1, seconds: float = 0.15) -> bool:
    return not (share[0] > limit and share[1] >= seconds)


def report(heard: list[Heard]) -> str:
    names = ("own floor", "room floor", "onsets", "onsets, unbounded")
    rows = ["| room | condition | correct hearings | " + " | ".join(f"kept, {n}" for n in names)
            + " | chatter forced onto a phrase | " + " | ".join(f"refused, {n}" for n in names) + " |",
            "|---|---|---|" + "---|" * len(names) + "---|" + "---|" * len(names)]
    for room_name in ROOMS:
        for condition in CONDITIONS:
            part = [h for h in heard if h.room == room_name and h.condition == condition]
            right = [h for h in part if h.want and h.got == h.want]
            forced = [h for h in part if not h.want and h.got]
            cells = [f"{sum(kept(h.shares[n]) for h in right)} ({100 * sum(kept(h.shares[n]) for h in right) / max(1, len(right)):.0f}%)" for n in names]
            refused = [f"{sum(not kept(h.shares[n]) for h in forced)}" for n in names]
            rows.append(f"| {room_name} | {condition} | {len(right)} | " + " | ".join(cells)
                        + f" | {len(forced)} of {sum(1 for h in part if not h.want)} | " + " | ".join(refused) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks rejection", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--dump", metavar="FILE.jsonl", help="every line heard, with its shares under each rule")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    heard = run(args.quick)
    if args.dump:
        import json
        from dataclasses import asdict

        with open(args.dump, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(asdict(h)) + "\n" for h in heard)
    print(report(heard))
    print(f"\n{len(heard)} lines in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
