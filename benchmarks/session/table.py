"""One table session: players who talk, a room, and the real listen loop.

``play(...)`` runs one game for up to ``minutes`` of stream time through the real
``ListenLoop.run_audio`` with the real endpointer and recognizer.  The audio
source (``TableAudio``) is built on demand, like the demo's spoken crew, because
the players react to what the loop says:

* a player says a command (``players.next_command``); when the assistant asks
  "... Is that right?" the same player answers "yes" if it heard the command
  meant, "no" if not; after "Say again?" or no reaction the player says the
  command again, a little slower (up to ``TRIES`` times, then the table moves on);
* between commands other players chat or laugh (``CHATTER_SHARE``), lines that
  often hold command words;
* every line is reverberated by the room; the background talk and steady noise
  run under the whole session; the assistant's own voice and earcons come back
  into the microphone with a delay (``room.py``).

Everything the loop does is watched through its public surface: the recognizer
and the speaker are wrapped (``Watch``), ``Session.execute`` is observed, and
``loop.current`` says which stretch of audio caused what.
"""

from __future__ import annotations

import os
import random
import resource
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from facilitator.command import Command
from facilitator.session import CONTROLS, Reply, Session
from facilitator.speech.base import FRAME_BYTES, SAMPLE_RATE, SAMPLE_WIDTH, Frame, Hypothesis, RecognitionGrammar, Segment
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop import ListenLoop, LoopSettings, LoopState
from facilitator.speech.tts import Synthesizer, load_earcon

from . import players, room
from .voices import Voices

TRIES = 3
CHATTER_SHARE = 0.5
LAUGH_SHARE = 0.15
#: how long players wait for the loop to take a line before going on
PATIENCE_SECONDS = 10.0
FRAME_SAMPLES = FRAME_BYTES // SAMPLE_WIDTH
LAUGHTER = ("ha ha ha ha", "ha ha ha", "oh ha ha ha ha")


@dataclass
class Utterance:
    kind: str            # "command", "answer", "chatter"
    text: str
    voice: str
    start: float
    end: float
    command: int = -1    # index into Result.commands (commands and their answers)
    meant: str = ""      # canonical command meant ("" for chatter)


@dataclass
class CommandTry:
    canonical: str
    text: str
    tries: int = 0
    understood_at: int = 0   # the try after which the referee applied it (0: never)
    wrong: bool = False


@dataclass
class Result:
    game: str
    condition: str
    voices: str
    stream_seconds: float = 0.0
    commands: list[CommandTry] = field(default_factory=list)
    wrong_actions: int = 0
    chatter_lines: int = 0
    chatter_seconds: float = 0.0
    chatter_reached: int = 0
    say_again_chatter: int = 0
    say_again_unprompted: int = 0   # "Say again?" when no player had said anything (background, leak)
    latencies: list[float] = field(default_factory=list)
    peak_rss_mb: float = 0.0
    wall_seconds: float = 0.0
    segments: int = 0
    capped_segments: int = 0
    transcript: list[str] = field(default_factory=list)


class Watch:
    """Wraps the recognizer and the speaker; records who caused what, and when."""

    def __init__(self, recognizer: Any, synthesizer: Synthesizer, audio: "TableAudio") -> None:
        self.recognizer = recognizer
        self.name = getattr(recognizer, "name", "recognizer")
        self.synthesizer = synthesizer
        self.audio = audio
        self.loop: ListenLoop | None = None
        self.sounds: list[tuple[float, str, Segment | None]] = []   # (loop time, text or earcon, cause)
        self.executed: list[tuple[Command, Segment | None]] = []
        self._decoded: tuple[Segment, float, float] | None = None   # segment, loop time, wall clock
        self.latencies: list[tuple[Segment, float]] = []

    # Recognizer
    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        assert self.loop is not None
        began = cpu_seconds()
        hyp = self.recognizer.decode(pcm, grammar)
        if self.loop.current is not None:
            self._decoded = (self.loop.current, self.loop.now(), began)
        return hyp

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        check = getattr(self.recognizer, "is_complete", None)
        return bool(check(pcm, grammar)) if check is not None else False

    # Speaker
    def speak(self, text: str) -> float:
        assert self.loop is not None
        at = self.loop.now()
        pcm, rate = self.synthesizer.synthesize(text)
        if self._decoded is not None:
            segment, decoded_at, began = self._decoded
            self.latencies.append((segment, decoded_at - segment.end + cpu_seconds() - began))
            self._decoded = None
        self.sounds.append((at, text, self.loop.current))
        seconds = self.audio.leak(pcm, rate, at)
        return seconds

    def earcon(self, name: str) -> None:
        assert self.loop is not None
        pcm, rate = load_earcon(name)
        self.sounds.append((self.loop.now(), f"<{name}>", self.loop.current))
        self.audio.leak(pcm, rate, self.loop.now())

    def observe(self, session: Session) -> None:
        execute = session.execute

        def watched(command: Command) -> Reply:
            self.executed.append((command, self.loop.current if self.loop else None))
            return execute(command)

        session.execute = watched  # type: ignore[method-assign]


class TableAudio:
    """The microphone's signal: background bed + reverberated players + the assistant's leak."""

    def __init__(self, bed: np.ndarray, ir: np.ndarray) -> None:
        self.bed = bed                   # int16, the whole session's background
        self.ir = ir
        self.position = 0                # next sample to emit
        self.sounds: list[tuple[int, np.ndarray]] = []   # (first sample, float samples)
        self.closed = False
        self.recording: list[bytes] | None = None        # the microphone's signal, when kept

    @property
    def t(self) -> float:
        return self.position / SAMPLE_RATE

    def add(self, samples: np.ndarray, at: float) -> None:
        first = int(round(at * SAMPLE_RATE))
        if first < self.position:
            samples = samples[self.position - first:]
            first = self.position
        if len(samples):
            self.sounds.append((first, samples.astype(np.float32)))

    def leak(self, pcm: bytes, rate: int, at: float) -> float:
        from facilitator.speech.audio import convert

        if rate != SAMPLE_RATE:
            pcm = convert(pcm, rate, 1, SAMPLE_WIDTH)
        x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
        if len(x):
            self.add(room.reverb(room.level(x, room.SPEECH_DBFS - room.LEAK_BELOW_DB), self.ir),
                     at + room.LEAK_DELAY_SECONDS)
        return len(x) / SAMPLE_RATE

    def until(self, t: float) -> Iterator[Frame]:
        """Frames up to stream time ``t``."""
        end = int(t * SAMPLE_RATE)
        while self.position < end and not self.closed:
            a, b = self.position, self.position + FRAME_SAMPLES
            chunk = np.zeros(FRAME_SAMPLES, dtype=np.float32)
            if a < len(self.bed):
                piece = self.bed[a: min(b, len(self.bed))]
                chunk[: len(piece)] += piece
            keep = []
            for first, samples in self.sounds:
                lo, hi = max(a, first), min(b, first + len(samples))
                if hi > lo:
                    chunk[lo - a: hi - a] += samples[lo - first: hi - first]
                if first + len(samples) > b:
                    keep.append((first, samples))
            self.sounds = keep
            pcm = np.clip(np.round(chunk), -32768, 32767).astype("<i2").tobytes()
            self.position = b
            if self.recording is not None:
                self.recording.append(pcm)
            yield Frame(pcm, a / SAMPLE_RATE)


class Table:
    """The players: an AudioSource that decides each line after hearing the loop."""

    def __init__(self, game: str, session: Session, loop: ListenLoop, watch: Watch, audio: TableAudio,
                 voices: Voices, seats: tuple[str, ...], chatter: tuple[str, ...], result: Result,
                 minutes: float, seed: int) -> None:
        self.game, self.session, self.loop, self.watch = game, session, loop, watch
        self.audio, self.voices, self.seats, self.chatter = audio, voices, seats, chatter
        self.result = result
        self.limit = minutes * 60.0
        self.rng = random.Random(seed)
        self.said: list[Utterance] = []
        self._closed = False

    # -- AudioSource ------------------------------------------------------------------
    def close(self) -> None:
        self._closed = True
        self.audio.closed = True

    def frames(self) -> Iterator[Frame]:
        seat = 0
        while not self._closed and self.audio.t < self.limit and not self.session.over:
            if self.said and self.rng.random() < CHATTER_SHARE:
                yield from self._chat(seat)
            if self.loop.state is LoopState.PAUSED:
                # chatter paused the assistant ("stop listening"): a table asks it back
                wake = self.session.grammar.render("start listening") or "start listening"
                yield from self._say("answer", wake, self.seats[seat], meant="start listening")
                continue
            got = players.next_command(self.game, self.session, self.loop, self.rng)
            if got is None:
                yield from self._wait(2.0)
                continue
            text, command = got
            seat = (seat + 1) % len(self.seats)
            yield from self._command(text, command, self.seats[seat])
        # trailing quiet for the endpointer to close the last utterance
        yield from self.audio.until(self.audio.t + 1.5)

    # -- lines -----------------------------------------------------------------------
    def _command(self, text: str, command: Command, voice: str) -> Iterator[Frame]:
        attempt = CommandTry(command.canonical.lower(), text)
        self.result.commands.append(attempt)
        index = len(self.result.commands) - 1
        for k in range(1, TRIES + 1):
            if self._closed or self.audio.t >= self.limit + 30:
                return
            attempt.tries = k
            executed_before = len(self.watch.executed)
            utterance = yield from self._say("command", text, voice, rate=165 - 15 * (k - 1),
                                             index=index, meant=attempt.canonical)
            # answer confirmation questions about this command
            answers = 0
            while (self.loop.state is LoopState.CONFIRMING and self.loop.pending is not None
                   and answers < TRIES and not self._closed):
                answers += 1
                right = self.loop.pending.canonical.lower() == attempt.canonical
                word = "yes" if right else "no"
                spoken = self.session.grammar.render(word) or word
                pending = self.loop.pending
                yield from self._say("answer", spoken, voice, index=index, meant=word)
                if self.loop.pending is not pending:
                    break
            for done, cause in self.watch.executed[executed_before:]:
                if done.canonical.lower() == attempt.canonical and not attempt.understood_at:
                    attempt.understood_at = k
                elif cause is None or self._overlaps(cause, utterance):
                    attempt.wrong = True
            if attempt.understood_at or attempt.wrong or self.session.over:
                return
        return

    def _chat(self, seat: int) -> Iterator[Frame]:
        other = self.seats[(seat + 1 + self.rng.randrange(len(self.seats) - 1)) % len(self.seats)]
        laugh = self.rng.random() < LAUGH_SHARE / CHATTER_SHARE
        text = self.rng.choice(LAUGHTER) if laugh else self.rng.choice(self.chatter)
        yield from self._say("chatter", text, other, rate=175 if laugh else 165)
        # chatter that got a question back is answered "no", as a table would
        answers = 0
        while self.loop.state is LoopState.CONFIRMING and answers < TRIES and not self._closed:
            answers += 1
            spoken = self.session.grammar.render("no") or "no"
            yield from self._say("answer", spoken, other, meant="no")

    def _say(self, kind: str, text: str, voice: str, rate: int = 165, index: int = -1,
             meant: str = "") -> Iterator[Frame]:
        gap = self.rng.uniform(0.4, 1.0)
        start = max(self.audio.t, self.loop.quiet_from) + gap
        yield from self.audio.until(start)
        start = self.audio.t
        dry = self.voices.say(voice, text, rate)
        wet = room.reverb(room.level(dry, room.SPEECH_DBFS), self.audio.ir)
        self.audio.add(wet, start)
        utterance = Utterance(kind, text, voice, start, start + len(dry) / SAMPLE_RATE, index, meant)
        self.said.append(utterance)
        heard_before = self.loop.heard_segments
        yield from self.audio.until(utterance.end)
        waited_until = utterance.end + PATIENCE_SECONDS
        while not self._closed and self.audio.t < waited_until:
            current = self.loop.current
            if (self.loop.heard_segments > heard_before and current is not None
                    and current.end >= utterance.end - 0.3 and current.start <= utterance.end):
                break
            if self.loop.state is LoopState.DONE:
                break
            yield from self.audio.until(self.audio.t + 0.09)
        return utterance

    def _wait(self, seconds: float) -> Iterator[Frame]:
        yield from self.audio.until(self.audio.t + seconds)

    @staticmethod
    def _overlaps(segment: Segment, utterance: Utterance) -> bool:
        return segment.start < utterance.end and segment.end > utterance.start


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished children (espeak-ng synthesizing the answer).

    The answer's compute time is measured in CPU time, not wall time: on a shared
    machine wall time mostly measures the other people's jobs."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def reset_peak_rss() -> None:
    """Start the peak-RSS count afresh (Linux: ``clear_refs``); elsewhere it counts from the start."""
    try:
        Path("/proc/self/clear_refs").write_text("5", encoding="ascii")
    except OSError:
        pass


def peak_rss_mb() -> float:
    """Peak resident memory since ``reset_peak_rss`` (VmHWM), else the process's whole peak."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def utterance_of(segment: Segment, said: list[Utterance]) -> Utterance | None:
    """The line that overlaps ``segment`` the most (None: background, leak or noise alone)."""
    best, overlap = None, 0.0
    for u in said:
        o = min(segment.end, u.end) - max(segment.start, u.start)
        if o > overlap:
            best, overlap = u, o
    return best


def play(game: str, condition: str, snr_db: float | None, voice_set: str, seats: tuple[str, ...],
         minutes: float, seed: int, recognizer: Any, endpointer_factory: Any,
         background: Path | None = None, ir_path: Path | None = None,
         chatter: tuple[str, ...] = (), data_dir: Path | None = None,
         record: list[bytes] | None = None) -> Result:
    """One session of ``game`` in ``condition`` (background talk ``snr_db`` below the players;
    None: no background talk, steady noise only)."""
    result = Result(game, condition, voice_set)
    voices = Voices()
    synthesizer = Synthesizer(VoiceSettings(), engine="espeak-ng")
    began = time.perf_counter()
    try:
        seconds = minutes * 60.0 + 60.0
        bed = room.pink_noise(seconds, seed) * (32768.0 * 10 ** ((room.SPEECH_DBFS - room.NOISE_BELOW_DB) / 20))
        if snr_db is not None:
            talk = room.background_bed(voices.say, seconds, seed, background)
            bed += talk * (32768.0 * 10 ** ((room.SPEECH_DBFS - snr_db) / 20))
            del talk
        ir = room.load_ir(ir_path) if ir_path is not None else room.impulse_response(seed=seed)
        audio = TableAudio(np.clip(np.round(bed), -32768, 32767).astype(np.int16), ir)
        del bed
        audio.recording = record
        reset_peak_rss()   # count the loop's memory, not the making of the background
        log_path = (data_dir / f"{game}-{condition}-{voice_set}-{seed}.jsonl") if data_dir else None
        session, reply = Session.start(game, players=len(seats), seed=seed, log_path=log_path)
        # lines the table types on its screens before talking (Clover's clues): only the
        # announcement after the last one is spoken, as if they were typed before the session
        for line in players.typed_opening(game, session):
            reply = session.handle(line)
        watch = Watch(recognizer, synthesizer, audio)
        loop = ListenLoop(session, watch, watch, VoiceSettings(), None, LoopSettings())
        watch.loop = loop
        watch.observe(session)
        table = Table(game, session, loop, watch, audio, voices, seats, chatter, result, minutes, seed)
        loop.announce(reply.public)
        endpointer = endpointer_factory(loop)
        segments: list[Segment] = []
        original = endpointer.segments

        def counted(frames: Any) -> Iterator[Segment]:
            for segment in original(frames):
                segments.append(segment)
                yield segment

        endpointer.segments = counted
        loop.run_audio(table, endpointer)
        session.log.close()
        _score(result, table, watch, segments, getattr(endpointer, "max_seconds", 8.0))
    finally:
        synthesizer.close()
        voices.close()
    result.wall_seconds = time.perf_counter() - began
    result.peak_rss_mb = peak_rss_mb()
    return result


def _score(result: Result, table: Table, watch: Watch, segments: list[Segment], cap: float) -> None:
    result.stream_seconds = table.audio.t
    result.segments = len(segments)
    result.capped_segments = sum(1 for s in segments if s.end - s.start >= cap - 0.35)
    said = table.said
    chatter = [u for u in said if u.kind == "chatter"]
    result.chatter_lines = len(chatter)
    result.chatter_seconds = sum(u.end - u.start for u in chatter)
    # wrong actions: anything applied that the table did not mean at that moment
    meant_now = {i: c.canonical for i, c in enumerate(result.commands)}
    reached: set[int] = set()
    for command, cause in watch.executed:
        if cause is None:
            continue   # a typed line (Clover's clues on the screens), not something heard
        u = utterance_of(cause, said)
        if u is not None and u.kind == "chatter":
            reached.add(id(u))
        if u is None or u.command < 0 or command.canonical.lower() != meant_now[u.command]:
            result.wrong_actions += 1
    # the voice controls never reach Session.execute: their spoken acknowledgements show them
    controls = {table.session.phrases.say("voice-" + c.replace(" ", "-")) for c in CONTROLS}
    for at, text, cause in watch.sounds:
        u = utterance_of(cause, said) if cause is not None else None
        if text in controls and not (u is not None and u.meant in CONTROLS):
            result.wrong_actions += 1   # no player asked for this control
            if u is not None and u.kind == "chatter":
                reached.add(id(u))
    say_again = table.session.phrases.say("say-again")
    confirm = table.session.phrases.say("confirm-ask", command="").strip(". ")
    for at, text, cause in watch.sounds:
        u = utterance_of(cause, said) if cause is not None else None
        if u is None and cause is not None and text == say_again:
            result.say_again_unprompted += 1
        if u is None or u.kind != "chatter":
            continue
        if text == say_again:
            result.say_again_chatter += 1
        elif confirm and text.endswith(confirm):
            reached.add(id(u))
    result.chatter_reached = len(reached)
    for segment, latency in watch.latencies:
        u = utterance_of(segment, said)
        if u is not None and u.kind in ("command", "answer"):
            result.latencies.append(latency + (segment.end - u.end))
    lines = [(u.start, i, f"{u.start:7.2f}-{u.end:7.2f} {u.kind:8s} {u.voice}: {u.text}") for i, u in enumerate(said)]
    lines += [(at, len(said) + i, f"{at:7.2f}         assistant: {text}")
              for i, (at, text, _) in enumerate(watch.sounds) if not text.startswith("<")]
    result.transcript = [line for _, _, line in sorted(lines)]
