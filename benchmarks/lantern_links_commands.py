"""How well each spoken Lantern Links command is recognized, phrase by phrase.

Run from the repository root: ``python benchmarks/lantern_links_commands.py
[--voices en-gb-scotland,en-029,en-us+f3]``.  Every spoken phrase of the game's
grammar (every tile by NATO word and by its two words, pass, rewind, finish,
hands) is synthesized by espeak-ng in each voice and decoded by pocketsphinx
under the whole game grammar (as ``facilitator recognize`` does) and under the
grammar narrowed to an ordinary turn (play, pass, finish and the table's
commands).  A decode is *right* when it parses to the phrase's own command,
*wrong* when it parses to another command, *none* when nothing was returned.
The default voices were not used to tune the grammar (en-us and en-gb were).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from facilitator.command import Command
from facilitator.grammar import load_grammar
from facilitator.speech.audio.devices import read_wav
from facilitator.speech.engines.grammar_build import recognition_grammar
from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

INTENTS = ("play", "pass", "rewind", "finish", "hands")
TURN = {"play", "pass", "finish", "hands", "status", "help"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", default="en-gb-scotland,en-029,en-us+f3")
    args = parser.parse_args()
    grammar = load_grammar("lantern-links")
    whole = recognition_grammar(grammar)
    turn = recognition_grammar(grammar, intents=TURN | grammar.common_intents)
    recognizer = PocketsphinxRecognizer()
    phrases = grammar.spoken_phrases(intents=INTENTS)
    print(f"{len(phrases)} phrases; grammar: whole game | narrowed to an ordinary turn")
    print(f"{'voice':<16} {'right':>6} {'wrong':>6} {'none':>6} | {'right':>6} {'wrong':>6} {'none':>6}"
          f"  {'s/decode':>8}")
    confusions: Counter[tuple[str, str]] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for voice in args.voices.split(","):
            counts = [Counter(), Counter()]
            seconds, decodes = 0.0, 0
            for phrase in phrases:
                wav = Path(tmp) / "phrase.wav"
                subprocess.run(["espeak-ng", "-v", voice, "-s", "160", "-w", str(wav), phrase], check=True)
                pcm = read_wav(wav)
                want = grammar.parse(phrase, typed=False)
                assert isinstance(want, Command)
                for i, decoding in enumerate((whole, turn)):
                    if i == 1 and want.intent not in TURN:
                        continue
                    start = time.perf_counter()
                    hyp = recognizer.decode(pcm, decoding)
                    seconds += time.perf_counter() - start
                    decodes += 1
                    got = grammar.parse(hyp.text, typed=False) if hyp else None
                    if not isinstance(got, Command):
                        counts[i]["none"] += 1
                    elif got.canonical == want.canonical:
                        counts[i]["right"] += 1
                    else:
                        counts[i]["wrong"] += 1
                        confusions[(phrase, hyp.text if hyp else "")] += 1
            a, b = counts
            print(f"{voice:<16} {a['right']:>6} {a['wrong']:>6} {a['none']:>6} | "
                  f"{b['right']:>6} {b['wrong']:>6} {b['none']:>6}  {seconds / max(decodes, 1):>8.3f}")
    if confusions:
        print("\nheard as another command (phrase -> heard, count):")
        for (phrase, heard), n in confusions.most_common():
            print(f"  {phrase!r} -> {heard!r}: {n}")


if __name__ == "__main__":
    main()
