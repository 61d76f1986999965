"""Regenerate the recognition regression clips listed in golden.toml.

Run from the repository root: ``python tests/recognition/make_golden.py``.  Each
``[[clip]]`` is said by espeak-ng in its voice and rate, trimmed like the
benchmark corpus, and mixed with its noise (``clean``, ``white-DB`` or
``babble-DB``) by the benchmark's own mixer with the clip's seed, so the
committed WAVs are exactly what the benchmark would hear.  ``--pick`` rewrites
golden.toml from a fresh selection (only when the set itself should change);
``--add-noisy N`` appends N noisy commands per game and makes only their WAVs.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import corpus
from facilitator.speech.audio.devices import write_wav

SPEC = HERE / "golden.toml"
CLIPS = HERE / "clips"


def pick() -> None:
    """Choose the set: per game six commands of different intents (its own first), and ten chatter lines."""
    rng = random.Random(11)
    voices = corpus.TUNING_VOICES + corpus.HELD_OUT_VOICES
    noises = ("clean", "clean", "white-20", "babble-20", "clean", "babble-10")
    rows = []
    turn = 0
    for game in corpus.GAMES:
        seen: set[str] = set()
        pool = corpus.sample_phrases(game, 1, rng)
        rng.shuffle(pool)
        common = corpus.load_grammar(game).common_intents
        pool.sort(key=lambda item: item[1].intent in common)   # the game's own commands first
        for phrase, command in pool:
            if command.intent in seen or len(seen) == 6:
                continue
            seen.add(command.intent)
            rows.append({"file": f"{game}-{len(seen)}.wav", "game": game, "text": phrase,
                         "want": command.canonical, "voice": voices[turn % len(voices)],
                         "rate": corpus.RATES[turn % 3], "noise": noises[turn % len(noises)], "seed": turn})
            turn += 1
    chatter_noise = ("clean", "clean", "babble-10", "white-10", "clean")
    for k, line in enumerate(corpus.CHATTER[::3]):
        rows.append({"file": f"chatter-{k + 1}.wav", "game": "", "text": line, "want": "",
                     "voice": voices[turn % len(voices)], "rate": corpus.RATES[turn % 3],
                     "noise": chatter_noise[k % len(chatter_noise)], "seed": turn})
        turn += 1
    head = ("# Recognition regression clips (tests/recognition/test_golden_accuracy.py).\n"
            "# want: the command `recognize` should give (\"\" = chatter, must give none);\n"
            "# noise: clean, white-DB or babble-DB, mixed by benchmarks/corpus.py's mixer with seed.\n"
            "# make_golden.py regenerates the WAVs in clips/ from this list.\n")
    body = []
    for row in rows:
        body.append("[[clip]]\n" + "".join(
            f"{key} = {value!r}\n".replace("'", '"') if isinstance(value, str) else f"{key} = {value}\n"
            for key, value in row.items()))
    SPEC.write_text(head + "\n" + "\n".join(body), encoding="utf-8")


def _clip_toml(row: dict[str, object]) -> str:
    return "[[clip]]\n" + "".join(
        f"{key} = {value!r}\n".replace("'", '"') if isinstance(value, str) else f"{key} = {value}\n"
        for key, value in row.items())


def add_noisy(per_game: int = 6) -> None:
    """Append ``per_game`` more commands per game in white-20 and babble-20 (alternating), of
    phrases not yet in the set, so that no pin of a noise condition rests on a handful of clips."""
    spec = tomllib.loads(SPEC.read_text(encoding="utf-8"))["clip"]
    said = {str(c["text"]) for c in spec}
    rng = random.Random(23)
    voices = corpus.TUNING_VOICES + corpus.HELD_OUT_VOICES
    turn = max(int(c["seed"]) for c in spec) + 1
    rows = []
    for game in corpus.GAMES:
        have = sum(1 for c in spec if c["game"] == game)
        pool = corpus.sample_phrases(game, 1, rng)
        rng.shuffle(pool)
        added = 0
        for phrase, command in pool:
            if phrase in said or added == per_game:
                continue
            said.add(phrase)
            added += 1
            rows.append({"file": f"{game}-{have + added}.wav", "game": game, "text": phrase,
                         "want": command.canonical, "voice": voices[turn % len(voices)],
                         "rate": corpus.RATES[turn % 3], "noise": ("white-20", "babble-20")[turn % 2],
                         "seed": turn})
            turn += 1
    with SPEC.open("a", encoding="utf-8") as f:
        f.write("".join("\n" + _clip_toml(row) for row in rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pick", action="store_true", help="choose a new set first")
    parser.add_argument("--add-noisy", type=int, metavar="N",
                        help="append N more noisy commands per game, then make only the missing WAVs")
    args = parser.parse_args()
    if args.pick:
        pick()
    if args.add_noisy:
        add_noisy(args.add_noisy)
    spec = tomllib.loads(SPEC.read_text(encoding="utf-8"))
    CLIPS.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        babble = [corpus.np.frombuffer(talk, dtype="<i2").astype(float) for talk in corpus.babble_talk(tmp)]
        for clip in spec["clip"]:
            if args.add_noisy and (CLIPS / clip["file"]).exists():
                continue
            corpus._say(clip["text"], clip["voice"], clip["rate"], tmp / "clean.wav", tmp)
            kind, _, snr = clip["noise"].partition("-")
            pcm, measured = corpus.mix(corpus.read_wav(tmp / "clean.wav"), kind, float(snr or 0), clip["seed"],
                                       babble)
            write_wav(CLIPS / clip["file"], pcm)
            print(f"{clip['file']}: {clip['text']!r} {clip['voice']} {clip['noise']} ({measured:.1f} dB)")


if __name__ == "__main__":
    main()
