"""``python -m benchmarks.lean_pass ["VARIANT;..."]``: what each cut of Whisper's closed-set
pass costs and what it keeps, on the committed clips.

The clips are the golden Compass Code commands (``tests/audio/compass-code``, clean
espeak-ng voices) and the recognition regression clips of all four games
(``tests/recognition/clips``: tuning and held-out voices, clean, white noise and
babble, and chatter that must give nothing), and flite's awb saying "yes"
(``tests/audio/voices``).  Each variant decodes every clip with both engines
(pocketsphinx, then Whisper with one thread) and reports the commands right, missed
and wrong (and wrong while sure), the chatter taken, and Whisper's CPU seconds per
utterance, stage by stage (the process's CPU time: on a machine shared with other
work they run high; compare variants measured together).  "product, per-phrase
scoring" is the product with each phrase scored as a CTranslate2 batch item
(``WhisperRecognizer.score_each``), as before the one-pass scorer.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: Whisper's settings per variant (``WhisperRecognizer`` keywords); "product" is the defaults
VARIANTS: dict[str, dict[str, Any]] = {
    "before": {"pad_seconds": 6.0, "score_pad_seconds": None, "max_swaps": 32, "one_word_max_words": None},
    "cut to clip + 0.5 s": {"pad_seconds": 6.0, "score_pad_seconds": 0.5, "max_swaps": 32, "one_word_max_words": None},
    "swaps 8": {"pad_seconds": 6.0, "score_pad_seconds": None, "max_swaps": 8, "one_word_max_words": None},
    "one-word phrases for short text": {"pad_seconds": 6.0, "score_pad_seconds": None, "max_swaps": 32,
                                            "one_word_max_words": 2},
    "all three": {"pad_seconds": 6.0, "score_pad_seconds": 0.5, "max_swaps": 8, "one_word_max_words": 2},
    "all three, cut at + 1 s": {"pad_seconds": 6.0, "score_pad_seconds": 1.0, "max_swaps": 8, "one_word_max_words": 2},
    "swaps and one-word, no cut": {"pad_seconds": 6.0, "score_pad_seconds": None, "max_swaps": 8, "one_word_max_words": 2},
    "... window + 2 s": {"pad_seconds": 2.0, "score_pad_seconds": None, "max_swaps": 8, "one_word_max_words": 2},
    "... window + 3 s": {"pad_seconds": 3.0, "score_pad_seconds": None, "max_swaps": 8, "one_word_max_words": 2},
    "... window + 4 s": {"pad_seconds": 4.0, "score_pad_seconds": None, "max_swaps": 8, "one_word_max_words": 2},
    "... window + 6 s, cut + 3 s": {"pad_seconds": 6.0, "score_pad_seconds": 3.0, "max_swaps": 8, "one_word_max_words": 2},
    "... window + 6 s, cut + 2 s": {"pad_seconds": 6.0, "score_pad_seconds": 2.0, "max_swaps": 8, "one_word_max_words": 2},
    "... window + 4 s, cut + 2 s": {"pad_seconds": 4.0, "score_pad_seconds": 2.0, "max_swaps": 8, "one_word_max_words": 2},
    "product (window + 4 s, cut + 3 s)": {},
    #: the product scoring each phrase as a CTranslate2 batch item (``score_each``), as before the one pass
    "product, per-phrase scoring": {"per_phrase": True},
    "product with Whisper base": {"model": "base"},
}
STAGES = ("encode", "n-best", "scoring", "swaps")


def clips() -> list[tuple[str, Path, str]]:
    """(game, file, the command it must give: "" for chatter)."""
    out = []
    spec = tomllib.loads((ROOT / "tests/audio/golden.toml").read_text(encoding="utf-8"))["compass-code"]["clips"]
    out += [("compass-code", ROOT / "tests/audio/compass-code" / f"{name}.wav", want) for name, want in spec.items()]
    for c in tomllib.loads((ROOT / "tests/recognition/golden.toml").read_text(encoding="utf-8"))["clip"]:
        out.append((c["game"] or "compass-code", ROOT / "tests/recognition/clips" / c["file"], c["want"]))
    out.append(("compass-code", ROOT / "tests/audio/voices/yes_flite_awb.wav", "yes"))
    return out


def run(name: str, options: dict[str, Any], todo: list[tuple[str, Path, str]], ps: Any) -> str:
    from facilitator.command import Command
    from facilitator.games import find_game
    from facilitator.grammar import load_grammar
    from facilitator.speech.audio.devices import read_wav
    from facilitator.speech.engines.grammar_build import recognition_grammar
    from facilitator.speech.engines.hybrid import HybridRecognizer
    from facilitator.speech.engines.whisper_engine import WhisperRecognizer

    options = dict(options)
    per_phrase = options.pop("per_phrase", False)
    whisper = WhisperRecognizer(threads=1, **options)
    if per_phrase:
        whisper.score = whisper.score_each  # type: ignore[method-assign]
    both = HybridRecognizer("always", pocketsphinx=ps, whisper=whisper)
    right = missed = wrong = sure_wrong = chatter = 0
    cpu: dict[str, list[float]] = {}
    scored: list[int] = []
    for game, path, want in todo:
        grammar = load_grammar(game)
        lists = find_game(game).recognition_lists() or None
        hyp = both.decode(read_wav(path), recognition_grammar(grammar, lists=lists))
        for stage, seconds in (whisper.last.get("cpu") or {}).items():
            cpu.setdefault(stage, []).append(seconds)
        scored.append(int(whisper.last.get("scored", 0)))
        parsed = grammar.parse(hyp.text, typed=False, lists=lists) if hyp is not None else None
        got = parsed.canonical if isinstance(parsed, Command) else None
        if not want:
            chatter += got is not None
        elif got is not None and got.lower() == want.lower():
            right += 1
        elif got is None:
            missed += 1
        else:
            wrong += 1
            sure_wrong += bool(hyp is not None and hyp.sure)
    total = [sum(values) for values in zip(*(cpu[s] for s in STAGES if s in cpu))]
    cells = [name, f"{right}", f"{missed}", f"{wrong} ({sure_wrong})", f"{chatter}",
             *(f"{statistics.median(cpu[s]) * 1000:.0f}" if s in cpu else "-" for s in STAGES),
             f"{statistics.median(total) * 1000:.0f} / {sorted(total)[int(0.95 * (len(total) - 1))] * 1000:.0f}",
             f"{statistics.median(scored):.0f}"]
    return "| " + " | ".join(cells) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lean_pass", description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="?", default="", help="names separated by semicolons (default: all)")
    args = parser.parse_args(argv)
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

    names = [n.strip() for n in args.variants.split(";") if n.strip()] or list(VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        print(f"unknown variant {unknown[0]!r}; the variants: {', '.join(VARIANTS)}", file=sys.stderr)
        return 2
    todo = clips()
    commands = sum(1 for _, _, want in todo if want)
    print(f"{commands} command clips and {len(todo) - commands} chatter clips; Whisper CPU ms per utterance, "
          "one thread (median; the total median / 95th percentile)\n")
    print("| variant | right | missed | wrong (sure) | chatter taken | encode | n-best | scoring | swaps | "
          "Whisper in all | phrases scored |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ps = PocketsphinxRecognizer()
    for name in names:
        print(run(name, VARIANTS[name], todo, ps), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
