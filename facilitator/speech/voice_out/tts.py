"""Speech out: text -> audio with pyttsx3 over espeak-ng, then played or written to files.

pyttsx3's ``runAndWait`` is known to hang, and its ``say`` needs ``aplay``; so it
never runs in this process.  A worker process (``tts_worker``) renders each
sentence to a WAV file with ``save_to_file``; the parent waits with a timeout,
and on a timeout or a dead worker kills it and renders that sentence with the
``espeak-ng`` program instead.  The audio is then played through sounddevice
(``SoundSpeaker``) or kept as numbered WAV files (``FileSpeaker``).

Volume is one linear gain applied here to the rendered speech *and* to the
earcons (``VoiceSettings.volume``; 1.0 is espeak-ng's own level, which peaks just
below full scale): the engines always render at their full level, so "louder"
and "softer" move speech and earcons together in exact decibel steps.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any

from ...errors import SpeechError
from ...paths import audio_dir
from ..audio.devices import play_pcm, write_wav
from ..base import VoiceSettings

EARCONS = ("listening", "understood", "not-understood")
INSTALL_HINT = ("install espeak-ng (Debian/Raspberry Pi OS: sudo apt install espeak-ng; "
                "macOS: brew install espeak-ng)")
START_SECONDS = 10.0
#: espeak-ng's own amplitude: its loudest sentences peak about 2 dB below full scale
FULL_AMPLITUDE = 100


def scaled(pcm: bytes, gain: float) -> bytes:
    """16-bit PCM times ``gain`` (clipped), the one volume of speech and earcons."""
    if abs(gain - 1.0) < 1e-9:
        return pcm
    import numpy as np

    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) * gain
    return np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes()


def _timeout(text: str) -> float:
    return 5.0 + len(text) / 40


class Synthesizer:
    """Renders sentences to 16-bit mono PCM with the voice, rate and volume of ``settings``.

    ``settings`` is read at every call, so "louder" or "slower" take effect on the
    next sentence.  ``engine="pyttsx3"`` (default) uses the worker and falls back
    to the program; ``engine="espeak-ng"`` calls the program only.  SpeechError
    when espeak-ng is not installed.  ``worker_command`` replaces the worker's
    command line (tests use a worker that hangs); ``worker_timeout_seconds``
    bounds the wait for one sentence (default: 5 s plus a little per character).
    """

    def __init__(self, settings: VoiceSettings, engine: str = "pyttsx3",
                 worker_command: list[str] | None = None,
                 worker_timeout_seconds: float | None = None) -> None:
        if engine not in ("pyttsx3", "espeak-ng"):
            raise SpeechError(f"unknown speech engine {engine!r} (pyttsx3 or espeak-ng)")
        program = shutil.which("espeak-ng")
        if program is None:
            raise SpeechError(f"espeak-ng is not installed, so nothing can be spoken; {INSTALL_HINT}")
        self.settings = settings
        self.engine = engine
        self._program = program
        self._worker_command = worker_command or [sys.executable, "-m", "facilitator.speech.voice_out.tts_worker"]
        self._worker_timeout = worker_timeout_seconds
        self._worker: subprocess.Popen[bytes] | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._pending = b""
        self._worker_failures = 0
        self._tmp = tempfile.mkdtemp(prefix="facilitator-tts-")
        self._tmp_cleanup = weakref.finalize(self, shutil.rmtree, self._tmp, ignore_errors=True)
        self._count = 0
        self.fallbacks = 0  # sentences the worker could not render

    def synthesize(self, text: str) -> tuple[bytes, int]:
        """``text`` as (mono int16 PCM, sample rate); SpeechError if nothing can render it."""
        self._count += 1
        path = Path(self._tmp) / f"s{self._count}.wav"
        if self.engine == "pyttsx3" and self._worker_failures < 2 and self._with_worker(text, path):
            audio = _read_pcm(path, remove=True)
            if audio is not None:
                return scaled(audio[0], self.settings.volume), audio[1]
        self.fallbacks += self.engine == "pyttsx3"
        self._with_program(text, path)
        audio = _read_pcm(path, remove=True)
        if audio is None:
            raise SpeechError(f"espeak-ng wrote no audio for {text[:40]!r}")
        return scaled(audio[0], self.settings.volume), audio[1]

    # -- the pyttsx3 worker ----------------------------------------------------
    def _start_worker(self) -> bool:
        try:
            worker = subprocess.Popen(self._worker_command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, bufsize=0)
        except OSError:
            return False
        self._worker, self._pending = worker, b""
        self._finalizer = weakref.finalize(self, _end_worker, worker)
        hello = self._answer(self._worker_timeout or START_SECONDS)
        if not hello or not hello.get("ready"):
            self._stop_worker()
            return False
        return True

    def _answer(self, timeout: float) -> dict[str, Any] | None:
        """The worker's next answer line, or None when it is silent for ``timeout`` or gone."""
        worker = self._worker
        assert worker is not None and worker.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([worker.stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(worker.stdout.fileno(), 4096)
            if not chunk:
                return None
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        try:
            answer: dict[str, Any] = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None
        return answer

    def _with_worker(self, text: str, path: Path) -> bool:
        if self._worker is None and not self._start_worker():
            self._worker_failures += 1
            return False
        worker = self._worker
        assert worker is not None and worker.stdin is not None
        request = {"text": text, "path": str(path), "voice": self.settings.voice,
                   "rate_wpm": self.settings.rate_wpm, "volume": 1.0}
        try:
            worker.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
            worker.stdin.flush()
        except OSError:
            self._stop_worker()
            self._worker_failures += 1
            return False
        answer = self._answer(self._worker_timeout or _timeout(text))
        if answer is None:  # hung or died: never wait on it again for this sentence
            self._stop_worker()
            self._worker_failures += 1
            return False
        return bool(answer.get("ok"))

    def _stop_worker(self) -> None:
        self._worker = None
        finalizer, self._finalizer = self._finalizer, None
        if finalizer is not None:
            finalizer()

    # -- the espeak-ng program ---------------------------------------------------
    def _with_program(self, text: str, path: Path) -> None:
        command = [self._program, "-s", str(int(self.settings.rate_wpm)),
                   "-a", str(FULL_AMPLITUDE), "-w", str(path)]
        if self.settings.voice:
            command += ["-v", self.settings.voice]
        try:
            done = subprocess.run(command + ["--", text], check=False, capture_output=True,
                                  text=True, timeout=_timeout(text))
        except FileNotFoundError:
            raise SpeechError(
                f"espeak-ng is not installed, so nothing can be spoken; {INSTALL_HINT}") from None
        except subprocess.TimeoutExpired:
            raise SpeechError(f"espeak-ng took too long to say {text[:40]!r}") from None
        if done.returncode != 0:
            detail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise SpeechError(f"espeak-ng failed ({detail})")

    def close(self) -> None:
        """Stop the worker (it also stops by itself when this process ends: its stdin closes)."""
        self._stop_worker()
        self._tmp_cleanup()


def _end_worker(worker: subprocess.Popen[bytes]) -> None:
    """Kill a worker and release its pipes (also run when its Synthesizer is collected)."""
    worker.kill()
    try:
        worker.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (worker.stdin, worker.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass


def _read_pcm(path: Path, remove: bool = False) -> tuple[bytes, int] | None:
    """A mono 16-bit WAV's samples and rate (espeak-ng and pyttsx3 write 22050 Hz)."""
    import wave

    try:
        with wave.open(str(path), "rb") as w:
            if w.getsampwidth() != 2 or w.getnchannels() != 1 or w.getnframes() == 0:
                return None
            return w.readframes(w.getnframes()), w.getframerate()
    except (OSError, EOFError, wave.Error):
        return None
    finally:
        if remove:
            path.unlink(missing_ok=True)


def load_earcon(name: str) -> tuple[bytes, int]:
    """The earcon ``name`` from ``audio/`` as (PCM, rate); SpeechError if it is missing."""
    if name not in EARCONS:
        raise SpeechError(f"unknown earcon {name!r} (one of {', '.join(EARCONS)})")
    found = _read_pcm(audio_dir() / f"{name}.wav")
    if found is None:
        raise SpeechError(f"earcon audio/{name}.wav is missing or not mono 16-bit")
    return found


class SoundSpeaker:
    """Speaker on a sound card: synthesize, then play through sounddevice.

    DeviceError at once when there is no output device; SpeechError when
    espeak-ng is missing.
    """

    def __init__(self, settings: VoiceSettings, device: str | int | None = None) -> None:
        from ..audio.devices import find_device

        self.device = find_device(device, "output")
        self.settings = settings
        self.synthesizer = Synthesizer(settings)
        self._earcons: dict[str, tuple[bytes, int]] = {}

    def speak(self, text: str) -> float:
        pcm, rate = self.synthesizer.synthesize(text)
        return play_pcm(pcm, rate, self.device)

    def earcon(self, name: str) -> None:
        if name not in self._earcons:
            self._earcons[name] = load_earcon(name)
        pcm, rate = self._earcons[name]
        play_pcm(scaled(pcm, self.settings.volume), rate, self.device)

    def stop(self) -> None:
        """Barge-in: stop the sentence playing now (a phone's talk button went down)."""
        from ..audio.devices import stop_playing

        stop_playing()


class FileSpeaker:
    """Speaker without a sound card: each sentence and earcon becomes a numbered WAV.

    ``0001-speech.wav`` (with ``0001-speech.txt`` holding the sentence),
    ``0002-earcon-listening.wav``...; ``spoken`` lists the sentences in order.
    """

    def __init__(self, directory: str | Path, settings: VoiceSettings) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.settings = settings
        self.synthesizer = Synthesizer(settings)
        self.spoken: list[str] = []
        self.earcons: list[str] = []
        self._count = 0

    def _next(self, label: str) -> Path:
        self._count += 1
        return self.directory / f"{self._count:04d}-{label}.wav"

    def speak(self, text: str) -> float:
        pcm, rate = self.synthesizer.synthesize(text)
        path = self._next("speech")
        write_wav(path, pcm, rate)
        path.with_suffix(".txt").write_text(text + "\n", encoding="utf-8")
        self.spoken.append(text)
        return len(pcm) / 2 / rate

    def earcon(self, name: str) -> None:
        pcm, rate = load_earcon(name)
        write_wav(self._next(f"earcon-{name}"), scaled(pcm, self.settings.volume), rate)
        self.earcons.append(name)
