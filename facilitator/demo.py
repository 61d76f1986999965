"""``facilitator demo``: a self-playing Compass Code voyage, by voice or in text.

A small scripted crew plays against the real referee through the real session:
each captain says a guess in the grammar's own words, and the crew uses the
bearing check when the candidates are still split before the final guess.  The
crew is a player, not the assistant: the assistant never suggests a guess.

By default the crew *speaks*: each line is synthesized with espeak-ng (a voice
per seat), fed as audio through the real listen loop (endpointer, pocketsphinx,
confirmation), with captions on stdout.  No microphone is needed; when a speaker
exists the whole session (crew and assistant) plays through it (``--no-speaker``
keeps it silent), ``--speech-out DIR`` keeps the assistant's sentences as WAV
files and ``--mix-out FILE`` one mixed WAV of the whole session.  When the
assistant echoes something the crew did not say, the crew says "no" and says it
again, as a table would; when it is right, "yes" (which also closes an implicit
echo's undo window at once).  The crew asks for the candidates after the wake
phrase, as a player must while the recognizer is unsure of what it hears.
``--text`` plays the same crew through typed lines.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from .command import NotRecognized
from .games.compass_code import ALL_ROUTES, feedback
from .session import Session
from .speech.audio.mix import SessionMix
from .speech.audio.spoken_crew import Line, SpokenCrew
from .speech.base import Frame, Recognizer, Speaker
from .speech.loop.listen import ListenLoop, LoopSettings, LoopState, StreamCaptions


def best_guess(candidates: list[str]) -> str:
    """The route whose worst-case feedback leaves the fewest candidates (a crew's tactic)."""
    if len(candidates) <= 2:
        return candidates[0]

    def worst(guess: str) -> tuple[int, bool]:
        split = Counter(feedback(guess, c) for c in candidates)
        return max(split.values()), guess not in candidates

    return min(ALL_ROUTES, key=worst)


def crew_line(session: Session) -> str:
    """What the crew says next, in the grammar's spoken words."""
    referee = session.referee
    state = session.state
    cands = referee.candidates(state)  # type: ignore[attr-defined]
    final = state.guess == state.max_guesses
    if final and len(cands) > 1 and state.has_check and state.check is None:
        route = cands[0]
        for position in range(4):
            if len({c[position] for c in cands}) > 1:
                canonical = f"check {route[position]} {position + 1}"
                break
    else:
        canonical = f"send {best_guess(cands)}"
    phrase = session.grammar.render(canonical)
    return phrase or canonical


#: espeak-ng voices, one per seat, so the recognizer hears more than one speaker
CREW_VOICES = ("en-us", "en-gb", "en-us+f3", "en-gb-scotland", "en-us+m3", "en-gb+f2", "en-029", "en-us+f4")
#: the crew gives up when a voyage takes more utterances than this (a deaf recognizer)
MAX_UTTERANCES = 160


def run_demo(seed: int = 7, out: IO[str] | None = None, players: int = 4, text: bool = False,
             speech_dir: Path | None = None, log_path: Path | None = None,
             mix_path: Path | None = None, use_speaker: bool = True) -> int:
    """Play one voyage; return 0 when it reached its end."""
    if text:
        return run_text_demo(seed, out, players, log_path)
    return run_voice_demo(seed, out, players, speech_dir, log_path, mix_path, use_speaker)


def run_text_demo(seed: int = 7, out: IO[str] | None = None, players: int = 4,
                  log_path: Path | None = None) -> int:
    out = out or sys.stdout
    session, reply = Session.start("compass-code", players=players, seed=seed, log_path=log_path,
                                   resumable=False)
    for line in reply.public:
        out.write(line + "\n")
    turns = 0
    while not session.over and turns < 60:
        turns += 1
        captain = session.state.name(session.state.captain)
        if session.state.scored:
            asked = session.grammar.render("candidates") or "candidates"
            out.write(f"  {captain}: {asked}\n")
            for line in session.handle(asked).public:
                out.write(line + "\n")
        said = crew_line(session)
        out.write(f"  {captain}: {said}\n")
        for line in session.handle(said).public:
            out.write(line + "\n")
    out.flush()
    session.log.close()
    return 0 if session.over else 1


class Crew:
    """Decides the crew's next spoken line from the session and the listen loop.

    A line that was not taken (the assistant said "say again?", or nothing moved)
    is said again more slowly, in the next seat's voice, as people do.
    """

    def __init__(self, session: Session, loop: ListenLoop, out: IO[str],
                 voices: tuple[str, ...] = CREW_VOICES) -> None:
        self.session = session
        self.voices = voices
        self.loop = loop
        self.out = out
        self.asked_at: tuple[int, int] | None = None
        self.count = 0
        self._last: tuple[str, object, str] | None = None   # text, game state, loop state
        self._attempt = 0
        self._woke_for: tuple[int, int] | None = None

    def next_line(self) -> Line | None:
        session, state = self.session, self.session.state
        if session.over or self.loop.state is LoopState.DONE or self.count >= MAX_UTTERANCES:
            return None
        self.count += 1
        seat = state.captain
        if self.loop.state in (LoopState.CONFIRMING, LoopState.HOLDING) and self.loop.pending is not None:
            intended = crew_line(session)
            heard = self.loop.pending.canonical
            meant = session.parse(intended, typed=False)
            ok = not isinstance(meant, NotRecognized) and meant.canonical.lower() == heard.lower()
            return self._say(seat, session.grammar.render("yes" if ok else "no") or ("yes" if ok else "no"))
        where = (state.leg, state.guess)
        if state.scored and self.asked_at != where:
            if self._woke_for != where:       # a query is addressed: the wake phrase first
                self._woke_for = where
                return self._say(seat, self.loop.wake_phrases()[0])
            self.asked_at = where
            return self._say(seat, session.grammar.render("candidates") or "candidates")
        return self._say(seat, crew_line(session))

    def _say(self, seat: int, text: str) -> Line:
        moment = (text, self.session.state, self.loop.state.value)
        same = self._last is not None and self._last[0] == text and self._last[1] is moment[1] \
            and self._last[2] == moment[2]
        self._attempt = self._attempt + 1 if same else 0
        self._last = moment
        voice = self.voices[(seat - 1 + self._attempt) % len(self.voices)]
        rate = max(110, 160 - 15 * self._attempt)
        self.out.write(f"  {self.session.state.name(seat)}: {text}\n")
        self.out.flush()
        return Line(text, voice, rate)


def spoken_voyage(session: Session, opening: list[str], recognizer: Recognizer, speaker: Speaker,
                  out: IO[str], voices: tuple[str, ...] = CREW_VOICES,
                  watch: Callable[[ListenLoop], None] | None = None,
                  mix: SessionMix | None = None,
                  crew_type: Callable[[Session, ListenLoop, IO[str], tuple[str, ...]], Crew] | None = None,
                  ) -> ListenLoop:
    """Play ``session`` to its end with the crew's synthesized voices through the real
    loop and endpointer; return the loop (its session tells whether the voyage ended).
    ``watch`` is shown the loop before it starts (benchmarks, tests); ``mix`` gets
    the crew's audio at its stream times (a ``DemoSpeaker`` adds the assistant's);
    a speaker with a ``play`` method plays the crew's lines too."""
    from .speech.audio.endpoint import Endpointer
    from .speech.base import VoiceSettings
    from .speech.voice_out.tts import Synthesizer

    voice = getattr(speaker, "settings", None) or VoiceSettings()
    loop = ListenLoop(session, recognizer, speaker, voice, StreamCaptions(out), LoopSettings())
    if watch is not None:
        watch(loop)
    crew = (crew_type or Crew)(session, loop, out, voices)
    synthesizers: dict[tuple[str, int], Synthesizer] = {}

    play = getattr(speaker, "play", None)

    def synthesize(line: Line) -> tuple[bytes, int]:
        key = (line.voice, line.rate_wpm)
        if key not in synthesizers:
            # the crew speaks at espeak-ng's own level, like a player near the microphone
            synthesizers[key] = Synthesizer(VoiceSettings(voice=line.voice, rate_wpm=line.rate_wpm,
                                                          volume=1.0), engine="espeak-ng")
        pcm, rate = synthesizers[key].synthesize(line.text)
        if play is not None:
            play(pcm, rate)
        return pcm, rate

    source = SpokenCrew(crew.next_line, lambda: loop.heard_segments, lambda: loop.quiet_from, synthesize)
    try:
        loop.announce(opening)
        loop.run_audio(_Mixed(source, mix) if mix is not None else source, Endpointer(complete=loop.complete))
    finally:
        for synthesizer in synthesizers.values():
            synthesizer.close()
    return loop


class _Mixed:
    """An audio source whose frames also go into the session's mix."""

    def __init__(self, source: SpokenCrew, mix: SessionMix) -> None:
        self.source = source
        self.mix = mix

    def frames(self) -> Iterator[Frame]:
        for frame in self.source.frames():
            if any(frame.pcm):
                self.mix.add(frame.t, frame.pcm)
            yield frame

    def close(self) -> None:
        self.source.close()


def _speaker_device() -> int | None:
    """The sound card's output, or None when there is none (the demo then stays silent)."""
    from .errors import DeviceError
    from .speech.audio.devices import find_device

    try:
        return find_device(None, "output")
    except DeviceError:
        return None


def run_voice_demo(seed: int = 7, out: IO[str] | None = None, players: int = 4,
                   speech_dir: Path | None = None, log_path: Path | None = None,
                   mix_path: Path | None = None, use_speaker: bool = True) -> int:
    from .speech.audio.mix import DemoSpeaker
    from .speech.base import VoiceSettings
    from .speech.engines.recognize import make_recognizer

    out = out or sys.stdout
    session, reply = Session.start("compass-code", players=players, seed=seed, log_path=log_path,
                                   resumable=False)
    mix = SessionMix() if mix_path is not None else None
    loops: list[ListenLoop] = []
    speaker = DemoSpeaker(VoiceSettings(), device=_speaker_device() if use_speaker else None,
                          directory=speech_dir, mix=mix,
                          clock=lambda: loops[0].now() if loops else 0.0)
    recognizer = make_recognizer(warn=lambda message: print(f"facilitator: {message}", file=sys.stderr))
    try:
        spoken_voyage(session, reply.public, recognizer, speaker, out, watch=loops.append, mix=mix)
    finally:
        session.log.close()
        speaker.close()
    if mix is not None and mix_path is not None:
        seconds = mix.write(mix_path)
        out.write(f"The whole session ({seconds:.0f} s) is in {mix_path}\n")
    if not session.over:
        print("facilitator: the demo crew gave up before the voyage ended", file=sys.stderr)
        return 1
    if speech_dir is not None:
        out.write(f"The assistant's speech is in {speech_dir}\n")
    out.flush()
    return 0
