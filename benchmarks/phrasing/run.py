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
from facilitator.command import Command

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
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    talk: dict[tuple[str, str], dict[str, list[str]]] = defaultdict(lambda: {"answered": [], "changes game": [],
                                                                              "sure change": []})
    transcripts: list[dict[str, Any]] = []
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for n, line in enumerate(lines, 1):
            grammar = corpus.grammar(line.game)
            lists = corpus.lists(line.game)
            intents = corpus.intents(line)
            answers = line.state == "question"
            decoding = recognition_grammar(grammar, intents=intents, lists=lists, answers=answers)
            for voice in voices:
                pcm = synthesize(line.text, voice, Path(tmp))
                heard: dict[str, Any] = {}
                if hybrid is not None:
                    first = hybrid.hear_first(pcm, decoding)
                    heard["light"] = first.hypothesis
                    heard["both"] = hybrid.verify(pcm, decoding, first)
                    whisper_heard = (hybrid.whisper.last or {}).get("heard")
                else:
                    heard["light"] = pocketsphinx.decode(pcm, decoding)
                    whisper_heard = None
                row: dict[str, Any] = {"half": half, "voice": voice, "game": line.game, "state": line.state,
                                       "said": line.text, "want": line.expected, "whisper free text": whisper_heard}
                for mode in modes:
                    hyp = heard[mode]
                    parsed = grammar.parse(hyp.text, intents=intents, lists=lists, typed=False,
                                           answers=answers) if hyp is not None else None
                    command = parsed if isinstance(parsed, Command) else None
                    row[mode] = {"text": hyp.text if hyp else None, "command": command.canonical if command else None,
                                 "sure": bool(hyp and hyp.sure)}
                    if line.talk:
                        if command is not None:
                            entry = f"{line.text!r} -> {command.canonical}"
                            talk[(mode, voice)]["answered"].append(entry)
                            if corpus.changes_game(line.game, command.intent):
                                talk[(mode, voice)]["changes game"].append(entry)
                                if hyp is not None and hyp.sure:
                                    talk[(mode, voice)]["sure change"].append(entry)
                        continue
                    ok = command is not None and command.canonical.lower() == (line.expected or "").lower()
                    tallies[(mode, voice)].add(ok, f"{line.game} [{line.state}] {line.text!r} heard "
                                                   f"{hyp.text if hyp else None!r} -> "
                                                   f"{command.canonical if command else None} (want {line.expected})")
                transcripts.append(row)
            if log and n % 20 == 0:
                print(f"  {half}: {n}/{len(lines)} lines, {time.monotonic() - began:.0f} s", file=sys.stderr,
                      flush=True)
    rows = []
    for mode in modes:
        for voice in voices:
            tally = tallies[(mode, voice)]
            spoken_talk = talk[(mode, voice)]
            talk_total = sum(1 for line in lines if line.talk)
            rows.append({"mode": mode, "voice": voice,
                         "held out synthesizer": voice.split(":")[0] not in TUNED_SYNTHESIZERS,
                         "natural": tally.lines, "understood": tally.right, "share": round(tally.share, 3),
                         "missed": tally.missed or [], "talk lines": talk_total,
                         "talk answered": spoken_talk["answered"], "talk changes game": spoken_talk["changes game"],
                         "talk sure change": spoken_talk["sure change"]})
    return {"half": half, "lines": len(lines), "every": every, "voices": list(voices), "seconds": round(time.monotonic() - began),
            "rows": rows, "transcripts": transcripts}


def _print_typed(report: dict[str, Any]) -> None:
    print(f"typed, {report['half']}: {report['understood']}/{report['natural']} understood "
          f"({100 * report['share']:.1f} %); per game {report['per game']}; table talk "
          f"{len(report['talk answered'])}/{report['talk lines']} answered, "
          f"{len(report['talk changes game'])} changing the game")
    for miss in report["missed"]:
        print(f"    missed: {miss}")
    for talk in report["talk answered"]:
        print(f"    talk answered: {talk}")


def _print_spoken(report: dict[str, Any]) -> None:
    print(f"spoken, {report['half']} (every {report['every']}. sayable line: {report['lines']} lines, "
          f"{report['seconds']} s):")
    for mode in ("both", "light"):
        rows = [r for r in report["rows"] if r["mode"] == mode]
        if not rows:
            continue
        for row in rows:
            held = " (held-out synthesizer)" if row["held out synthesizer"] else ""
            print(f"  {mode:5} {row['voice']:16}{held}: {row['understood']}/{row['natural']} "
                  f"({100 * row['share']:.1f} %); table talk {len(row['talk answered'])}/{row['talk lines']} "
                  f"answered, {len(row['talk changes game'])} changing the game "
                  f"({len(row['talk sure change'])} sure)")
        worst = min(rows, key=lambda r: r["share"])
        print(f"  {mode:5} worst voice: {worst['voice']} {100 * worst['share']:.1f} %")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["options"]:
        from benchmarks.phrasing.options import main as options_main

        return options_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m benchmarks phrasing", description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("tuning", "held_out", "both"), default="both")
    parser.add_argument("--spoken", action="store_true", help="also speak the lines (CPU-heavy)")
    parser.add_argument("--spoken-half", choices=corpus.HALVES, default="held_out")
    parser.add_argument("--voices", default=",".join(DEFAULT_VOICES),
                        help="comma-separated espeak:NAME / flite:NAME voices")
    parser.add_argument("--second-engine", choices=("always", "off"), default="always",
                        help="off: pocketsphinx alone (the light mode row only)")
    parser.add_argument("--limit", type=int, default=None, help="speak only the first N lines")
    parser.add_argument("--every", type=int, default=1, help="speak every Nth line (2: half of them)")
    parser.add_argument("--json", type=Path, default=None, help="write the whole report (with transcripts) here")
    args = parser.parse_args(argv)
    halves = corpus.HALVES if args.half == "both" else (args.half,)
    report: dict[str, Any] = {"typed": [typed_report(h) for h in halves]}
    for typed in report["typed"]:
        _print_typed(typed)
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
