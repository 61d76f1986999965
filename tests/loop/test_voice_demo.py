"""``facilitator demo``: a whole voyage by synthesized voices through the real loop,
with no microphone or speaker, as a subprocess; and its text variant."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pytest
from support import read_jsonl, run_cli

from facilitator.command import Command
from facilitator.demo import spoken_voyage
from facilitator.grammar import load_grammar
from facilitator.session import Session
from facilitator.speech.audio.devices import read_wav
from facilitator.speech.base import Hypothesis, RecognitionGrammar, Recognizer, VoiceSettings
from facilitator.speech.engines.recognize import make_recognizer
from facilitator.speech.voice_out.tts import FileSpeaker

pytestmark = pytest.mark.slow


def echoes(lines: list[str]) -> list[str]:
    """The assistant's echoes of a guess or a bearing check: asked ("Send north east south
    west. Is that right?") when the hearing was unsure, implicit ("Send north east south
    west.") when the recognizer was sure (invariant 7).  Crew lines ("  ") and what the
    loop heard ("> ") are not the assistant's."""
    grammar = load_grammar("compass-code")
    found = []
    for line in lines:
        if line.startswith(("> ", "  ")):
            continue
        body = line.removesuffix(" Is that right?")
        if not body.endswith("."):
            continue
        command = grammar.parse(body[:-1], typed=False)
        if isinstance(command, Command) and command.intent in ("send", "check"):
            found.append(line)
    return found


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_the_voice_demo_plays_a_voyage_to_its_end(tmp_path: Path) -> None:
    log, said, mixed = tmp_path / "log.jsonl", tmp_path / "said", tmp_path / "session.wav"
    done = run_cli(["demo", "--seed", "7", "--no-speaker", "--speech-out", str(said), "--log", str(log),
                    "--mix-out", str(mixed)], timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    events = read_jsonl(log)
    assert events[-1]["type"] == "voyage-ended"
    assert sum(1 for e in events if e["type"] == "leg-ended") == 3
    lines = done.stdout.splitlines()
    assert any(line.startswith("The voyage is over") for line in lines)
    # every guess went through the spoken confirmation: echoed, and asked when the
    # hearing was unsure (with the second engine, sure hearings are echoed implicitly)
    echoed = echoes(lines)
    scored = [e for e in events if e["type"] in ("guess-scored", "bearing-checked")]
    assert len(echoed) >= len(scored) > 0
    spoken = [line for line in lines if not line.startswith(("> ", "  ", "The assistant's speech",
                                                             "The whole session"))]
    assert len(list(said.glob("*-speech.wav"))) == len(spoken)
    # one mixed WAV of the whole session: the assistant's sentences and the crew's lines
    session = read_wav(mixed)
    assistant = sum(len(read_wav(p)) for p in said.glob("*.wav"))
    crew = [line for line in lines if line.startswith("  ")]
    assert len(session) > assistant + len(crew) * 0.5 * 32000   # each crew line is at least 0.5 s
    assert energy(session) > energy(b"".join(read_wav(p) for p in said.glob("*.wav")))


def energy(pcm: bytes) -> float:
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    return float(np.sum(samples ** 2))


def test_the_text_demo_plays_the_same_crew(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    done = run_cli(["demo", "--text", "--seed", "7", "--log", str(log)], timeout=120)
    assert done.returncode == 0, done.stderr
    assert read_jsonl(log)[-1]["type"] == "voyage-ended"
    assert "The voyage is over" in done.stdout


class Mishearing:
    """The real recognizer, except that every other route it hears comes out rotated
    ("send north east south west" -> "send east south west north"), as a noisy room
    might make it: still a route, so only the crew's "no" can stop it."""

    def __init__(self, inner: Recognizer) -> None:
        self.inner = inner
        self.name = inner.name
        self.guesses = 0
        self.misheard = 0

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        hyp = self.inner.decode(pcm, grammar)
        if hyp is None or not hyp.text.startswith("send "):
            return hyp
        words = hyp.text.split()
        if len(set(words[1:])) != 4:      # already a wrong route: the referee refuses it as it is
            return hyp
        self.guesses += 1
        if self.guesses % 2:
            return hyp
        self.misheard += 1
        return Hypothesis(" ".join([words[0], *words[2:], words[1]]))

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        return bool(self.inner.is_complete(pcm, grammar))  # type: ignore[attr-defined]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_a_misheard_guess_is_refused_by_the_crew_and_said_again(tmp_path: Path) -> None:
    session, reply = Session.start("compass-code", seed=7, log_path=tmp_path / "log.jsonl")
    speaker = FileSpeaker(tmp_path / "said", VoiceSettings())
    recognizer = Mishearing(make_recognizer())
    out = io.StringIO()
    try:
        spoken_voyage(session, reply.public, recognizer, speaker, out)
    finally:
        session.log.close()
        speaker.synthesizer.close()
    assert session.over and recognizer.misheard > 0
    lines = out.getvalue().splitlines()
    # every misheard guess was echoed, refused with "no" and cancelled; none was applied
    assert lines.count("Cancelled.") == recognizer.misheard
    refused = [i for i, line in enumerate(lines) if line.endswith(": no")]
    assert len(refused) == recognizer.misheard
    assert all(lines[i + 2] == "Cancelled." for i in refused)
    # a misheard route is an unsure hearing: it was asked, not echoed implicitly
    assert all(lines[i - 1].endswith("Is that right?") for i in refused)
    events = read_jsonl(tmp_path / "log.jsonl")
    assert events[-1]["type"] == "voyage-ended"
    sent = [e["route"] for e in events if e["type"] == "guess-scored"]
    echoed = echoes(lines)
    assert len(echoed) == len(sent) + recognizer.misheard + sum(e["type"] == "bearing-checked" for e in events)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_replies_said_inside_the_deaf_window_are_trimmed_and_kept(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The crew answers 0.1 s after the assistant stops (0.2 s before the deaf window
    after its speech ends): the endpointer's utterances start inside the window, and
    the loop keeps them by trimming, through espeak-ng, the endpointer and pocketsphinx."""
    from facilitator.speech.audio import spoken_crew

    monkeypatch.setattr(spoken_crew, "GAP_SECONDS", -0.2)
    session, reply = Session.start("compass-code", seed=7, log_path=tmp_path / "log.jsonl")
    speaker = FileSpeaker(tmp_path / "said", VoiceSettings())
    try:
        loop = spoken_voyage(session, reply.public, make_recognizer(), speaker, io.StringIO())
    finally:
        session.log.close()
        speaker.synthesizer.close()
    assert session.over
    assert loop.trimmed >= loop.asked > 0          # every answer to a question started early
    assert not [d for d in loop.discarded if d.reason == "half-duplex"]
