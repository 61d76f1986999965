"""A scripted game night: how often the referee asks, and whether chatter reaches it.

Run from the repository root: ``python benchmarks/game_night.py [--seeds 1-3]``.
The demo's crew plays whole Compass Code voyages through the real endpointer,
pocketsphinx and the listen loop (espeak-ng voices, the assistant's speech
synthesized to files), and between its commands the table chats: a remark, a
laugh, a half-thought about the route, said in the crew's voices while the loop
is listening.  Counted per voyage:

* ``commands``: guesses and bearing checks applied (what the crew meant);
* ``asked``: "... Is that right?" questions; ``echoed``: implicit echoes with an
  undo window; both per applied command;
* ``chatter``: remarks said; ``answered``: remarks the assistant said anything
  to; ``reached``: remarks after which something was logged (the referee was
  reached: a command applied or a rejection logged), the figure that must be 0.

Three verdicts of the recognizer are measured: pocketsphinx alone (the light
mode: it is never sure, so every guess is asked), both engines (the default
with the whisper extra: sure when Whisper and pocketsphinx agree), and ``oracle
sure``, where a hearing is sure exactly when its words are what was said: the
figures the loop's policy gives once the recognizer's own verdict is that good.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from facilitator.demo import CREW_VOICES, Crew, spoken_voyage
from facilitator.session import Session
from facilitator.speech.audio.mix import DemoSpeaker
from facilitator.speech.audio.spoken_crew import Line
from facilitator.speech.base import Hypothesis, RecognitionGrammar, Recognizer, VoiceSettings
from facilitator.speech.engines.recognize import make_recognizer
from facilitator.speech.loop.listen import ListenLoop, LoopState

CHATTER = ("pass the crisps please", "ha ha ha that was close", "hmm I think it's north",
           "who wants another drink", "I told you it was east", "oh no not again")


class ChattyCrew(Crew):
    """The demo crew, chatting between its commands while the loop listens."""

    def __init__(self, session: Session, loop: ListenLoop, out: IO[str], voices: tuple[str, ...]) -> None:
        super().__init__(session, loop, out, voices)
        self.chatter_said = 0
        self.answered = 0
        self.reached = 0
        self.answers: list[str] = []   # what the assistant said to chatter
        self._after_chatter: tuple[int, int] | None = None   # (log seq, sentences spoken)
        self._chatted = False
        self.last_text = ""

    def spoken(self) -> int:
        return len(getattr(self.loop.speaker, "spoken", []))

    def next_line(self) -> Line | None:
        if self._after_chatter is not None:
            seq, said = self._after_chatter
            self.answered += self.spoken() > said
            self.answers += getattr(self.loop.speaker, "spoken", [])[said:]
            self.reached += self.session.log.next_seq > seq
            self._after_chatter = None
        listening = self.loop.state in (LoopState.LISTENING, LoopState.DORMANT)
        woke = self.last_text in self.loop.wake_phrases()   # a player who just called the referee
        if listening and not woke and not self.session.over and not self._chatted:
            self._chatted = True
            text = CHATTER[self.chatter_said % len(CHATTER)]
            self.chatter_said += 1
            self._after_chatter = (self.session.log.next_seq, self.spoken())
            seat = self.session.state.captain % len(self.voices) + 1
            self.out.write(f"  (chatter) {text}\n")
            self.last_text = text
            return Line(text, self.voices[seat % len(self.voices)], 170)
        self._chatted = False   # a remark before each of the crew's own lines while listening
        line = super().next_line()
        self.last_text = line.text if line is not None else ""
        return line


class OracleSure:
    """The real recognizer, sure exactly when its words are what the crew said."""

    def __init__(self, inner: Recognizer) -> None:
        self.inner = inner
        self.name = inner.name
        self.crew: ChattyCrew | None = None

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        hyp = self.inner.decode(pcm, grammar)
        if hyp is None or self.crew is None:
            return hyp
        said = " ".join(self.crew.last_text.lower().split())
        return Hypothesis(hyp.text, hyp.score, sure=" ".join(hyp.text.lower().split()) == said)

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        return bool(self.inner.is_complete(pcm, grammar))  # type: ignore[attr-defined]


#: the verdicts measured: (row label, second engine, oracle)
VERDICTS = (("pocketsphinx alone (light mode: never sure)", "off", False),
            ("both engines (the default: sure when they agree)", "always", False),
            ("oracle sure (pocketsphinx, sure exactly when right)", "off", True))


def one_voyage(seed: int, engine: str, oracle: bool, tmp: Path) -> dict[str, Any]:
    name = f"{seed}-{engine}-{oracle}"
    session, reply = Session.start("compass-code", seed=seed, log_path=tmp / f"log-{name}.jsonl")
    speaker = DemoSpeaker(VoiceSettings(), directory=tmp / f"said-{name}")
    base = make_recognizer(second_engine=engine)
    recognizer: Any = OracleSure(base) if oracle else base
    crews: list[ChattyCrew] = []

    def crew_type(s: Session, loop: ListenLoop, out: IO[str], voices: tuple[str, ...]) -> Crew:
        crew = ChattyCrew(s, loop, out, voices)
        crews.append(crew)
        if oracle:
            recognizer.crew = crew
        return crew

    out = io.StringIO()
    loops: list[ListenLoop] = []
    try:
        spoken_voyage(session, reply.public, recognizer, speaker, out, CREW_VOICES, watch=loops.append,
                      crew_type=crew_type)
    finally:
        session.log.close()
        speaker.close()
    loop, crew = loops[0], crews[0]
    with open(tmp / f"log-{name}.jsonl", encoding="utf-8") as log:
        commands = sum(1 for line in log if '"guess-scored"' in line or '"bearing-checked"' in line)
    return {"seed": seed, "over": session.over, "commands": commands, "asked": loop.asked,
            "echoed": loop.held, "undone": loop.undone, "chatter": crew.chatter_said,
            "answered": crew.answered, "reached": crew.reached, "minutes": loop.now() / 60,
            "answers": crew.answers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-3", help="voyage seeds, e.g. 1-3")
    args = parser.parse_args()
    lo, _, hi = args.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    print("| recognizer verdict | voyages | minutes | applied commands | asked per command | "
          "echoed per command | chatter said | chatter answered | chatter reaching the referee |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, engine, oracle in VERDICTS:
            rows = [one_voyage(seed, engine, oracle, Path(tmp)) for seed in seeds]
            n = sum(r["commands"] for r in rows) or 1
            print(f"| {label} "
                  f"| {sum(r['over'] for r in rows)}/{len(rows)} | {sum(r['minutes'] for r in rows):.1f} "
                  f"| {n} | {sum(r['asked'] for r in rows) / n:.2f} | {sum(r['echoed'] for r in rows) / n:.2f} "
                  f"| {sum(r['chatter'] for r in rows)} | {sum(r['answered'] for r in rows)} "
                  f"| {sum(r['reached'] for r in rows)} |", flush=True)
            for r in rows:
                for answer in r["answers"]:
                    print(f"  seed {r['seed']}: to chatter: {answer}", file=sys.stderr)


if __name__ == "__main__":
    main()
