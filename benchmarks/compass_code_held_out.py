"""Compass Code recognition on voices the golden set does not use, with table chatter.

Run from the repository root: ``python benchmarks/compass_code_held_out.py
[--voices en-gb-x-rp,en-us+m3,en-029]``.  Every transcript of the golden set
(tests/audio/golden.toml, Compass Code and the table controls) and a list of
chatter lines below are synthesized by espeak-ng in each voice at three rates,
then decoded by pocketsphinx under the whole game grammar, as ``facilitator
recognize`` does.  A command clip is *right* when it parses to its own command,
*wrong* when to another, *none* when nothing was returned; a chatter clip is
*rejected* when nothing was returned.  Rows are printed with and without the
out-of-grammar checks, so their cost and gain are both visible.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from facilitator.grammar import Command, load_grammar  # noqa: E402
from facilitator.speech.audio import read_wav  # noqa: E402
from facilitator.speech.grammar_build import recognition_grammar  # noqa: E402
from facilitator.speech.pocketsphinx_engine import PocketsphinxRecognizer  # noqa: E402

CHATTER = [
    "pass me the dice", "is it your turn or mine", "whose go is it", "i think it is north",
    "wait what did he say", "that was so close", "do you want another drink", "i'm not sure about that one",
    "let's try again", "this is really fun", "can someone open the window", "i was going to say east",
    "hang on let me think", "who is winning", "we should have guessed that", "my turn next",
    "where did i put my glasses", "okay okay okay", "no way", "nice one", "the cat is on the table",
    "what are we having for dinner", "turn the music down", "could you read that again",
]
RATES = (150, 165, 180)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", default="en-gb-x-rp,en-us+m3,en-029")
    args = parser.parse_args()
    spec = tomllib.loads((ROOT / "tests" / "audio" / "golden.toml").read_text(encoding="utf-8"))
    commands = {**spec["compass-code"]["clips"], **spec["known-misses"]["clips"]}
    items = [(name.replace("_", " "), want) for name, want in commands.items()]
    items += [(line, "") for line in CHATTER]
    grammar = load_grammar("compass-code")
    whole = recognition_grammar(grammar)
    recognizers = {"with checks": PocketsphinxRecognizer(),
                   "no checks": PocketsphinxRecognizer(max_unexplained=None)}
    tallies = {name: Counter() for name in recognizers}
    misses: list[str] = []
    seconds, count = 0.0, 0
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        for index, (text, want) in enumerate(items):
            for voice in args.voices.split(","):
                rate = RATES[index % len(RATES)]
                subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate), "-w", str(raw), text], check=True)
                pcm = read_wav(raw)
                for name, recognizer in recognizers.items():
                    began = time.perf_counter()
                    hyp = recognizer.decode(pcm, whole)
                    seconds += time.perf_counter() - began
                    count += 1
                    parsed = grammar.parse(hyp.text, typed=False) if hyp else None
                    got = parsed.canonical if isinstance(parsed, Command) else ""
                    kind = "command" if want else "chatter"
                    if not got:
                        verdict = "none" if want else "rejected"
                    elif not want:
                        verdict = "accepted"
                    else:
                        verdict = "right" if got.lower() == want.lower() else "wrong"
                    tallies[name][(kind, verdict)] += 1
                    if name == "with checks" and verdict in ("wrong", "accepted", "none"):
                        misses.append(f"  {verdict:8s} {voice:12s} {text!r} -> {got or 'null'}")
    print(f"voices: {args.voices}; rates {RATES} wpm; {len(items)} transcripts")
    for name, tally in tallies.items():
        n_cmd = sum(v for (k, _), v in tally.items() if k == "command")
        n_chat = sum(v for (k, _), v in tally.items() if k == "chatter")
        print(f"{name:12s} commands: right {tally[('command', 'right')]}/{n_cmd}, "
              f"wrong {tally[('command', 'wrong')]}, none {tally[('command', 'none')]}; "
              f"chatter rejected {tally[('chatter', 'rejected')]}/{n_chat}")
    print(f"mean decode time {seconds / count * 1000:.0f} ms per clip")
    print("misses with checks:")
    print("\n".join(misses))


if __name__ == "__main__":
    main()
