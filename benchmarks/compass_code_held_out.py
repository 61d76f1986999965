"""Compass Code recognition on voices the golden set does not use, with table chatter.

Run from the repository root: ``python benchmarks/compass_code_held_out.py
[--voices en-gb-scotland,en-gb-x-gbcwmd,en-us+f4]``.  The default voices were
used for nothing else; en-us, en-gb and en-us+f3 (the golden clips) and
en-gb-x-rp, en-us+m3 and en-029 (a second round) tuned the pronunciations and
the rejection check.  Every transcript of the golden set
(tests/audio/golden.toml, Compass Code and the table controls) and a list of
chatter lines below are synthesized by espeak-ng in each voice at three rates,
then decoded by pocketsphinx under the whole game grammar, as ``facilitator
recognize`` does.  A command clip is *right* when it parses to its own command,
*wrong* when to another, *none* when nothing was returned; a chatter clip is
*rejected* when nothing was returned.  Rows are printed with and without the
out-of-grammar checks, so their cost and gain are both visible.

``--noise white --snr-db 20`` (or ``babble``: four of the golden chatter clips
at once) adds noise at that signal-to-noise ratio, with 0.3 s of it before and
after each clip, as the endpointer's padding would hold.
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

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from facilitator.command import Command
from facilitator.grammar import load_grammar
from facilitator.speech.audio.devices import read_wav
from facilitator.speech.engines.grammar_build import recognition_grammar
from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

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
    parser.add_argument("--voices", default="en-gb-scotland,en-gb-x-gbcwmd,en-us+f4")
    parser.add_argument("--noise", choices=("none", "white", "babble"), default="none")
    parser.add_argument("--snr-db", type=float, default=20.0)
    args = parser.parse_args()
    rng = np.random.default_rng(5)
    chatter_dir = ROOT / "tests" / "audio" / "chatter"
    babble_voices = [np.frombuffer(read_wav(p), dtype="<i2").astype(float)
                     for p in sorted(chatter_dir.glob("*.wav"))]

    def noisy(pcm: bytes) -> bytes:
        if args.noise == "none":
            return pcm
        voice = np.frombuffer(pcm, dtype="<i2").astype(float)
        voice = np.concatenate([np.zeros(4800), voice, np.zeros(4800)])
        if args.noise == "white":
            noise = rng.normal(0, 1, len(voice))
        else:
            noise = np.zeros(len(voice))
            for k in range(4):
                talk = np.concatenate(babble_voices[k * 3:(k + 1) * 3] * 4)
                start = int(rng.integers(0, len(talk) - len(voice)))
                noise += talk[start:start + len(voice)]
        power = np.mean(voice[voice != 0] ** 2)
        noise *= np.sqrt(power / np.mean(noise**2) / 10 ** (args.snr_db / 10))
        return np.clip(voice + noise, -32768, 32767).astype("<i2").tobytes()

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
                pcm = noisy(read_wav(raw))
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
    noise = "no noise" if args.noise == "none" else f"{args.noise} noise at {args.snr_db:g} dB SNR"
    print(f"voices: {args.voices}; rates {RATES} wpm; {len(items)} transcripts; {noise}")
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
