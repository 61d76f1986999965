"""The speech pipeline's small interfaces, shared by the real parts and the test fakes.

Audio inside the project is always 16 kHz mono signed 16-bit little-endian PCM.

::

    AudioSource.frames() -> Frame ...   (the table's microphone, or a WAV file)
      -> Endpointer (VAD) -> Segment    (one utterance, with its stream times)
    a seat's phone (a held talk button) -> Segment (its press gave the edges; source "phone")
      -> Recognizer.decode(segment.pcm, RecognitionGrammar) -> Hypothesis | None
         (a TwoStage recognizer also hears first, fast, and verifies later)
      -> Session.parse(text, typed=False, narrow=True) -> Command | NotRecognized
      -> confirmation gate -> Session.execute(command) -> Reply
      -> Speaker.speak(sentence)  (captions printed too)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

SAMPLE_RATE = 16_000
SAMPLE_WIDTH = 2  # bytes, signed 16-bit little-endian
FRAME_MS = 30
FRAME_BYTES = SAMPLE_RATE * FRAME_MS // 1000 * SAMPLE_WIDTH


@dataclass(frozen=True)
class Frame:
    """``FRAME_MS`` of audio starting ``t`` seconds into the stream.

    ``raw``: the same stretch at a microphone array's raw microphones, interleaved
    16 kHz int16 (one sample of each microphone in turn; empty without an array)."""

    pcm: bytes
    t: float
    raw: bytes = b""


@dataclass(frozen=True)
class Segment:
    """One endpointed utterance: ``start``/``end`` are stream seconds of the voiced part.

    ``pcm_start`` is the stream time of the first sample of ``pcm`` (the endpointer
    keeps a little padding before the voice starts); None means ``start``.
    """

    pcm: bytes
    start: float
    end: float
    pcm_start: float | None = None
    #: the microphone that heard it: ``"table"`` (the table's, cut by the endpointer),
    #: ``"ptt"`` (a second microphone read only while push-to-talk is held) or
    #: ``"phone"`` (a seat's phone: the talk button's press and release are its edges)
    source: str = "table"
    #: the seat whose phone heard it (None for every other microphone)
    seat: int | None = None
    #: the same utterance at a microphone array's raw microphones (``Frame.raw``): interleaved
    #: int16, ``microphones`` channels, sample for sample with ``pcm``; empty without an array.
    #: The "who spoke" stage takes the utterance's bearing from it (``voices/direction.py``)
    raw: bytes = field(default=b"", repr=False)
    microphones: int = 0

    @property
    def phone(self) -> bool:
        """Heard by a seat's phone: the speaker is that seat, and the table addressed the referee."""
        return self.source == "phone" and self.seat is not None

    def after(self, t: float) -> Segment:
        """The part of this utterance from stream time ``t`` on (``t`` within it)."""
        origin = self.start if self.pcm_start is None else self.pcm_start
        samples = max(0, round((t - origin) * SAMPLE_RATE))
        return Segment(self.pcm[samples * SAMPLE_WIDTH:], max(self.start, t), self.end, max(self.start, t),
                       self.source, self.seat, self.raw[samples * SAMPLE_WIDTH * self.microphones:],
                       self.microphones)


@dataclass(frozen=True)
class Hypothesis:
    """What a recognizer heard; ``score`` is engine-specific (higher is better), if any.

    ``sure`` is the recognizer's own verdict that the words are what was said (its
    checks passed with margin); the loop confirms an unsure hearing explicitly.
    """

    text: str
    score: float | None = None
    sure: bool = False
    #: what a free transcriber (Whisper) wrote, n-best, folded to the grammar's words: the
    #: meaning stage reads it when ``text`` is no command (empty: not heard freely)
    free: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecognitionGrammar:
    """One decoding grammar, built from ``grammars/`` for the current state.

    ``jsgf`` for pocketsphinx, ``phrases`` (every full phrase) for Vosk and
    for Whisper's rescoring (``whisper_engine.py``),
    ``words`` the vocabulary (to check against a dictionary), ``key`` a cache key.
    ``commands`` maps a phrase to the command it says (its canonical form, by the
    grammar's own parse), so "read hands" and "read the hands" are one command
    (``hybrid.decide``); empty when the builder gave none (then a phrase is its
    own command).
    """

    jsgf: str
    phrases: tuple[str, ...]
    words: frozenset[str]
    key: str = ""
    commands: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: pocketsphinx: the probability of a filler (noise, other talk) between words and around
    #: the phrase (None: the decoder's default); raised for short answers (``short_answers.py``)
    filler_probability: float | None = None

    def command_of(self, phrase: str) -> str:
        """The command ``phrase`` says under this grammar (the phrase itself when unknown)."""
        return self.commands.get(phrase) or phrase


class Recognizer(Protocol):
    name: str

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        """Decode one utterance under ``grammar``; None when nothing in it was heard."""
        ...


@dataclass(frozen=True)
class FirstHearing:
    """A two-stage recognizer's fast hearing of one utterance (never sure on its own), kept
    for the second engine's verdict: ``hint`` is the fast engine's best legal phrase even
    when it rejected the utterance (the second engine scores it too)."""

    hypothesis: Hypothesis | None
    hint: str | None = None


class TwoStage(Recognizer, Protocol):
    """A recognizer whose answer comes in two steps: a fast first hearing, then a slower
    verdict that may take the second engine's time (``decode`` is both at once)."""

    def hear_first(self, pcm: bytes, grammar: RecognitionGrammar) -> FirstHearing:
        """The fast engine alone."""
        ...

    def verify(self, pcm: bytes, grammar: RecognitionGrammar, first: FirstHearing) -> Hypothesis | None:
        """Both engines' answer, given the fast engine's hearing (thread-safe against ``decode``)."""
        ...


class AudioSource(Protocol):
    def frames(self) -> Iterator[Frame]:
        """Frames until the source ends (a file) or forever (a microphone)."""
        ...

    def close(self) -> None: ...


class Speaker(Protocol):
    def speak(self, text: str) -> float:
        """Say ``text`` (blocking until played); return its duration in seconds."""
        ...

    def earcon(self, name: str) -> None:
        """Play a short sound: ``listening``, ``understood`` or ``not-understood``."""
        ...


class Interruptible(Speaker, Protocol):
    """A speaker that a phone's press can stop mid-sentence (barge-in)."""

    def stop(self) -> None:
        """Stop what is playing now (thread-safe); ``speak`` returns early."""
        ...


@dataclass
class VoiceSettings:
    """Speech-out settings; rate in words per minute, volume 0.0-1.0."""

    rate_wpm: int = 165
    #: a linear gain on the voice and the earcons: 1.0 is the loudest without
    #: clipping; the default 0.5 (-6 dB) leaves two audible "louder" steps
    volume: float = 0.5
    voice: str | None = None
    deaf_after_speech_seconds: float = 0.3
    confirm_timeout_seconds: float = 8.0
    extra: dict[str, str] = field(default_factory=dict)
