"""The clip table of the engines: plain-JSGF reference, pocketsphinx as shipped, Whisper, and the two together.

``python -m benchmarks engines [--quick] [--reuse-corpus] [--raw FILE]
[--pocketsphinx-from RAW]`` decodes every
corpus clip (``corpus.py``; held-out voices include flite) in every condition once
per engine, under the whole game grammar (as ``facilitator recognize``):

* **reference**: a plain pocketsphinx JSGF decode (no rejection checks) with a
  grammar of just the game's own commands, no table controls or queries: the
  baseline issue 17 names;
* **pocketsphinx alone**: the light mode (whole grammar, its rejection checks on);
* **whisper**: ``WhisperRecognizer`` alone (legal phrases rescored, chatter refused);
* **both**: ``HybridRecognizer`` (mode ``always``), decided by
  ``hybrid.decide`` on the two engines' outputs for the same clip (the same
  function the recognizer calls, so the rows are what play would do).

Accuracy is counted over the game's own commands (what the reference can say)
and over all commands; chatter is each chatter clip under each game's grammar.
The table goes into ``benchmarks/RESULTS.md`` between the ``clips`` markers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from multiprocessing import get_context
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import corpus
from facilitator.speech.audio.devices import read_wav

CONDITIONS = ("clean", "babble-20", "babble-10", "babble-5", "white-10")
QUICK_CONDITIONS = ("clean", "babble-10", "babble-5", "white-10")
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
START, END = "<!-- clips:start -->", "<!-- clips:end -->"

_w: dict[str, Any] = {}


def _init(directory: str, clips: list[corpus.Clip], reused: str | None = None) -> None:
    from facilitator.games import find_game
    from facilitator.grammar import load_grammar
    from facilitator.speech.engines.grammar_build import recognition_grammar
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer
    from facilitator.speech.engines.whisper_engine import WhisperRecognizer

    _w["dir"] = Path(directory)
    _w["clips"] = clips
    _w["babble"] = corpus.babble_tracks(Path(directory))
    _w["grammar"], _w["lists"], _w["whole"], _w["own"] = {}, {}, {}, {}
    for game in corpus.GAMES:
        grammar = load_grammar(game)
        lists = find_game(game).recognition_lists() or None
        own = sorted({f.intent for f in grammar.forms if not f.typed_only} - grammar.common_intents)
        _w["grammar"][game], _w["lists"][game] = grammar, lists
        _w["whole"][game] = recognition_grammar(grammar, lists=lists)
        _w["own"][game] = recognition_grammar(grammar, intents=own, lists=lists)
    _w["ref"] = PocketsphinxRecognizer(max_unexplained=None)
    _w["ps"] = PocketsphinxRecognizer()
    _w["whisper"] = WhisperRecognizer()
    if reused:
        rows = json.loads(Path(reused).read_text(encoding="utf-8"))["rows"]
        _w["pocketsphinx"] = {(r["clip"], r["condition"], r["game"]): r for r in rows}


def _canonical(game: str, text: str) -> str:
    from facilitator.command import Command

    if not text:
        return ""
    parsed = _w["grammar"][game].parse(text, typed=False, lists=_w["lists"][game])
    return parsed.canonical if isinstance(parsed, Command) else ""


def _task(job: tuple[int, str]) -> list[dict[str, Any]]:
    index, condition = job
    clip: corpus.Clip = _w["clips"][index]
    kind, _, snr = condition.partition("-")
    pcm = read_wav(_w["dir"] / "clean" / clip.file)
    pcm, _ = corpus.mix(pcm, kind, float(snr or 0), seed=index * 31 + len(condition), babble=_w["babble"])
    out = []
    for game in ([clip.game] if clip.want else list(corpus.GAMES)):
        whole = _w["whole"][game]
        kept = _w.get("pocketsphinx", {}).get((index, condition, game))
        if kept is not None:   # pocketsphinx's rows of an earlier run of the same clips (``--pocketsphinx-from``)
            ref_text, ps_text, ps_last, ps_seconds = kept["ref"], kept["ps"], dict(kept["ps_last"]), kept["ps_seconds"]
        else:
            ref = _w["ref"].decode(pcm, _w["own"][game])
            began = time.perf_counter()
            ps = _w["ps"].decode(pcm, whole)
            ps_seconds = time.perf_counter() - began
            ps_last = dict(_w["ps"].last)
            ref_text, ps_text = _canonical(game, ref.text if ref else ""), ps.text if ps else ""
        began = time.perf_counter()
        hint = ps_last.get("text") if ps_last.get("text") in whole.phrases else None
        _w["whisper"].decode(pcm, whole, hint=hint)
        wh_seconds = time.perf_counter() - began
        ranked = [(s.phrase, s.logprob, s.similarity, s.free) for s in _w["whisper"].last.get("ranked", [])]
        out.append({
            "clip": index, "condition": condition, "game": game,
            "ref": ref_text,
            "ps": ps_text,
            "ps_last": {k: v for k, v in ps_last.items() if isinstance(v, (int, float, str))},
            "ranked": ranked, "heard": _w["whisper"].last.get("heard", []),
            "ps_seconds": ps_seconds, "whisper_seconds": wh_seconds, "audio_seconds": len(pcm) / 32000,
        })
    return out


def run(directory: Path, clips: list[corpus.Clip], conditions: tuple[str, ...], workers: int,
        reused: Path | None = None) -> list[dict[str, Any]]:
    jobs = [(i, c) for c in conditions for i in range(len(clips))]
    rows: list[dict[str, Any]] = []
    with get_context("spawn").Pool(workers, initializer=_init,
                                   initargs=(str(directory), clips, str(reused) if reused else None)) as pool:
        for done, part in enumerate(pool.imap_unordered(_task, jobs, chunksize=4), 1):
            rows += part
            if done % 100 == 0:
                print(f"  {done}/{len(jobs)} clips decoded", file=sys.stderr, flush=True)
    return rows


def decisions(rows: list[dict[str, Any]], limits: Any = None) -> dict[str, list[tuple[dict[str, Any], str, bool]]]:
    """Per engine row: (raw row, canonical command or "", sure); ``limits``: ``hybrid.Thresholds`` (default theirs)."""
    from facilitator.command import Command
    from facilitator.games import find_game
    from facilitator.grammar import load_grammar
    from facilitator.speech.engines.grammar_build import recognition_grammar
    from facilitator.speech.engines.hybrid import Scores, decide

    parse_cache: dict[tuple[str, str], str] = {}
    commands = {game: recognition_grammar(load_grammar(game), lists=find_game(game).recognition_lists() or None
                                          ).commands for game in corpus.GAMES}

    def canonical(game: str, text: str) -> str:
        key = (game, text)
        if key not in parse_cache:
            parsed = load_grammar(game).parse(text, typed=False, lists=find_game(game).recognition_lists() or None) \
                if text else None
            parse_cache[key] = parsed.canonical if isinstance(parsed, Command) else ""
        return parse_cache[key]

    from facilitator.speech.engines.hybrid import DEFAULT

    limits = limits or DEFAULT
    out: dict[str, list[tuple[dict[str, Any], str, bool]]] = defaultdict(list)
    for row in rows:
        game = row["game"]
        out["reference (plain JSGF, game commands only)"].append((row, row["ref"], False))
        out["pocketsphinx alone (light mode)"].append((row, canonical(game, row["ps"]), False))
        scores = [Scores(*r) for r in row["ranked"]]
        for mode in ("whisper", "always"):
            hyp = decide(row["ps"] or None, scores, mode, limits, commands[game])
            label = {"whisper": "Whisper alone (rescoring)", "always": "both engines (product default)"}[mode]
            out[label].append((row, canonical(game, hyp.text) if hyp else "", hyp.sure if hyp else False))
    return out


def table(clips: list[corpus.Clip], rows: list[dict[str, Any]], conditions: tuple[str, ...]) -> list[str]:
    from facilitator.grammar import load_grammar

    common = load_grammar(None).common_intents
    lines = ["| engine | held-out voices: " + " | ".join(conditions) + " | all voices, game commands only: "
             + " | ".join(conditions) + " | wrong | sure but wrong | chatter as command (all conditions) | "
             "whisper ran |",
             "|---|" + "---|" * (2 * len(conditions)) + "---|---|---|---|"]
    for label, decided in decisions(rows).items():
        held: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        own: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        wrong = sure_wrong = commands = chat = chat_total = ran = 0
        for row, got, sure in decided:
            clip = clips[row["clip"]]
            if not clip.want:
                chat_total += 1
                chat += bool(got)
                continue
            commands += 1
            right = got.lower() == clip.want.lower()
            wrong += bool(got) and not right
            sure_wrong += bool(got) and not right and sure
            if clip.held_out:
                held[row["condition"]][1] += 1
                held[row["condition"]][0] += right
            if clip.intent not in common:
                own[row["condition"]][1] += 1
                own[row["condition"]][0] += right
            ran += label.startswith(("both", "Whisper"))
        cells = [f"{100 * held[c][0] / max(1, held[c][1]):.1f}%" for c in conditions]
        cells += [f"{100 * own[c][0] / max(1, own[c][1]):.1f}%" for c in conditions]
        share = f"{100 * ran / max(1, commands):.0f}%" if ran else "-"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {wrong}/{commands} | {sure_wrong} | "
                     f"{100 * chat / max(1, chat_total):.1f}% ({chat}/{chat_total}) | {share} |")
    return lines


def timing(rows: list[dict[str, Any]]) -> list[str]:
    import statistics

    ps = [r["ps_seconds"] for r in rows]
    wh = [r["whisper_seconds"] for r in rows]
    return [(f"Decode time per utterance (median / 95th percentile, 2 worker processes on a shared 2-core "
             f"machine): pocketsphinx {statistics.median(ps) * 1000:.0f} / "
             f"{sorted(ps)[int(0.95 * len(ps))] * 1000:.0f} ms; "
             f"Whisper (encode, n-best, scoring) {statistics.median(wh) * 1000:.0f} / "
             f"{sorted(wh)[int(0.95 * len(wh))] * 1000:.0f} ms.")]


def write(text: str) -> None:
    old = RESULTS.read_text(encoding="utf-8")
    block = f"{START}\n{text}\n{END}"
    if START in old and END in old:
        head, rest = old.split(START, 1)
        new = head + block + rest.split(END, 1)[1]
    else:
        new = old.rstrip("\n") + "\n\n## Clip table of the engines (issue 17)\n\n" + block + "\n"
    RESULTS.write_text(new, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks engines", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reuse-corpus", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--raw", type=Path, help="save (or, with --reuse-raw, read) the per-decode rows here")
    parser.add_argument("--reuse-raw", action="store_true", help="tabulate --raw without decoding again")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--pocketsphinx-from", type=Path, metavar="RAW",
                        help="take the reference and pocketsphinx rows from an earlier --raw file of the same "
                             "corpus and decode only Whisper (when only Whisper's side changed)")
    args = parser.parse_args(argv)
    directory = Path(__file__).resolve().parent / "corpus"
    os.environ.setdefault("FACILITATOR_DATA_DIR", tempfile.mkdtemp(prefix="facilitator-bench-"))
    began = time.perf_counter()
    if args.reuse_raw and args.raw:
        saved = json.loads(args.raw.read_text(encoding="utf-8"))
        clips, rows, conditions = corpus.load(directory), saved["rows"], tuple(saved["conditions"])
        seconds, load = saved.get("seconds", 0.0), saved.get("load", "?")
        reused = bool(saved.get("pocketsphinx_from"))
    else:
        clips = corpus.load(directory) if args.reuse_corpus else corpus.build(directory, quick=args.quick)
        conditions = QUICK_CONDITIONS if args.quick else CONDITIONS
        rows = run(directory, clips, conditions, args.workers, args.pocketsphinx_from)
        seconds, load = time.perf_counter() - began, f"{os.getloadavg()[1]:.1f}"
        reused = args.pocketsphinx_from is not None
        if args.raw:
            args.raw.write_text(json.dumps({"conditions": conditions, "rows": rows, "seconds": seconds,
                                            "load": load, "pocketsphinx_from": reused}), encoding="utf-8")
    from benchmarks.run import machine

    n_cmd = sum(1 for c in clips if c.want)
    lines = [f"`python -m benchmarks engines{' --quick' if args.quick else ''}` on {machine()}; "
             f"{n_cmd} command clips ({sum(1 for c in clips if c.want and c.held_out)} in held-out voices), "
             f"{sum(1 for c in clips if not c.want)} chatter clips x 4 game grammars; whole game grammar "
             f"(as `facilitator recognize`); decoding took {seconds:.0f} s with a load average of {load} "
             f"(other work on the machine)"
             + ("; the reference and pocketsphinx rows are an earlier run's of the same clips (unchanged code), "
                "only Whisper decoded again" if reused else "") + ".", "",
             *table(clips, rows, conditions), "", *timing(rows)]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
