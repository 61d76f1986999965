"""``python -m benchmarks phrasing``: natural phrasing understood, typed and spoken.

Typed: every line of both halves through the game's parser in the line's state
(``corpus.typed``).  Spoken (``--spoken``): each line the parser can say is synthesized
by each voice (``espeak:VOICE``, ``flite:VOICE``), then heard as ``facilitator
recognize`` hears a file, under the grammar of the line's state (narrowed to the intents
legal then, with the answer-only forms while a question is open): pocketsphinx's
hearing is the light mode (``--second-engine off``), and Whisper's verdict on it
(``HybridRecognizer.verify``, with the free-text hearing) is both engines, so one
pocketsphinx decode serves both rows.  A line is understood when the command parsed from
the hearing is the expected one (sure or unsure: an unsure one is asked or echoed).

Table talk: how many lines gave any command (would be answered) and how many a command
that changes the game (``corpus.changes_game``), and of those how many heard sure.

Synthesizers are held out whole: the grammar was tuned typed on the tuning half, and
the speech rules on espeak-ng voices; flite's voices are the held-out synthesizer.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.phrasing import corpus, understanding

DEFAULT_VOICES = ("espeak:en-us", "flite:slt")
#: the synthesizer each voice belongs to, and whether the speech rules were tuned on it
TUNED_SYNTHESIZERS = frozenset({"espeak"})


@dataclass
class Tally:
    lines: int = 0
    right: int = 0
    missed: list[str] | None = None

    def add(self, ok: bool, note: str) -> None:
        self.lines += 1
        self.right += ok
        if not ok:
            self.missed = (self.missed or []) + [note]

    @property
    def share(self) -> float:
        return self.right / self.lines if self.lines else 0.0


def typed_report(half: str, *, meaning: bool = True, addressed: bool = True) -> dict[str, Any]:
    """Every line of ``half`` typed, in its state: the grammar, then the meaning stage
    (``understanding.py``: outcomes, form classes, found-by, registers, table talk);
    ``addressed=False`` reads each line as if heard at the table's microphone with no word
    to the referee (the meaning stage's stricter limit)."""
    rows = understanding.results(half, meaning=meaning, addressed=addressed)
    return {"half": half, "meaning": meaning, "addressed": addressed, **understanding.tally(rows)}


def synthesize(text: str, voice: str, directory: Path) -> bytes:
    """``text`` said by ``voice`` as 16 kHz mono PCM (trimmed as the clip corpus trims)."""
    from benchmarks.corpus import trim
    from facilitator.speech.audio.devices import read_wav

    kind, name = voice.split(":", 1)
    raw = directory / "raw.wav"
    if kind == "flite":
        command = ["flite", "-voice", name, "-t", text, "-o", str(raw)]
    elif kind == "espeak":
        command = ["espeak-ng", "-v", name, "-s", "165", "-w", str(raw), text]
    else:
        raise SystemExit(f"unknown synthesizer in voice {voice!r} (espeak:NAME or flite:NAME)")
    subprocess.run(command, check=True, capture_output=True)
    return trim(read_wav(raw))


def spoken_report(half: str, voices: tuple[str, ...], whisper: bool, limit: int | None,
                  every: int = 1, log: bool = True) -> dict[str, Any]:
    """Every ``every``-th sayable line of ``half`` said by each voice and heard as play hears a
    line: pocketsphinx's phrase (the light mode), and with Whisper the two engines' phrase or,
    when that is no command, Whisper's free words through the meaning stage.  Each row is
    tallied as the typed report is (``understanding.tally``), as said to the referee (a
    phone, push-to-talk) and as heard at the table's microphone with no word to it."""
    from facilitator.speech.engines.grammar_build import recognition_grammar
    from facilitator.speech.engines.hybrid import HybridRecognizer
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

    lines = [line for line in corpus.read(half) if corpus.sayable(line)][::every]
    if limit is not None:
        lines = lines[:limit]
    pocketsphinx = PocketsphinxRecognizer()
    hybrid = None
    if whisper:
        from facilitator.speech.engines.whisper_engine import WhisperRecognizer

        hybrid = HybridRecognizer("always", pocketsphinx=pocketsphinx, whisper=WhisperRecognizer())
    modes = ("light", "both") if hybrid else ("light",)
    results: dict[tuple[str, str, bool], list[understanding.Result]] = defaultdict(list)
    transcripts: list[dict[str, Any]] = []
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for n, line in enumerate(lines, 1):
            grammar = corpus.grammar(line.game)
            decoding = recognition_grammar(grammar, intents=corpus.intents(line), lists=corpus.lists(line.game),
                                           answers=line.state == "question")
            form = understanding.form_class(line)
            for voice in voices:
                pcm = synthesize(line.text, voice, Path(tmp))
                heard: dict[str, Any] = {}
                if hybrid is not None:
                    first = hybrid.hear_first(pcm, decoding)
                    heard["light"] = first.hypothesis
                    heard["both"] = hybrid.verify(pcm, decoding, first)
                else:
                    heard["light"] = pocketsphinx.decode(pcm, decoding)
                row: dict[str, Any] = {"half": half, "voice": voice, "game": line.game, "state": line.state,
                                       "register": line.register, "said": line.text, "want": line.expected}
                for mode in modes:
                    hyp = heard[mode]
                    row[mode] = {"text": hyp.text if hyp else None, "free": list(hyp.free) if hyp else [],
                                 "sure": bool(hyp and hyp.sure)}
                    for addressed in (True, False):
                        found = understanding.heard(line, hyp.text if hyp else "", hyp.free if hyp else (),
                                                    addressed=addressed)
                        took = understanding.taken(line, found, sure=bool(hyp and hyp.sure), addressed=addressed,
                                                   can_be_sure=mode == "both")
                        results[(mode, voice, addressed)].append(understanding.Result(line, found, form, took))
                        row[mode]["addressed" if addressed else "at the table"] = found.to_json()
                transcripts.append(row)
            if log and n % 20 == 0:
                print(f"  {half}: {n}/{len(lines)} lines, {time.monotonic() - began:.0f} s", file=sys.stderr,
                      flush=True)
    rows = []
    for (mode, voice, addressed), got in sorted(results.items()):
        rows.append({"mode": mode, "voice": voice, "addressed": addressed,
                     "held out synthesizer": voice.split(":")[0] not in TUNED_SYNTHESIZERS,
                     **understanding.tally(got)})
    return {"half": half, "lines": len(lines), "every": every, "voices": list(voices),
            "seconds": round(time.monotonic() - began), "rows": rows, "transcripts": transcripts}


def rescored(spoken: dict[str, Any]) -> dict[str, Any]:
    """A spoken report tallied again from its own transcripts (each clip's hearings as
    kept: the phrase, the free words, sure), with the understanding and play's rule as
    they are now: no clip is synthesized or decoded again."""
    lines = {(line.game, line.state, line.text): line for line in corpus.read(spoken["half"])}
    results: dict[tuple[str, str, bool], list[understanding.Result]] = defaultdict(list)
    for row in spoken["transcripts"]:
        line = lines.get((row["game"], row["state"], row["said"]))
        if line is None:
            continue   # the corpus changed since: that line is no longer scored
        form = understanding.form_class(line)
        for mode in ("light", "both"):
            hyp = row.get(mode)
            if hyp is None:
                continue
            for addressed in (True, False):
                found = understanding.heard(line, hyp["text"] or "", tuple(hyp["free"]), addressed=addressed)
                took = understanding.taken(line, found, sure=hyp["sure"], addressed=addressed,
                                           can_be_sure=mode == "both")
                results[(mode, row["voice"], addressed)].append(understanding.Result(line, found, form, took))
    rows = [{"mode": mode, "voice": voice, "addressed": addressed,
             "held out synthesizer": voice.split(":")[0] not in TUNED_SYNTHESIZERS, **understanding.tally(got)}
            for (mode, voice, addressed), got in sorted(results.items())]
    return {**spoken, "rows": rows}


def _print_typed(report: dict[str, Any], lines: bool = True) -> None:
    where = "said to the referee" if report["addressed"] else "at the table, unaddressed"
    print(f"typed, {report['half']}, {where}: {report['understood']}/{report['natural']} understood "
          f"({100 * report['share']:.1f} %) {report['outcomes']}, {report['wrong actions']} wrong actions; found by {report['found by']}; per form "
          f"{report['per form']}; per register {report['per register']}; per game {report['per game']}; table "
          f"talk {len(report['talk answered'])}/{report['talk lines']} answered, "
          f"{len(report['talk changes game'])} changing the game")
    if not lines:
        return
    for miss in report["missed"]:
        print(f"    missed: {miss}")
    for talk in report["talk answered"]:
        print(f"    talk answered: {talk}")


def _print_spoken(report: dict[str, Any]) -> None:
    print(f"spoken, {report['half']} (every {report['every']}. sayable line: {report['lines']} lines, "
          f"{report['seconds']} s):")
    for mode in ("both", "light"):
        for addressed in (True, False):
            rows = [r for r in report["rows"] if r["mode"] == mode and r["addressed"] == addressed]
            if not rows:
                continue
            where = "said to the referee" if addressed else "at the table, unaddressed"
            for row in rows:
                held = " (held-out synthesizer)" if row["held out synthesizer"] else ""
                print(f"  {mode:5} {where:26} {row['voice']:14}{held}: {row['understood']}/{row['natural']} "
                      f"({100 * row['share']:.1f} %) {row['outcomes']}, {row['wrong actions']} wrong actions; per form {row['per form']}; "
                      f"found by {row['found by']}; table talk {len(row['talk answered'])}/{row['talk lines']} "
                      f"answered, {len(row['talk changes game'])} changing the game")
            worst = min(rows, key=lambda r: r["share"])
            print(f"  {mode:5} {where:26} worst voice: {worst['voice']} {100 * worst['share']:.1f} %")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["options"]:
        from benchmarks.phrasing.options import main as options_main

        return options_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m benchmarks phrasing", description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=(*corpus.HALVES, "both"), default="both")
    parser.add_argument("--show-held-out", action="store_true",
                        help="also print the held-out halves' missed lines (not while tuning)")
    parser.add_argument("--spoken", action="store_true", help="also speak the lines (CPU-heavy)")
    parser.add_argument("--spoken-half", choices=corpus.HALVES, default="held_out")
    parser.add_argument("--voices", default=",".join(DEFAULT_VOICES),
                        help="comma-separated espeak:NAME / flite:NAME voices")
    parser.add_argument("--second-engine", choices=("always", "off"), default="always",
                        help="off: pocketsphinx alone (the light mode row only)")
    parser.add_argument("--limit", type=int, default=None, help="speak only the first N lines")
    parser.add_argument("--every", type=int, default=1, help="speak every Nth line (2: half of them)")
    parser.add_argument("--json", type=Path, default=None, help="write the whole report (with transcripts) here")
    parser.add_argument("--rescore", type=Path, default=None,
                        help="tally a --json report's spoken clips again from their kept hearings (no audio)")
    args = parser.parse_args(argv)
    if args.rescore:
        kept = json.loads(args.rescore.read_text(encoding="utf-8"))
        if "spoken" not in kept:
            print(f"{args.rescore.name} holds no spoken report", file=sys.stderr)
            return 2
        _print_spoken(rescored(kept["spoken"]))
        return 0
    halves = corpus.HALVES if args.half == "both" else (args.half,)
    report: dict[str, Any] = {"typed": [typed_report(h, addressed=a) for h in halves for a in (True, False)]}
    for typed in report["typed"]:
        _print_typed(typed, lines=args.show_held_out or typed["half"] not in corpus.HELD_OUT)
    if args.spoken:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        voices = tuple(v.strip() for v in args.voices.split(",") if v.strip())
        spoken = spoken_report(args.spoken_half, voices, args.second_engine == "always", args.limit,
                               max(1, args.every))
        report["spoken"] = spoken
        _print_spoken(spoken)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
    return 0
