"""A seat's phone as a microphone: the utterances it streams, bounded and checked.

While a player holds the talk control, the phone records 16 kHz mono 16-bit PCM and
posts it in small chunks (about 200 ms each) under the seat's cookie; releasing the
control ends the utterance, which is handed whole to the listen loop::

    POST /seat/N/talk                  a press: a new utterance id (the referee stops talking)
    POST /seat/N/talk/ID/INDEX         one chunk: raw PCM, application/octet-stream
    POST /seat/N/talk/ID/end?chunks=K  the release: the utterance goes to the listener

``Talk`` keeps the seats' open utterances and applies every bound before anything
reaches the listener: at most ``MAX_SECONDS`` an utterance (one that runs longer is
cut off there and dropped, nothing sent), at most ``MAX_CHUNK_BYTES`` a chunk, at most
``UTTERANCES_PER_WINDOW`` presses a seat in ``RATE_WINDOW_SECONDS``, chunks numbered
0, 1, 2... in order, whole samples only, the one content type.  A refused chunk
drops its whole utterance (an utterance with a hole would be misheard), and a
refusal says why (``TalkRefused.key``, the words in ``labels.toml``).  An utterance
is kept nowhere unless ``keep`` names a directory (``[screens] keep_phone_audio``):
then each one handed on is also written there as a WAV.

``PhoneListener`` is the listen loop's side of the boundary (voice play sets
``Hub.listener``; None in text play: nobody listens, and a press is refused).
"""

from __future__ import annotations

import datetime
import os
import secrets
import threading
import time
import wave
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

SAMPLE_RATE = 16_000
SAMPLE_WIDTH = 2
#: the content type of a chunk: raw 16 kHz mono signed 16-bit little-endian samples
CONTENT_TYPE = "application/octet-stream"
MAX_SECONDS = 10.0
MAX_UTTERANCE_BYTES = int(MAX_SECONDS * SAMPLE_RATE) * SAMPLE_WIDTH
#: half a second of audio: a page sends about 200 ms a chunk
MAX_CHUNK_BYTES = SAMPLE_RATE // 2 * SAMPLE_WIDTH
#: presses a seat may make in a window (a command every two seconds, for a minute)
UTTERANCES_PER_WINDOW = 30
RATE_WINDOW_SECONDS = 60.0
#: an open utterance that hears nothing for this long was abandoned (a phone gone)
STALE_SECONDS = 15.0
#: finished utterance ids remembered per seat (to say "finished" rather than "unknown")
FINISHED_KEPT = 32
#: where kept phone audio goes, inside the data directory
AUDIO_FOLDER = "phone-audio"


#: the most digits a chunk's index (or an utterance's chunk count) may have
INDEX_DIGITS = 6


def whole_number(text: str) -> int | None:
    """``text`` as a chunk index: ASCII digits only, at most ``INDEX_DIGITS`` of them;
    None for anything else ("-1", "+1", " 1", "²", "١٢": ``str.isdigit`` and ``int``
    take digits of other scripts, so they are not asked)."""
    if not 0 < len(text) <= INDEX_DIGITS or not all("0" <= c <= "9" for c in text):
        return None
    return int(text)


class PhoneListener(Protocol):
    """What the screens hand a phone's voice to (the listen loop, in voice play).

    Each is called from a web worker thread; each must be thread-safe and return at
    once (the loop does the work on its own thread)."""

    def phone_press(self, seat: int) -> None:
        """Seat ``seat`` pressed its talk control: the referee stops speaking (barge-in)."""
        ...

    def phone_utterance(self, seat: int, pcm: bytes) -> None:
        """A finished utterance from seat ``seat``: 16 kHz mono signed 16-bit LE ``pcm``."""
        ...

    def asking_seat(self) -> int | None:
        """The seat whose phone spoke the command the open question is about ("... Is
        that right?"); None: no such question."""
        ...

    def seat_answer(self, seat: int, yes: bool) -> None:
        """Seat ``seat`` tapped Yes or No to that question."""
        ...


class TalkRefused(Exception):
    """A talk request that is refused, and nothing of it applied: ``key`` names the
    reason (its words are ``talk-refused-KEY`` in ``labels.toml``), ``status`` the
    HTTP status to answer with, ``fields`` what its words name (a seat's name)."""

    def __init__(self, key: str, status: int, **fields: str) -> None:
        super().__init__(key)
        self.key = key
        self.status = status
        self.fields = fields


@dataclass
class _Open:
    id: str
    seat: int
    last: float
    pcm: bytearray = field(default_factory=bytearray)
    next_index: int = 0


@dataclass(frozen=True)
class Finished:
    """An utterance handed on: its audio, and how long it is (seconds)."""

    seat: int
    pcm: bytes

    @property
    def seconds(self) -> float:
        return len(self.pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)


class Talk:
    """The seats' open utterances (thread-safe)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, keep: Path | None = None,
                 per_window: int = UTTERANCES_PER_WINDOW, window_seconds: float = RATE_WINDOW_SECONDS) -> None:
        self.clock = clock
        #: where each handed-on utterance is also written as a WAV (None: kept nowhere)
        self.keep = keep
        self.per_window = per_window
        self.window = window_seconds
        self._lock = threading.Lock()
        self._open: dict[int, _Open] = {}
        self._presses: dict[int, deque[float]] = {}
        self._finished: dict[int, OrderedDict[str, str]] = {}

    def start(self, seat: int) -> str:
        """A press: a new utterance for ``seat`` (an open one it had is dropped unsent).
        Refused (``too-many``) past the seat's rate."""
        with self._lock:
            now = self.clock()
            presses = self._presses.setdefault(seat, deque())
            while presses and now - presses[0] >= self.window:
                presses.popleft()
            if len(presses) >= self.per_window:
                raise TalkRefused("too-many", 429)
            presses.append(now)
            old = self._open.pop(seat, None)
            if old is not None:
                self._finish(old, "dropped")
            utterance = _Open(secrets.token_urlsafe(9), seat, now)
            self._open[seat] = utterance
            return utterance.id

    def chunk(self, seat: int, utterance: str, index: str, content_type: str | None,
              body: bytes) -> float:
        """One chunk of ``utterance``: the seconds recorded so far.  A chunk that is
        refused drops the utterance (unless it is no open utterance of this seat)."""
        with self._lock:
            current = self._current(seat, utterance)
            try:
                number = whole_number(index)
                if number is None:
                    raise TalkRefused("bad-index", 400)
                if (content_type or "").split(";")[0].strip().lower() != CONTENT_TYPE:
                    raise TalkRefused("content-type", 415)
                if number != current.next_index:
                    raise TalkRefused("out-of-order", 409)
                if len(body) > MAX_CHUNK_BYTES:
                    raise TalkRefused("too-large", 413)
                if len(body) % SAMPLE_WIDTH:
                    raise TalkRefused("odd-bytes", 400)
                if len(current.pcm) + len(body) > MAX_UTTERANCE_BYTES:
                    raise TalkRefused("too-long", 413)
            except TalkRefused as refused:
                self._open.pop(seat, None)
                self._finish(current, refused.key)
                raise
            current.pcm += body
            current.next_index += 1
            current.last = self.clock()
            return len(current.pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)

    def end(self, seat: int, utterance: str, chunks: str | None) -> Finished:
        """The release: the whole utterance, to hand on.  ``chunks`` is how many the page
        sent (when given it must match: a chunk lost on the way drops the utterance)."""
        with self._lock:
            current = self._current(seat, utterance)
            self._open.pop(seat, None)
            if chunks is not None and whole_number(chunks) != current.next_index:
                self._finish(current, "missing")
                raise TalkRefused("missing", 409)
            if not current.pcm:
                self._finish(current, "empty")
                raise TalkRefused("empty", 400)
            self._finish(current, "sent")
        done = Finished(seat, bytes(current.pcm))
        if self.keep is not None:
            self._write(done, current.id)
        return done

    def drop(self, seat: int) -> None:
        """Forget the seat's open utterance, unsent (its holder left)."""
        with self._lock:
            old = self._open.pop(seat, None)
            if old is not None:
                self._finish(old, "dropped")

    def open_seconds(self, seat: int) -> float | None:
        """How much the seat's open utterance holds (None: none is open)."""
        with self._lock:
            current = self._open.get(seat)
            return None if current is None else len(current.pcm) / (SAMPLE_RATE * SAMPLE_WIDTH)

    # -- inside the lock -----------------------------------------------------------
    def _current(self, seat: int, utterance: str) -> _Open:
        current = self._open.get(seat)
        if current is not None and self.clock() - current.last > STALE_SECONDS:
            self._open.pop(seat, None)
            self._finish(current, "stale")
            current = None
        if current is None or not secrets.compare_digest(current.id.encode(), utterance.encode()):
            if utterance in self._finished.get(seat, {}):
                raise TalkRefused("finished", 409)
            raise TalkRefused("unknown", 404)
        return current

    def _finish(self, utterance: _Open, how: str) -> None:
        kept = self._finished.setdefault(utterance.seat, OrderedDict())
        kept[utterance.id] = how
        while len(kept) > FINISHED_KEPT:
            kept.popitem(last=False)

    def _write(self, done: Finished, name: str) -> None:
        """Keep one utterance as a WAV (mode 0600: it is a player's voice)."""
        assert self.keep is not None
        folder = self.keep / AUDIO_FOLDER
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        path = folder / f"seat-{done.seat}-{stamp}-{name}.wav"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f, wave.open(f, "wb") as out:
                out.setnchannels(1)
                out.setsampwidth(SAMPLE_WIDTH)
                out.setframerate(SAMPLE_RATE)
                out.writeframes(done.pcm)
        except OSError:
            pass   # keeping audio is a convenience: a full disk must not cost the utterance
