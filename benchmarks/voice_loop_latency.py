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

from facilitator.demo import Crew  # noqa: E402
from facilitator.session import Session  # noqa: E402
from facilitator.speech.base import Hypothesis, RecognitionGrammar, VoiceSettings  # noqa: E402
from facilitator.speech.endpoint import Endpointer  # noqa: E402
from facilitator.speech.loop import ListenLoop, LoopSettings, StreamCaptions  # noqa: E402
from facilitator.speech.recognize import make_recognizer  # noqa: E402
from facilitator.speech.spoken_crew import Line, SpokenCrew  # noqa: E402
from facilitator.speech.tts import FileSpeaker, Synthesizer  # noqa: E402

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
    voice = VoiceSettings()
    session, reply = Session.start("compass-code", seed=seed)
    speaker = FileSpeaker(directory, voice)
    probe = Probe(make_recognizer(), speaker)
    out = io.StringIO()
    loop = ListenLoop(session, probe, probe, voice, StreamCaptions(out), LoopSettings())
    probe.loop = loop
    crew = Crew(session, loop, out, voices)
    synthesizers: dict[tuple[str, int], Synthesizer] = {}

    def synthesize(line: Line) -> tuple[bytes, int]:
        key = (line.voice, line.rate_wpm)
        if key not in synthesizers:
            synthesizers[key] = Synthesizer(VoiceSettings(voice=line.voice, rate_wpm=line.rate_wpm),
                                            engine="espeak-ng")
        return synthesizers[key].synthesize(line.text)

    source = SpokenCrew(crew.next_line, lambda: loop.heard_segments, lambda: loop.quiet_from, synthesize)
    try:
        loop.announce(reply.public)
        loop.run_audio(source, Endpointer(complete=loop.complete))
    finally:
        session.log.close()
        speaker.synthesizer.close()
        for synthesizer in synthesizers.values():
            synthesizer.close()
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
