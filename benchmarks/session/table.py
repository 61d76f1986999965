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
and the speaker are wrapped (``Watch``), ``Session.execute`` and ``loop.hear`` are
observed, and ``loop.applying_from`` says which utterance a command being
applied was heard in.  The session is scored after the run from that trace
(``score.py``).

How the table addresses the referee is its *mode* (``MODES``, see ``Table``).
"""

from __future__ import annotations

import math
import os
import random
import resource
import time
from collections.abc import Generator, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from facilitator.command import Command
from facilitator.session import CONTROLS, Reply, Session
from facilitator.speech.base import (
    FRAME_BYTES,
    SAMPLE_RATE,
    SAMPLE_WIDTH,
    Frame,
    Hypothesis,
    RecognitionGrammar,
    Segment,
    VoiceSettings,
)
from facilitator.speech.loop.listen import ASIDES, ListenLoop, LoopSettings, LoopState
from facilitator.speech.voice_out.tts import Synthesizer, load_earcon

from . import natural, players, room, score
from .natural import Phrasing
from .voices import Voices

TRIES = 3
CHATTER_SHARE = 0.5
LAUGH_SHARE = 0.15
#: how long players wait for the loop to take a line before going on
PATIENCE_SECONDS = 10.0
#: a line the loop took and met with silence: how long after it players go on (say it again)
SILENCE_TAKEN_SECONDS = 1.5
#: push-to-talk: pressed this long before the line starts, released this long after it ends
PRESS_LEAD_SECONDS = 0.15
RELEASE_LAG_SECONDS = 0.25
#: a close-talk microphone (5-10 cm from the mouth, talkers about 1 m away): the rest this much quieter
CLOSE_TALK_GAIN_DB = 15.0
#: a phone held at arm's length (20-30 cm): its player this much above the table microphone's mix
PHONE_GAIN_DB = 12.0
#: phone mode: now and then another seat says a role's command on its own phone (it must be refused)
INTRUDER_SHARE = 0.1
#: array mode: as often as this, so the seat rule is measured on enough lines
ARRAY_INTRUDER_SHARE = 0.3
#: how the table addresses the referee (see ``Table``)
MODES = ("always", "wake", "ptt", "ptt-close", "phone", "array", "room")
#: the modes played in the simulated room of a microphone array, seats enrolled first
SEATED = ("array", "room")
#: array mode: how many lines the table says for its enrollment before it plays on regardless
ENROLL_TRIES_PER_SEAT = 3
FRAME_SAMPLES = FRAME_BYTES // SAMPLE_WIDTH
LAUGHTER = ("ha ha ha ha", "ha ha ha", "oh ha ha ha ha")


@dataclass
class Utterance:
    kind: str            # "command", "answer", "chatter"
    text: str
    voice: str
    start: float
    end: float
    command: int = -1    # index into the commands (a command's tries and their answers)
    meant: str = ""      # canonical command meant ("" for chatter)
    attempt: int = 0     # the try of the command this line is (or answers)
    may_act: bool = True  # a command line: its seat may give the command when it says it


@dataclass
class Result(score.Score):
    """One session: what the scorer counts (``score.Score``), which session it was, and its cost.
    Made with keywords (the scorer's fields come first)."""

    game: str = ""
    condition: str = ""
    voices: str = ""
    mode: str = "always"
    engines: str = "both"
    peak_rss_mb: float = 0.0
    wall_seconds: float = 0.0
    transcript: list[str] = field(default_factory=list)
    trace: dict[str, Any] = field(default_factory=dict)

    @property
    def wrong_actions(self) -> int:
        return self.wrong_chatter + self.wrong_misheard


def _span(segment: Segment | None) -> list[float] | None:
    return None if segment is None else [round(segment.start, 3), round(segment.end, 3)]


class Watch:
    """Wraps the recognizer and the speaker; records who caused what, and when."""

    def __init__(self, recognizer: Any, synthesizer: Synthesizer, audio: TableAudio) -> None:
        self.recognizer = recognizer
        self.name = getattr(recognizer, "name", "recognizer")
        self.synthesizer = synthesizer
        self.audio = audio
        self.loop: ListenLoop | None = None
        #: what the assistant said: at, text (or <earcon>), the utterance being heard, the pending one's
        self.sounds: list[dict[str, Any]] = []
        #: what Session.execute ran: at, canonical, intent, the utterance it was heard in, accepted, how
        self.executed: list[dict[str, Any]] = []
        #: the utterance decoded last: segment, loop time, CPU clock, heard first (not yet verified)
        self._decoded: tuple[Segment, float, float, bool] | None = None
        self.latencies: list[tuple[Segment, float, bool]] = []
        self.hearing: Segment | None = None
        #: CPU seconds of each recognition stage, per utterance decoded: [start, end, {stage: s}]
        self.costs: list[list[Any]] = []
        self._completing = 0.0
        if hasattr(recognizer, "hear_first") and hasattr(recognizer, "verify"):
            # the two-stage surface, so the loop may echo before the second engine's verdict
            self.hear_first = self._hear_first
            self.verify = self._verify

    def _noted(self, began: float, first: bool = False) -> None:
        assert self.loop is not None
        if self.loop.current is not None:
            self._decoded = (self.loop.current, self.loop.now(), began, first)

    def _cost(self, first: bool) -> None:
        """The stages' CPU seconds of the decode just made (pocketsphinx and Whisper's)."""
        last = getattr(self.recognizer, "last", {}) or {}
        stages: dict[str, float] = {}
        ps = last.get("pocketsphinx") if "pocketsphinx" in last else last
        if first or "pocketsphinx" not in last:
            stages["pocketsphinx"] = float((ps or {}).get("cpu", 0.0))
            stages["early finish"], self._completing = self._completing, 0.0
        whisper = getattr(getattr(self.recognizer, "whisper", None), "last", {}) or {}
        if not first and last.get("ranked") is not None:
            stages.update({k: float(v) for k, v in (whisper.get("cpu") or {}).items()})
            stages["phrases scored"] = float(whisper.get("scored", 0))
        assert self.loop is not None
        span = _span(self.loop.current)
        if self.costs and self.costs[-1][:2] == span:
            merged = self.costs[-1][2]
            for stage, value in stages.items():
                merged[stage] = merged.get(stage, 0.0) + value
        elif span is not None:
            self.costs.append([*span, stages])

    def _hear_first(self, pcm: bytes, grammar: RecognitionGrammar) -> Any:
        began = cpu_seconds()
        first = self.recognizer.hear_first(pcm, grammar)
        self._noted(began, first=True)
        self._cost(first=True)
        return first

    def _verify(self, pcm: bytes, grammar: RecognitionGrammar, first: Any) -> Hypothesis | None:
        hyp: Hypothesis | None = self.recognizer.verify(pcm, grammar, first)
        if self._decoded is not None and self._decoded[3]:   # verified before anything was said
            self._decoded = (*self._decoded[:3], False)
        self._cost(first=False)
        return hyp

    # Recognizer
    @property
    def can_be_sure(self) -> bool:
        """As the wrapped recognizer (pocketsphinx alone, the light mode, never is)."""
        return bool(getattr(self.recognizer, "can_be_sure", True))

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        began = cpu_seconds()
        hyp: Hypothesis | None = self.recognizer.decode(pcm, grammar)
        self._noted(began)
        if "ranked" in (getattr(self.recognizer, "last", {}) or {}):
            self._cost(first=True)
            self._cost(first=False)
        else:
            self._cost(first=True)
        return hyp

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        check = getattr(self.recognizer, "is_complete", None)
        began = time.process_time()
        try:
            return bool(check(pcm, grammar)) if check is not None else False
        finally:   # the endpointer's early-finish checks, counted with the utterance they end
            self._completing += time.process_time() - began

    # Speaker
    def speak(self, text: str) -> float:
        assert self.loop is not None
        at = self.loop.now()
        pcm, rate = self.synthesizer.synthesize(text)
        if self._decoded is not None:
            segment, decoded_at, began, first = self._decoded
            self.latencies.append((segment, decoded_at - segment.end + cpu_seconds() - began, first))
            self._decoded = None
        self._sound(at, text)
        seconds = self.audio.leak(pcm, rate, at)
        return seconds

    def earcon(self, name: str) -> None:
        assert self.loop is not None
        pcm, rate = load_earcon(name)
        self._sound(self.loop.now(), f"<{name}>")
        self.audio.leak(pcm, rate, self.loop.now())

    def _sound(self, at: float, text: str) -> None:
        assert self.loop is not None
        # the cause is the utterance being heard, only while the loop hears one: a held
        # command released or a question timed out as time passes was caused by no utterance
        self.sounds.append({"at": round(at, 3), "text": text, "cause": _span(self.hearing),
                            "about": _span(self.loop.pending_from)})

    def watch_hearing(self, loop: ListenLoop) -> None:
        """Note which utterance the loop is hearing (``loop.hear``), for the sounds' causes."""
        hear = loop.hear

        def heard(segment: Segment) -> None:
            self.hearing = segment
            try:
                hear(segment)
            finally:
                self.hearing = None

        loop.hear = heard  # type: ignore[method-assign]

    def observe(self, session: Session) -> None:
        execute = session.execute
        queries = frozenset(session.referee.queries) | ASIDES

        def watched(command: Command) -> Reply:
            loop = self.loop
            assert loop is not None
            cause, how = loop.applying_from, "applied"
            if cause is None:
                # not through the loop's apply: a query answered while a question is open
                # (heard in the utterance being heard), or the loop's own help for a hint
                answering = loop.state is LoopState.CONFIRMING and command.intent != "help"
                cause, how = (self.hearing, "answered") if answering else (None, "internal")
            reply = execute(command)
            self.executed.append({"at": round(loop.now(), 3), "canonical": command.canonical,
                                  "intent": command.intent, "cause": _span(cause),
                                  "heard_in": _span(self.hearing),
                                  "accepted": bool(reply.accepted), "query": command.intent in queries,
                                  "how": how})
            return reply

        session.execute = watched  # type: ignore[method-assign]


class TableAudio:
    """The microphone's signal: background bed + reverberated players + the assistant's leak.

    One row of samples per microphone: a table microphone is one row; a microphone
    array (``array_audio.py``) one row each, its frames carrying them all as ``Frame.raw``
    (``raw``) beside the first, which the recognizer hears."""

    def __init__(self, bed: np.ndarray, ir: np.ndarray, room_gain: float = 1.0, raw: bool = False) -> None:
        self.bed = np.atleast_2d(bed).astype(np.float32)   # (microphones, samples): the whole background
        self.ir = ir
        self.room_gain = room_gain       # the room's sounds at a close-talk microphone (1: a table mic)
        self.raw = raw
        self.position = 0                # next sample to emit
        self.sounds: list[tuple[int, np.ndarray]] = []   # (first sample, float (microphones, samples))
        self.closed = False
        self.recording: list[bytes] | None = None        # the (first) microphone's signal, when kept
        self.recent: list[np.ndarray] = []               # the last frames emitted (a phone hears them too)

    @property
    def t(self) -> float:
        return self.position / SAMPLE_RATE

    def said_by(self, samples: np.ndarray, seat: int) -> np.ndarray:
        """A player's line (at its level) as the microphone hears it from seat ``seat``."""
        return room.reverb(samples, self.ir) * self.room_gain

    def from_speaker(self, samples: np.ndarray) -> np.ndarray:
        """The referee's voice (at its level) as the microphone hears it from the loudspeaker."""
        return room.reverb(samples, self.ir) * self.room_gain

    def add(self, samples: np.ndarray, at: float) -> None:
        """Samples (one row, or one a microphone) starting at stream time ``at``."""
        samples = np.atleast_2d(samples)
        first = round(at * SAMPLE_RATE)
        if first < self.position:
            samples = samples[:, self.position - first:]
            first = self.position
        if samples.shape[1]:
            self.sounds.append((first, samples.astype(np.float32)))

    def leak(self, pcm: bytes, rate: int, at: float) -> float:
        from facilitator.speech.audio.devices import convert

        if rate != SAMPLE_RATE:
            pcm = convert(pcm, rate, 1, SAMPLE_WIDTH)
        x = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
        if len(x):
            self.add(self.from_speaker(room.level(x, room.SPEECH_DBFS - room.LEAK_BELOW_DB)),
                     at + room.LEAK_DELAY_SECONDS)
        return len(x) / SAMPLE_RATE

    def until(self, t: float) -> Iterator[Frame]:
        """Frames up to stream time ``t`` (at least one frame whenever ``t`` is ahead)."""
        end = math.ceil(round(t * SAMPLE_RATE, 6))
        length = self.bed.shape[1]
        while self.position < end and not self.closed:
            a, b = self.position, self.position + FRAME_SAMPLES
            chunk = np.zeros((self.bed.shape[0], FRAME_SAMPLES), dtype=np.float32)
            if a < length:
                piece = self.bed[:, a: min(b, length)]
                chunk[:, : piece.shape[1]] += piece
            keep = []
            for first, samples in self.sounds:
                lo, hi = max(a, first), min(b, first + samples.shape[1])
                if hi > lo:
                    chunk[:, lo - a: hi - a] += samples[:, lo - first: hi - first]
                if first + samples.shape[1] > b:
                    keep.append((first, samples))
            self.sounds = keep
            pcm = _pcm16(chunk[0])
            self.recent.append(chunk[0])
            del self.recent[:-RECENT_FRAMES]
            self.position = b
            if self.recording is not None:
                self.recording.append(pcm)
            yield Frame(pcm, a / SAMPLE_RATE, _pcm16(chunk.T) if self.raw else b"")

    def heard_since(self, t: float) -> np.ndarray:
        """The table microphone's signal from stream time ``t`` up to now (float samples)."""
        kept = np.concatenate(self.recent) if self.recent else np.zeros(0, dtype=np.float32)
        first = self.position - len(kept)
        return kept[max(0, round(t * SAMPLE_RATE) - first):]


def _pcm16(samples: np.ndarray) -> bytes:
    """Float samples as int16 PCM (a (samples, microphones) array comes out interleaved)."""
    return np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes()


#: frames a phone's utterance may reach back over (12 s)
RECENT_FRAMES = 400


class Table:
    """The players: an AudioSource that decides each line after hearing the loop.

    ``mode``: how the table addresses the referee.  *always*: commands said as
    they are; *wake*: "hey referee" (a ``[lists.wake]`` phrase) in the same
    breath before each command; *ptt*: the speaking player holds the button from
    just before the line to just after it (chatter is never pressed); *ptt-close*:
    push-to-talk with a close-talk microphone: the pressing player's line reaches
    the microphone dry and everything else (the room's talk, the other players,
    the assistant's voice) ``CLOSE_TALK_GAIN_DB`` quieter relative to it; *phone*:
    the speaking player holds the talk button of the phone that shows their seat, so
    the line is heard as a phone at arm's length would (``phone_hears``) and its seat
    is known; the one who speaks a role's command is a seat that may give it, and now
    and then (``INTRUDER_SHARE``) another seat says it on its own phone first (that
    must be refused).  The table microphone goes on hearing everything.  *array*: the
    table microphone is a microphone array (``array_audio.py``); every seat first says
    its enrollment line when the referee asks it, and, as with phones, the seat that may
    give a role's command says it, another seat now and then (``ARRAY_INTRUDER_SHARE``)
    first, at the table.  *room*: the same, heard by the array's first microphone alone.
    """

    def __init__(self, game: str, session: Session, loop: ListenLoop, watch: Watch, audio: TableAudio,
                 voices: Voices, seats: tuple[str, ...], chatter: tuple[str, ...],
                 minutes: float, seed: int, mode: str = "always", phrasing: Phrasing | None = None) -> None:
        self.game, self.session, self.loop, self.watch = game, session, loop, watch
        self.audio, self.voices, self.seats, self.chatter = audio, voices, seats, chatter
        self.mode = mode
        self.limit = minutes * 60.0
        self.rng = random.Random(seed)
        self.said: list[dict[str, Any]] = []
        self.commands: list[dict[str, str]] = []
        self.wake = loop.wake_phrases()
        #: natural phrasing (``natural.py``; None: the grammar's own phrases), chosen with its
        #: own generator, so the plain session's choices stay as they were
        self.phrasing = phrasing
        self.phrase_rng = random.Random(seed + 40)
        self._closed = False

    # -- AudioSource ------------------------------------------------------------------
    def close(self) -> None:
        self._closed = True
        self.audio.closed = True

    def frames(self) -> Iterator[Frame]:
        seat = 0
        yield from self._enrol()
        self.limit += self.audio.t      # the session's minutes of play come after the enrollment
        while not self._closed and self.audio.t < self.limit and not self.session.over:
            if self.said and self.rng.random() < CHATTER_SHARE:
                yield from self._chat(seat)
            if self.loop.state is LoopState.PAUSED:
                # chatter paused the assistant ("stop listening"): a table asks it back
                wake = self.session.grammar.render("start listening") or "start listening"
                yield from self._say("answer", wake, self.seats[seat], meant="start listening", addressed=True)
                continue
            got = players.next_command(self.game, self.session, self.loop, self.rng)
            if got is None:
                yield from self._wait(2.0)
                continue
            text, command = got
            seat = (seat + 1) % len(self.seats)
            if self.mode in ("phone", *SEATED):
                seat = self._acting_seat(command, seat + 1) - 1
                intruder = self._intruder(command)
                if intruder is not None:
                    yield from self._say("intruder", text, self.seats[intruder - 1], addressed=True,
                                         seat=intruder)
                    yield from self._not_me()
            yield from self._command(text, command, self.seats[seat], seat + 1)
        # trailing quiet for the endpointer to close the last utterance
        yield from self.audio.until(self.audio.t + 1.5)

    def _enrol(self) -> Iterator[Frame]:
        """At a microphone array the referee first asks each seat, by name, to say its line:
        the seat asked says it (again when asked again), up to ``ENROLL_TRIES_PER_SEAT``
        lines a seat; then the table plays on."""
        turns = getattr(self.loop, "voices", None)
        tries = 0
        while (turns is not None and turns.asking is not None and not self._closed
               and tries < ENROLL_TRIES_PER_SEAT * len(self.seats)):
            seat = turns.asking
            tries += 1
            yield from self._say("enroll", players.ENROLL_LINE, self.seats[seat - 1], addressed=True, seat=seat)

    def _not_me(self) -> Iterator[Frame]:
        """Asked by name about another seat's line ("Ann, was that you: ...?"), the seat asked
        answers no from its own seat (again when asked again), as a player who did not say
        it does; an intruder never answers for her."""
        line = len(self.said) - 1
        answers = 0
        while (self.loop.state is LoopState.CONFIRMING and answers < TRIES and not self._closed
               and score.line_of(_span(self.loop.pending_from), self.said) == line):
            pending = self.loop.pendings.current
            asked = pending.by_name if pending is not None else None
            if asked is None:
                return
            answers += 1
            yield from self._say("answer", self._answer_words("no"), self.seats[asked - 1], meant="no",
                                 addressed=True, seat=asked)

    # -- what the loop did for a command ---------------------------------------------
    def _applied_for(self, index: int) -> list[tuple[bool, dict[str, Any]]]:
        """Applications heard in a line of command ``index``: (the command meant?, record)."""
        meant = self.commands[index]["canonical"]
        out = []
        for done in self.watch.executed:
            if done["how"] == "internal":
                continue
            k = score.line_of(done["cause"], self.said)
            if k is not None and self.said[k]["command"] == index:
                out.append((done["canonical"].lower() == meant, done))
        return out

    def _understood(self, index: int) -> bool:
        return any(right for right, _ in self._applied_for(index))

    def _went_wrong(self, index: int) -> bool:
        return any(not right and done["accepted"] and not done["query"] for right, done in self._applied_for(index))

    def _pending_is(self, index: int) -> bool:
        """Whether the command held or asked about now was heard in a line of ``index``."""
        k = score.line_of(_span(self.loop.pending_from), self.said)
        return k is not None and self.said[k]["command"] == index

    # -- lines -----------------------------------------------------------------------
    def _acting(self, command: Command) -> frozenset[int] | None:
        return self.session.referee.acting_seats(self.session.state, command)  # type: ignore[no-any-return]

    def _acting_seat(self, command: Command, turn: int) -> int:
        """The seat that says ``command`` on its phone: one that may give it (the next in turn
        when anyone may)."""
        acting = self._acting(command)
        return min(acting) if acting else turn

    def _intruder(self, command: Command) -> int | None:
        """Now and then, a seat that may not give ``command`` says it on its own phone."""
        acting = self._acting(command)
        others = [s for s in range(1, len(self.seats) + 1) if acting and s not in acting]
        share = ARRAY_INTRUDER_SHARE if self.mode in SEATED else INTRUDER_SHARE
        if not others or self.rng.random() >= share:
            return None
        return self.rng.choice(others)

    def _command(self, text: str, command: Command, voice: str, seat: int = 0) -> Iterator[Frame]:
        meant = command.canonical.lower()
        self.commands.append({"canonical": meant, "text": text, "voice": voice})
        index = len(self.commands) - 1
        for k in range(1, TRIES + 1):
            if self._closed or self.audio.t >= self.limit + 30 or self._understood(index):
                return
            spoken = self._addressing(self.phrasing.say(text, self.phrase_rng) if self.phrasing else text)
            # a player who hears the command applied meanwhile (its undo window closed) does not say it again
            acting = self._acting(command)   # a try said after the turn moved on is no longer this seat's
            said = yield from self._say("command", spoken, voice, rate=165 - 15 * (k - 1), index=index,
                                        meant=meant, attempt=k, addressed=True,
                                        still_wanted=lambda: not self._understood(index), seat=seat,
                                        may_act=acting is None or seat in acting)
            if said is None:
                return
            # answer the referee about what it heard: a question "yes" or "no"; an echo of
            # something else "no" (an echo of the command meant is left to its window, or
            # confirmed by saying the command again, as players do); a question or an echo
            # about the command after it was applied "no" (it was a late repeat)
            answers = 0
            while (self.loop.pending is not None and self._pending_is(index) and answers < TRIES
                   and not self._closed and self.loop.state in (LoopState.CONFIRMING, LoopState.HOLDING)):
                # the command meant, unless the player heard it applied already (a late repeat)
                right = self.loop.pending.canonical.lower() == meant and not self._understood(index)
                if self.loop.state is LoopState.HOLDING and right:
                    break
                answers += 1
                word = "yes" if right else "no"
                spoken = self._answer_words(word)
                pending = self.loop.pending
                yield from self._say("answer", spoken, voice, index=index, meant=word, attempt=k, addressed=True,
                                     seat=seat)
                if self.loop.pending is not pending:
                    break
            if self._understood(index) or self._went_wrong(index) or self.session.over:
                return

    def _answer_words(self, word: str) -> str:
        """ "yes" or "no" as this table says it."""
        if self.phrasing is not None:
            return self.phrasing.answer(word, self.phrase_rng)
        return self.session.grammar.render(word) or word

    def _addressing(self, text: str) -> str:
        if self.mode == "wake" and self.wake:
            return f"{self.rng.choice(self.wake)} {text}"
        return text

    def _chat(self, seat: int) -> Iterator[Frame]:
        index = (seat + 1 + self.rng.randrange(len(self.seats) - 1)) % len(self.seats)
        other = self.seats[index]
        laugh = self.rng.random() < LAUGH_SHARE / CHATTER_SHARE
        text = self.rng.choice(LAUGHTER) if laugh else self.rng.choice(self.chatter)
        # from its own seat (two seats may share a voice)
        yield from self._say("chatter", text, other, rate=175 if laugh else 165, seat=index + 1)
        line = len(self.said) - 1
        # chatter that got a question or an echo back is answered "no", as a table would
        answers = 0
        while (self.loop.state in (LoopState.CONFIRMING, LoopState.HOLDING) and answers < TRIES
               and not self._closed and score.line_of(_span(self.loop.pending_from), self.said) == line):
            answers += 1
            spoken = self._answer_words("no")
            yield from self._say("answer", spoken, other, meant="no", addressed=True)

    def _say(self, kind: str, text: str, voice: str, rate: int = 165, index: int = -1,
             meant: str = "", attempt: int = 0, addressed: bool = False,
             still_wanted: Any = None, seat: int = 0,
             may_act: bool = True) -> Generator[Frame, None, dict[str, Any] | None]:
        """Say one line after the assistant is quiet and a short gap (a line addressed to
        the referee is pressed in push-to-talk, or on seat ``seat``'s phone); None when
        ``still_wanted()`` turned false before the line began.  Returns once the loop
        heard the line (or gave up on it)."""
        gap = self.rng.uniform(0.4, 1.0)
        start = max(self.audio.t, self.loop.quiet_from) + gap
        phone = addressed and self.mode == "phone" and seat > 0
        press = addressed and (self.mode.startswith("ptt") or phone)
        pressed, pressed_at = False, start
        while self.audio.t < start and not self._closed:
            if still_wanted is not None and not still_wanted():
                return None
            if press and not pressed and self.audio.t >= start - PRESS_LEAD_SECONDS:
                pressed_at = self._press(phone, seat)
                pressed = True
            yield from self.audio.until(min(start, self.audio.t + 0.09))
            start = max(start, self.loop.quiet_from + gap)
        if still_wanted is not None and not still_wanted():
            return None
        if press and not pressed:
            pressed_at = self._press(phone, seat)
        start = self.audio.t
        dry = self.voices.say(voice, text, rate)
        if addressed and self.mode == "ptt-close":
            wet = room.level(dry, room.SPEECH_DBFS)   # 5-10 cm from the mouth: the direct sound
        else:
            wet = self.audio.said_by(room.level(dry, room.SPEECH_DBFS), seat or self.seats.index(voice) + 1)
        self.audio.add(wet, start)
        end = start + len(dry) / SAMPLE_RATE
        utterance = asdict(Utterance(kind, text, voice, round(start, 3), round(end, 3), index, meant, attempt,
                                     may_act))
        self.said.append(utterance)
        heard_before, sounds_before = self.loop.heard_segments, len(self.watch.sounds)
        yield from self.audio.until(end)
        if press:
            yield from self.audio.until(end + RELEASE_LAG_SECONDS)
            if phone:
                pcm = phone_hears(dry, start - pressed_at, self.audio.heard_since(pressed_at))
                self.loop.phone_utterance(seat, pcm, end=self.audio.t)
            else:
                self.loop.release(self.audio.t)
        # wait for the loop: until it reacts (a sound or a sentence), or it has taken the line
        # and stayed silent a moment (chatter gets silence), or patience runs out
        waited_until = end + PATIENCE_SECONDS
        while not self._closed and self.audio.t < waited_until:
            if self.loop.state is LoopState.DONE or len(self.watch.sounds) > sounds_before:
                break
            current = self.loop.current
            if (self.loop.heard_segments > heard_before and current is not None and current.start <= end
                    and self.audio.t >= end + SILENCE_TAKEN_SECONDS):
                break
            yield from self.audio.until(self.audio.t + 0.09)
        return utterance

    def _press(self, phone: bool, seat: int) -> float:
        if phone:
            self.loop.phone_press(seat, at=self.audio.t)
        else:
            self.loop.press(self.audio.t)
        return self.audio.t

    def _wait(self, seconds: float) -> Iterator[Frame]:
        yield from self.audio.until(self.audio.t + seconds)


def phone_hears(dry: np.ndarray, offset: float, table: np.ndarray) -> bytes:
    """What a phone held at arm's length hears while its talk button is down: its player's
    line dry (``offset`` seconds after the press), ``PHONE_GAIN_DB`` above the table
    microphone's mix of everything (``table``, from the press on: the room's talk, the
    other players, the referee's voice), through a phone's band (``room.phone_band``)."""
    line = room.level(dry, room.SPEECH_DBFS)
    first = max(0, round(offset * SAMPLE_RATE))
    out = np.asarray(table, dtype=np.float64) * 10 ** (-PHONE_GAIN_DB / 20)
    if len(out) < first + len(line):
        out = np.concatenate([out, np.zeros(first + len(line) - len(out))])
    out[first: first + len(line)] += line
    out = room.phone_band(out)
    return np.clip(np.round(out), -32768, 32767).astype("<i2").tobytes()


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


def play(game: str, condition: str, snr_db: float | None, voice_set: str, seats: tuple[str, ...],
         minutes: float, seed: int, recognizer: Any, endpointer_factory: Any,
         background: Path | None = None, ir_path: Path | None = None,
         chatter: tuple[str, ...] = (), data_dir: Path | None = None,
         record: list[bytes] | None = None, mode: str = "always", engines: str = "both",
         rt60: float | None = None, verify_cpu_scale: float = 1.0, phrasing: str = "plain",
         array: str = "respeaker-4mic-hat", array_room: str = "lounge") -> Result:
    """One session of ``game`` in ``condition`` (background talk ``snr_db`` below the players;
    None: no background talk, steady noise only), the table addressing the referee by
    ``mode`` (``MODES``); ``engines`` only labels the result; ``rt60``: the synthetic
    room's reverberation time (None: ``room.impulse_response``'s default); ``phrasing``:
    ``plain`` (the grammar's own phrases) or ``natural`` (``natural.py``); ``array``: the
    microphone array of the array mode (``direction.GEOMETRIES``), in the room
    ``array_room`` (``array_room.ROOMS``)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")
    result = Result(game=game, condition=condition, voices=voice_set, mode=mode, engines=engines)
    voices = Voices()
    synthesizer = Synthesizer(VoiceSettings(), engine="espeak-ng")
    began = time.perf_counter()
    room_gain = 10 ** (-CLOSE_TALK_GAIN_DB / 20) if mode == "ptt-close" else 1.0   # the table mic is the close one
    try:
        seconds = minutes * 60.0 + 60.0 + (15.0 * len(seats) if mode in SEATED else 0.0)   # enrollment first
        if mode in SEATED:
            from facilitator.speech.voices.direction import GEOMETRIES

            from .array_audio import array_audio

            geometry = GEOMETRIES[array]
            audio: TableAudio = array_audio(geometry, len(seats), seed, seconds, snr_db, voices.say,
                                            raw=mode == "array", room_name=array_room)
        else:
            bed = room.pink_noise(seconds, seed) * (32768.0 * 10 ** ((room.SPEECH_DBFS - room.NOISE_BELOW_DB) / 20))
            if snr_db is not None:
                talk = room.background_bed(voices.say, seconds, seed, background)
                bed += talk * (32768.0 * 10 ** ((room.SPEECH_DBFS - snr_db) / 20))
                del talk
            bed *= room_gain
            if ir_path is not None:
                ir = room.load_ir(ir_path)
            else:
                ir = room.impulse_response(seed=seed) if rt60 is None else room.impulse_response(rt60, seed=seed)
            audio = TableAudio(np.clip(np.round(bed), -32768, 32767).astype(np.int16), ir, room_gain)
            del bed
        audio.recording = record
        reset_peak_rss()   # count the loop's memory, not the making of the background
        log_path = (data_dir / f"{game}-{condition}-{voice_set}-{seed}.jsonl") if data_dir else None
        session, reply = Session.start(game, players=len(seats), seed=seed, log_path=log_path)
        # lines the table types on its screens before talking (Clover's clues): only the
        # announcement after the last one is spoken, as if they were typed before the session
        typed, last = players.type_opening(game, session)
        reply = last or reply
        watch = Watch(recognizer, synthesizer, audio)
        settings = LoopSettings(wake_phrase=mode == "wake", push_to_talk=mode.startswith("ptt"),
                                verify_cpu_scale=verify_cpu_scale)
        loop = ListenLoop(session, watch, watch, VoiceSettings(), None, settings)
        watch.loop = loop
        watch.observe(session)
        watch.watch_hearing(loop)
        turns = None
        if mode in SEATED:   # seats named by where they speak, by voice with both engines
            from facilitator.speech.voices.voice_turns import VoiceTurns

            light = engines == "light"   # without an array, the light mode learns no voices (as the product)
            turns = VoiceTurns.attach(loop, "on" if mode == "array" or not light else "off",
                                      second_engine="off" if light else "always",
                                      array=geometry if mode == "array" else None)
        table = Table(game, session, loop, watch, audio, voices, seats, chatter, minutes, seed, mode,
                      natural.load(game) if phrasing == "natural" else None)
        loop.announce(reply.public)
        if turns is not None:
            turns.begin()      # each seat asked by name to say its line
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
        # scored after the run from what was recorded: a game-ending command is credited too
        result.trace = trace_of(result, table, watch, segments, getattr(endpointer, "max_seconds", 8.0))
        result.trace["typed"] = typed
        apply_score(result, score.score(result.trace))
        result.transcript = score.transcript(result.trace)
    finally:
        synthesizer.close()
        voices.close()
    result.wall_seconds = time.perf_counter() - began
    result.peak_rss_mb = peak_rss_mb()
    return result


def trace_of(result: Result, table: Table, watch: Watch, segments: list[Segment], cap: float) -> dict[str, Any]:
    """The session's observable trace (``score.py``), JSON-ready."""
    phrases = table.session.phrases
    controls = sorted({phrases.say(k) for k in ("voice-louder", "voice-softer", "voice-faster", "voice-slower",
                                               "voice-loudest", "voice-softest", "voice-fastest", "voice-slowest",
                                               "voice-stop-listening", "voice-start-listening")})
    from facilitator.speech.voices.refusal import seat_name

    turns = getattr(table.loop, "voices", None)
    bearings = {} if turns is None else {str(seat): round(degrees, 1)
                                         for seat, degrees in turns.prints.bearings.items()}
    refusals = sorted({phrases.say(k, name=seat_name(table.session, seat)) for k in phrases.responses
                       if k.startswith("speaker-not-yours") for seat in range(1, len(table.seats) + 1)})
    # "Ann, was that you: ...?": the question by name, up to the command
    by_name = sorted({phrases.say("voices-was-that-you", name=seat_name(table.session, seat), command="\0")
                      .split("\0")[0] for seat in range(1, len(table.seats) + 1)})
    return {
        "game": result.game, "condition": result.condition, "voices": result.voices,
        "mode": result.mode, "engines": result.engines,
        "ended_at": round(table.audio.t, 3), "over": bool(table.session.over), "cap": cap,
        "said": table.said, "commands": table.commands,
        "executed": watch.executed, "sounds": watch.sounds,
        "segments": [[round(s.start, 3), round(s.end, 3)] for s in segments],
        "latencies": [[round(s.start, 3), round(s.end, 3), round(lat, 4)] for s, lat, _ in watch.latencies],
        "echo_latencies": [[round(s.start, 3), round(s.end, 3), round(lat, 4)] for s, lat, fast in watch.latencies
                           if fast],
        "verdicts": [[round(s.start, 3), round(s.end, 3), round(began, 3), None if at is None else round(at, 3),
                      None if cpu is None else round(cpu, 4)] for s, began, at, cpu in table.loop.verdicts],
        "costs": [[s, e, {k: round(v, 5) for k, v in stages.items()}] for s, e, stages in watch.costs],
        "control_texts": controls, "control_intents": sorted(CONTROLS),
        "say_again": phrases.say("say-again"),
        "refusal_texts": refusals,
        "by_name_texts": by_name,
        # the seats' bearings learned at a microphone array (degrees, by seat)
        "bearings": bearings,
        # the loop's own counts, for reading a transcript (the scorer does not use them)
        "loop": {name: getattr(table.loop, name) for name in
                 ("asked", "held", "released", "repeated", "corrected", "undone", "chatter", "verified",
                  "withdrawn")},
    }


def apply_score(result: Result, got: score.Score) -> None:
    """The scorer's counts into ``result``."""
    for f in fields(score.Score):
        setattr(result, f.name, getattr(got, f.name))
