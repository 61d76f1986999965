"""How long the listen loop takes to answer, measured from the last voiced sample.

Run from the repository root: ``python benchmarks/voice_loop_latency.py [--seeds 1-5]``.
The demo's crew plays whole Compass Code voyages with espeak-ng voices that the
demo does not use (``--voices``), through the real endpointer (with early
finish), pocketsphinx and the loop; the assistant's speech is synthesized to
files.  For every utterance the loop decoded:

* ``endpoint``: stream seconds from the last voiced sample to the moment the
  endpointer handed the utterance over (the pause it waited for);
* ``decode``: wall seconds pocketsphinx took;
* ``answer``: wall seconds from the start of decoding until the first sentence
  of the answer was synthesized (decode, parse, rules, log fsync, synthesis);
* ``latency`` = endpoint + answer: the silence a player hears before the reply.

Also counts utterances, "say again?" and cancelled echoes (misheard commands).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from facilitator.demo import spoken_voyage
from facilitator.session import Session
from facilitator.speech.base import Hypothesis, RecognitionGrammar, VoiceSettings
from facilitator.speech.engines.recognize import make_recognizer
from facilitator.speech.loop.listen import ListenLoop
from facilitator.speech.voice_out.tts import FileSpeaker

HELD_OUT_VOICES = ("en-gb-x-rp", "en-us+f2", "en-gb-x-gbclan", "en-us+m5", "en-gb-x-gbcwmd", "en-us+f5")


class Probe:
    """Wraps the recognizer and the speaker to time each decoded utterance's answer."""

    def __init__(self, recognizer: Any, speaker: Any) -> None:
        self.recognizer = recognizer
        self.speaker = speaker
        self.name = recognizer.name
        self.loop: ListenLoop | None = None
        self.rows: list[dict[str, float]] = []
        self._open: dict[str, float] | None = None
        self._started = 0.0

    # Recognizer
    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        assert self.loop is not None and self.loop.current is not None
        self._started = time.perf_counter()
        hyp = self.recognizer.decode(pcm, grammar)
        decode = time.perf_counter() - self._started
        self._open = {"endpoint": self.loop.now() - self.loop.current.end, "decode": decode}
        return hyp

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        return bool(self.recognizer.is_complete(pcm, grammar))

    # Speaker
    def speak(self, text: str) -> float:
        seconds = float(self.speaker.speak(text))
        if self._open is not None:
            self._open["answer"] = time.perf_counter() - self._started
            self._open["latency"] = self._open["endpoint"] + self._open["answer"]
            self.rows.append(self._open)
            self._open = None
        return seconds

    def earcon(self, name: str) -> None:
        self.speaker.earcon(name)


def voyage(seed: int, voices: tuple[str, ...], directory: Path) -> tuple[Probe, str]:
    session, reply = Session.start("compass-code", seed=seed)
    speaker = FileSpeaker(directory, VoiceSettings())
    probe = Probe(make_recognizer(), speaker)   # stands between the loop and both real parts
    out = io.StringIO()

    def watch(loop: ListenLoop) -> None:
        probe.loop = loop

    try:
        spoken_voyage(session, reply.public, probe, probe, out, voices, watch)
    finally:
        session.log.close()
        speaker.synthesizer.close()
    if not session.over:
        raise SystemExit(f"seed {seed}: the crew gave up before the voyage ended")
    return probe, out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-5", help="a range like 1-5")
    parser.add_argument("--voices", default=",".join(HELD_OUT_VOICES), help="espeak-ng voices, one a seat")
    args = parser.parse_args()
    first, _, last = args.seeds.partition("-")
    seeds = range(int(first), int(last or first) + 1)
    voices = tuple(v.strip() for v in args.voices.split(",") if v.strip())
    rows: list[dict[str, float]] = []
    said = again = cancelled = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            probe, captions = voyage(seed, voices, Path(tmp) / str(seed))
            rows += probe.rows
            lines = captions.splitlines()
            said += sum(1 for line in lines if line.startswith("  "))
            again += sum(1 for line in lines if line == "Say again?")
            cancelled += sum(1 for line in lines if line == "Cancelled.")
    print(f"voyages: {len(seeds)} (seeds {args.seeds}), voices: {', '.join(voices)}")
    print(f"crew utterances: {said}, answered: {len(rows)}, say again: {again}, cancelled echoes: {cancelled}")
    print(f"{'seconds':<10}{'median':>8}{'p90':>8}{'max':>8}")
    for key in ("endpoint", "decode", "answer", "latency"):
        values = sorted(row[key] for row in rows)
        p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
        print(f"{key:<10}{statistics.median(values):>8.3f}{p90:>8.3f}{values[-1]:>8.3f}")


if __name__ == "__main__":
    main()
