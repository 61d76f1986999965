"""One WAV of a whole session: the players' audio and the assistant's, on one timeline.

``SessionMix`` collects pieces of 16 kHz mono audio at stream times (the crew's
frames as the loop hears them, each sentence and earcon the assistant says) and
writes them summed, so a listener hears the table as it happened.
``DemoSpeaker`` renders each sentence once and sends it to every sink a session
has: the sound card when one exists, numbered WAV files, and the mix.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ...errors import FacilitatorError
from ..base import SAMPLE_RATE, SAMPLE_WIDTH, VoiceSettings
from ..voice_out.tts import Synthesizer, load_earcon, scaled
from .devices import convert, play_pcm, write_wav


class SessionMix:
    """Audio pieces at stream times, summed into one WAV on ``write``."""

    def __init__(self) -> None:
        self._pieces: list[tuple[float, np.ndarray]] = []

    def add(self, t: float, pcm: bytes, rate: int = SAMPLE_RATE) -> None:
        """``pcm`` (mono int16 at ``rate``) starting ``t`` seconds into the session."""
        if rate != SAMPLE_RATE:
            pcm = convert(pcm, rate, 1, SAMPLE_WIDTH)
        if pcm:
            self._pieces.append((max(0.0, t), np.frombuffer(pcm, dtype="<i2").astype(np.int32)))

    @property
    def seconds(self) -> float:
        return max((t + len(a) / SAMPLE_RATE for t, a in self._pieces), default=0.0)

    def write(self, path: str | Path) -> float:
        """Write the mix; return its length in seconds."""
        total = np.zeros(round(self.seconds * SAMPLE_RATE) + 1, dtype=np.int32)
        for t, samples in self._pieces:
            start = round(t * SAMPLE_RATE)
            total[start:start + len(samples)] += samples
        write_wav(path, np.clip(total, -32768, 32767).astype("<i2").tobytes())
        return len(total) / SAMPLE_RATE


class DemoSpeaker:
    """A speaker for sessions that are not at a real table (the demo, benchmarks).

    Each sentence is rendered once, then played on ``device`` (if given), written as
    numbered WAV files in ``directory`` (if given) and placed in ``mix`` at the
    stream time ``clock()`` (if given).  ``spoken`` lists the sentences in order.
    """

    def __init__(self, settings: VoiceSettings, *, device: int | None = None,
                 directory: Path | None = None, mix: SessionMix | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.settings = settings
        self.synthesizer = Synthesizer(settings)
        self.device = device
        self.directory = directory
        self.mix = mix
        self.clock = clock
        self.spoken: list[str] = []
        self._count = 0
        self._cursor = 0.0
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)

    def speak(self, text: str) -> float:
        pcm, rate = self.synthesizer.synthesize(text)
        self.spoken.append(text)
        self._out(pcm, rate, "speech", text)
        return len(pcm) / SAMPLE_WIDTH / rate

    def earcon(self, name: str) -> None:
        pcm, rate = load_earcon(name)
        self._out(scaled(pcm, self.settings.volume), rate, f"earcon-{name}", None)

    def _out(self, pcm: bytes, rate: int, label: str, text: str | None) -> None:
        if self.mix is not None:
            now = self.clock() if self.clock is not None else self._cursor
            start = max(now, self._cursor)
            self.mix.add(start, pcm, rate)
            self._cursor = start + len(pcm) / SAMPLE_WIDTH / rate
        if self.directory is not None:
            self._count += 1
            path = self.directory / f"{self._count:04d}-{label}.wav"
            write_wav(path, pcm, rate)
            if text is not None:
                path.with_suffix(".txt").write_text(text + "\n", encoding="utf-8")
        if self.device is not None:
            try:
                play_pcm(pcm, rate, self.device)
            except FacilitatorError:
                self.device = None   # the speaker went away: the files and the mix go on

    def play(self, pcm: bytes, rate: int) -> None:
        """Play other audio (a crew member's line) on the sound card, if there is one."""
        if self.device is not None:
            try:
                play_pcm(pcm, rate, self.device)
            except FacilitatorError:
                self.device = None

    def close(self) -> None:
        self.synthesizer.close()
