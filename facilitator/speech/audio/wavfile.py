"""Reading a WAV recording of any common kind, and saying plainly what a file is when it is not one.

Python's ``wave`` reads only plain integer PCM (format 1), so the 32-bit float or
24-bit files that sox, Audacity and phones write (often marked "extensible",
format 0xFFFE) were refused with "unknown format: 65534".  This reader walks the
RIFF chunks itself and takes:

- integer PCM of 8 (unsigned), 16, 24 or 32 bits,
- IEEE float of 32 or 64 bits (full scale 1.0),
- 8-bit A-law and µ-law (telephone recordings),
- any of them inside WAVE_FORMAT_EXTENSIBLE,

at any rate from ``MIN_RATE`` to ``MAX_RATE`` and any channel count.  Anything else
(a compressed WAV, an MP3, a FLAC, text, an empty file, a header whose rate no
recording has) is refused in one line that names what the file is and what is
needed.

Only a regular file is read.  A named pipe (FIFO), a device, a socket or a directory
is refused before anything waits on it: the file is looked at (``stat``), then
opened without blocking (``O_NONBLOCK``) and looked at again, so a FIFO with no
writer, or ``/dev/zero``, cannot hold a command that was given it.

The rates: below 8,000 Hz a recording cannot carry the band the recognizer hears
(up to 4 kHz, a telephone's); above 384,000 Hz no recorder writes (the highest
rates of audio interfaces are 352.8 and 384 kHz).  A header outside them (0 Hz, or
4,294,967,295 Hz, which would make an hour of audio a fraction of a millisecond) is
damaged, not a recording to play.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import SpeechError

#: the sample rates a recording may have, in Hz (see the module's docstring)
MIN_RATE = 8_000
MAX_RATE = 384_000
#: what a recording must be, said after every refusal
NEEDED = (f"a WAV recording is needed: 16-bit PCM at {MIN_RATE:,} to {MAX_RATE:,} Hz, any channel count "
          "(8-, 24- and 32-bit PCM, 32- or 64-bit float, A-law and µ-law are converted)")
#: what a path that is no regular file is, by its ``stat`` mode
_NOT_FILES = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
              (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))

_PCM = 0x0001
_FLOAT = 0x0003
_EXTENSIBLE = 0xFFFE
#: compressed WAV formats that are met in practice, by their format tag
_ALAW = 0x0006
_MULAW = 0x0007
_COMPRESSED = {0x0002: "ADPCM", 0x0011: "IMA ADPCM",
               0x0031: "GSM 6.10", 0x0055: "MP3"}
#: the first bytes of audio files that are not WAV
_OTHER_KINDS = ((b"fLaC", "a FLAC file"), (b"OggS", "an Ogg file (Vorbis or Opus)"), (b"ID3", "an MP3 file"),
                (b"\xff\xfb", "an MP3 file"), (b"\xff\xf3", "an MP3 file"), (b"FORM", "an AIFF file"),
                (b".snd", "an AU file"), (b"RIFX", "a big-endian WAV file"), (b"RF64", "an RF64 file"))
#: the most of a recording that is read (an hour of 48 kHz stereo 32-bit is about 1.4 GB)
MAX_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class Recording:
    """A WAV file's samples in int16 units, one column per channel, and its rate."""

    samples: np.ndarray   # float64, shape (frames, channels)
    rate: int

    @property
    def channels(self) -> int:
        return int(self.samples.shape[1])


def _refuse(path: Path, what: str) -> SpeechError:
    return SpeechError(f"{str(path)!r} {what}; {NEEDED}")


def _kind(head: bytes) -> str:
    """What a file that is not a RIFF WAVE is, from its first bytes."""
    for magic, kind in _OTHER_KINDS:
        if head.startswith(magic):
            return f"is {kind}, not a WAV file"
    if head.startswith(b"RIFF"):
        return "is a RIFF file but not a WAV file"
    sample = head[:512]
    try:
        sample.decode("utf-8")
        return "is text, not a WAV file"
    except UnicodeDecodeError:
        return "is not a WAV file (it does not start with RIFF…WAVE)"


def read_recording(path: str | Path) -> Recording:
    """The samples of the WAV file ``path``; ``SpeechError`` saying what it is when it cannot be read."""
    path = Path(path)
    raw = _read_regular(path)
    if len(raw) > MAX_BYTES:
        raise _refuse(path, f"is larger than {MAX_BYTES // 2**20} MB; cut it shorter")
    if not raw:
        raise _refuse(path, "is empty")
    if len(raw) < 12 or raw[:4] != b"RIFF" or raw[8:12] != b"WAVE":
        raise _refuse(path, _kind(raw))
    fmt, data = _chunks(raw)
    if fmt is None:
        raise _refuse(path, "is a WAV file without its format chunk (cut short or damaged)")
    if len(fmt) < 16:
        raise _refuse(path, "is a WAV file with a broken format chunk")
    tag = int.from_bytes(fmt[0:2], "little")
    channels = int.from_bytes(fmt[2:4], "little")
    rate = int.from_bytes(fmt[4:8], "little")
    block = int.from_bytes(fmt[12:14], "little")
    bits = int.from_bytes(fmt[14:16], "little")
    if tag == _EXTENSIBLE:
        if len(fmt) < 40:
            raise _refuse(path, "is a WAV file with a broken format chunk")
        tag = int.from_bytes(fmt[24:26], "little")
    if channels <= 0 or rate <= 0 or block <= 0 or block % channels:
        raise _refuse(path, "is a WAV file with a broken header "
                      f"({channels} channel(s), {rate} Hz, {block} bytes a frame)")
    if not MIN_RATE <= rate <= MAX_RATE:
        raise _refuse(path, f"is a WAV file whose header gives {rate:,} Hz, a rate no recording has")
    width = block // channels
    if tag in _COMPRESSED:
        raise _refuse(path, f"is a compressed ({_COMPRESSED[tag]}) WAV file")
    if tag == _PCM and width in (1, 2, 3, 4):
        samples = pcm_samples(data or b"", width)
    elif tag == _FLOAT and width in (4, 8):
        floats = np.frombuffer(_whole(data or b"", width), dtype="<f4" if width == 4 else "<f8")
        samples = np.nan_to_num(floats.astype(np.float64), nan=0.0, posinf=1.0, neginf=-1.0) * 32768
    elif tag in (_ALAW, _MULAW) and width == 1:
        samples = _g711(data or b"", mu=tag == _MULAW)
    elif tag in (_PCM, _FLOAT, _ALAW, _MULAW):
        kind = {_PCM: "PCM", _FLOAT: "float", _ALAW: "A-law", _MULAW: "µ-law"}[tag]
        raise _refuse(path, f"is a WAV file of {bits}-bit {kind} samples ({width} bytes each)")
    else:
        raise _refuse(path, f"is a WAV file in a format this cannot read (format tag 0x{tag:04x})")
    if data is None:
        raise _refuse(path, "is a WAV file without its data chunk (cut short or damaged)")
    usable = len(samples) - len(samples) % channels
    return Recording(samples[:usable].reshape(-1, channels), rate)


def _read_regular(path: Path) -> bytes:
    """The first ``MAX_BYTES + 1`` bytes of ``path``, a regular file; SpeechError for
    anything else, said before anything could wait on it (a FIFO, a device)."""
    def not_a_file(mode: int) -> None:
        for test, kind in _NOT_FILES:
            if test(mode):
                raise SpeechError(f"{str(path)!r} is {kind}, not a WAV file; {NEEDED}")
        if not stat.S_ISREG(mode):
            raise SpeechError(f"{str(path)!r} is not a regular file; {NEEDED}")

    try:
        not_a_file(os.stat(path).st_mode)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise SpeechError(f"no such audio file: {str(path)!r}") from None
    except OSError as exc:
        raise SpeechError(f"cannot read the audio file {str(path)!r}: {exc.strerror or exc}") from None
    try:
        not_a_file(os.fstat(fd).st_mode)     # the same file still (not swapped for a pipe since)
        with os.fdopen(fd, "rb") as f:
            fd = -1
            return f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise SpeechError(f"cannot read the audio file {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        if fd != -1:
            os.close(fd)


def _chunks(raw: bytes) -> tuple[bytes | None, bytes | None]:
    """The ``fmt `` and ``data`` chunks of a RIFF WAVE; a data chunk cut short (or written
    with an unknown length, as a stream is) is taken as far as the file goes."""
    fmt: bytes | None = None
    data: bytes | None = None
    at = 12
    while at + 8 <= len(raw):
        name, size = raw[at:at + 4], int.from_bytes(raw[at + 4:at + 8], "little")
        body = raw[at + 8:at + 8 + size]
        if name == b"fmt ":
            fmt = body
        elif name == b"data":
            data = body
            if fmt is not None:
                break
        at += 8 + size + (size & 1)
    return fmt, data


def _whole(data: bytes, width: int) -> bytes:
    return data[:len(data) - len(data) % width]


def pcm_samples(data: bytes, width: int) -> np.ndarray:
    """Little-endian integer PCM samples as float64 in int16 units."""
    data = _whole(data, width)
    if width == 1:
        return (np.frombuffer(data, dtype=np.uint8).astype(np.float64) - 128) * 256
    if width == 2:
        return np.frombuffer(data, dtype="<i2").astype(np.float64)
    if width == 3:
        raw = np.frombuffer(data, dtype=np.uint8).reshape(-1, 3)
        ints = (raw[:, 0].astype(np.int32) | (raw[:, 1].astype(np.int32) << 8)
                | (raw[:, 2].astype(np.int32) << 16))
        ints = np.where(ints >= 1 << 23, ints - (1 << 24), ints)
        return ints.astype(np.float64) / 256
    return np.frombuffer(data, dtype="<i4").astype(np.float64) / 65536


def _g711(data: bytes, *, mu: bool) -> np.ndarray:
    """8-bit µ-law or A-law (ITU-T G.711) samples as float64 in int16 units."""
    codes = np.frombuffer(data, dtype=np.uint8).astype(np.int32)
    if mu:
        u = ~codes & 0xFF
        magnitude = (((u & 0x0F) << 3) + 0x84 << ((u >> 4) & 7)) - 0x84
        return np.where(u & 0x80, -magnitude, magnitude).astype(np.float64)
    a = codes ^ 0x55
    exponent, mantissa = (a >> 4) & 7, a & 0x0F
    magnitude = np.where(exponent == 0, (mantissa << 4) + 8, ((mantissa << 4) + 0x108) << np.maximum(exponent - 1, 0))
    return np.where(a & 0x80, magnitude, -magnitude).astype(np.float64)
