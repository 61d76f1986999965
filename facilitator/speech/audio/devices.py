"""Audio in and out: WAV files, the microphone and the speaker, all as 16 kHz mono int16.

Files (any WAV that ``wavfile`` reads) and devices at any rate or channel count are converted on the way in
(mixed down to mono, low-pass filtered and resampled); ``sounddevice`` is
imported only when a device is used, so WAV-only work needs no PortAudio.
"""

from __future__ import annotations

import queue
import time
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import DeviceError, SpeechError
from ..base import FRAME_BYTES, FRAME_MS, SAMPLE_RATE, SAMPLE_WIDTH, Frame
from ..voices.direction import Geometry
from .wavfile import pcm_samples, read_recording

_TAPS = 63  # low-pass filter length; odd, so the filter has a whole-sample delay
_DELAY = (_TAPS - 1) // 2


class Resampler:
    """Streaming mono resampler (windowed-sinc low-pass, then linear interpolation).

    Feed float samples in chunks of any size; the filter state and the fractional
    read position carry over, so chunk edges leave no clicks.
    """

    def __init__(self, rate_in: int, rate_out: int = SAMPLE_RATE) -> None:
        if rate_in <= 0 or rate_out <= 0:
            raise ValueError(f"bad sample rates {rate_in} -> {rate_out}")
        self.rate_in = rate_in
        self.rate_out = rate_out
        self.step = rate_in / rate_out
        cutoff = 0.45 * min(rate_in, rate_out) / rate_in  # cycles per input sample
        n = np.arange(_TAPS) - (_TAPS - 1) / 2
        kernel = 2 * cutoff * np.sinc(2 * cutoff * n) * np.kaiser(_TAPS, 8.0)
        self.kernel = kernel / kernel.sum()
        self._history = np.zeros(_TAPS - 1)
        self._carry = np.zeros(0)  # the last filtered sample, to interpolate across chunk edges
        # output k is read at filtered sample DELAY + k * rate_in / rate_out (filtered[i] is
        # centred on input sample i - DELAY): counted in whole samples, so the outputs are
        # the same however the input is cut into chunks
        self._k = 0
        self._base = 0   # the stream index of the current buffer's first filtered sample

    def process(self, samples: np.ndarray) -> np.ndarray:
        if self.rate_in == self.rate_out:
            return samples.astype(np.float64)
        if len(samples) == 0:
            return np.zeros(0)
        data = np.concatenate([self._history, samples.astype(np.float64)])
        filtered = np.concatenate([self._carry, np.convolve(data, self.kernel, mode="valid")])
        self._history = data[len(data) - (_TAPS - 1):]
        # every k whose position is before the buffer's last sample (it is read with the next chunk)
        last = self._base + len(filtered) - 1
        reach = (last - _DELAY) * self.rate_out
        stop = max(self._k, -(-reach // self.rate_in))
        ks = np.arange(self._k, stop)
        positions = (_DELAY * self.rate_out + ks * self.rate_in) / self.rate_out - self._base
        out = np.interp(positions, np.arange(len(filtered)), filtered) if len(ks) else np.zeros(0)
        self._k = stop
        self._carry = filtered[-1:]
        self._base = last
        return out


def to_pcm16(samples: np.ndarray) -> bytes:
    """Float samples in int16 units -> clipped little-endian int16 bytes."""
    return np.clip(np.round(samples), -32768, 32767).astype("<i2").tobytes()


def convert(data: bytes, rate: int, channels: int, width: int) -> bytes:
    """Interleaved PCM of any width/channels/rate -> 16 kHz mono int16."""
    if width not in (1, 2, 3, 4):
        raise ValueError(f"unsupported sample width {width}")
    samples = pcm_samples(data, width)
    if channels > 1:
        usable = len(samples) // channels * channels
        samples = samples[:usable].reshape(-1, channels).mean(axis=1)
    return resample_to_pcm16(samples, rate)


def resample_to_pcm16(samples: np.ndarray, rate: int) -> bytes:
    """Mono float samples in int16 units at ``rate`` -> 16 kHz mono int16 bytes."""
    return to_pcm16(_to_16k(samples, rate))


def _to_16k(samples: np.ndarray, rate: int) -> np.ndarray:
    """Mono float samples at ``rate`` -> float samples at 16 kHz."""
    if rate == SAMPLE_RATE:
        return samples
    expected = round(len(samples) * SAMPLE_RATE / rate)
    # zeros after the end flush the filter so the last samples come out too
    flush = np.zeros(_DELAY + int(rate / SAMPLE_RATE) + 2)
    return Resampler(rate).process(np.concatenate([samples, flush]))[:expected]


def read_wav(path: str | Path, channel: int | None = None) -> bytes:
    """Read a WAV file as 16 kHz mono int16 bytes; SpeechError saying what the file is if it cannot.

    Integer PCM of 8 to 32 bits and 32- or 64-bit float are converted (``wavfile``).
    Channels follow the microphone's rule (``--input-channel``): ``channel`` keeps that
    one channel (numbered from 0) of a file that has several, None mixes them all down;
    a mono file is heard as it is (a table's ``devices.input_channel`` is for its microphone)."""
    recording = read_recording(path)
    if channel is not None and recording.channels > 1:   # a mono recording is its one channel
        if not 0 <= channel < recording.channels:
            raise SpeechError(f"{str(path)!r} has {recording.channels} channel(s), 0 to {recording.channels - 1}; "
                              f"there is no channel {channel}")
        samples = recording.samples[:, channel]
    else:
        samples = recording.samples.mean(axis=1)
    return resample_to_pcm16(samples, recording.rate)


def interleave(channels: list[bytes]) -> bytes:
    """Mono int16 channels of one length -> interleaved int16."""
    stacked = np.stack([np.frombuffer(c, dtype="<i2") for c in channels], axis=1)
    return stacked.astype("<i2").tobytes()


def read_array_wav(path: str | Path, geometry: Geometry) -> tuple[bytes, bytes]:
    """A recorded table at a microphone array: (the voice channel as 16 kHz mono int16, the
    raw microphones interleaved at 16 kHz); SpeechError when the file has too few channels."""
    recording = read_recording(path)
    if recording.channels < geometry.input_channels:
        raise SpeechError(f"{str(path)!r} has {recording.channels} channel(s); the {geometry.name} array needs "
                          f"{geometry.input_channels} (its microphones on channels "
                          f"{', '.join(str(c) for c in geometry.channels)})")
    voice, *raw = [resample_to_pcm16(recording.samples[:, c], recording.rate)
                   for c in (geometry.voice_channel, *geometry.channels)]
    return voice, interleave(raw)


def write_wav(path: str | Path, pcm: bytes, rate: int = SAMPLE_RATE) -> None:
    """Write mono int16 ``pcm`` as a WAV file."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(SAMPLE_WIDTH)
        w.setframerate(rate)
        w.writeframes(pcm)


def frames_of(pcm: bytes, start: float = 0.0, raw: bytes = b"") -> Iterator[Frame]:
    """Cut 16 kHz mono int16 ``pcm`` into whole frames (the last one zero-padded), with the
    array's interleaved ``raw`` microphones beside it when given."""
    microphones = len(raw) // len(pcm) if raw and pcm else 0
    for offset in range(0, len(pcm), FRAME_BYTES):
        chunk = pcm[offset: offset + FRAME_BYTES]
        beside = raw[offset * microphones: (offset + FRAME_BYTES) * microphones].ljust(
            FRAME_BYTES * microphones, b"\0")
        yield Frame(chunk.ljust(FRAME_BYTES, b"\0"), start + offset / (SAMPLE_RATE * SAMPLE_WIDTH), beside)


class WavSource:
    """An AudioSource reading a WAV file, then ``trailing_seconds`` of silence.

    The silence lets an endpointer close the last utterance.  ``realtime=True``
    paces the frames like a microphone would.  With ``array`` the file is a table
    recorded at that microphone array (its channels as the array gives them): the
    recognizer hears the array's voice channel and each frame carries the raw
    microphones, so the recording plays back with its directions.
    """

    def __init__(self, path: str | Path, realtime: bool = False, trailing_seconds: float = 1.0,
                 channel: int | None = None, array: Geometry | None = None) -> None:
        self.path = Path(path)
        self.realtime = realtime
        self.raw = b""
        if array is None:
            self.pcm = read_wav(path, channel)
        else:
            self.pcm, self.raw = read_array_wav(path, array)
        self.trailing_seconds = trailing_seconds
        self._closed = False

    def frames(self) -> Iterator[Frame]:
        silence = bytes(int(self.trailing_seconds * SAMPLE_RATE) * SAMPLE_WIDTH)
        microphones = len(self.raw) // len(self.pcm) if self.raw and self.pcm else 0
        began = time.monotonic()
        for frame in frames_of(self.pcm + silence, raw=self.raw + silence * microphones):
            if self._closed:
                return
            if self.realtime:
                delay = began + frame.t - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            yield frame

    def close(self) -> None:
        self._closed = True


# -- devices ---------------------------------------------------------------

def _sounddevice() -> Any:
    try:
        import sounddevice  # type: ignore[import-untyped]
    except OSError as exc:  # libportaudio2 missing: the import itself fails
        raise DeviceError(f"no audio system: PortAudio is missing ({exc}); install libportaudio2") from None
    return sounddevice


def list_devices() -> list[dict[str, Any]]:
    """Every audio device PortAudio sees: index, name, inputs, outputs, default rate."""
    sd = _sounddevice()
    try:
        devices = sd.query_devices()
    except Exception as exc:  # noqa: BLE001 - PortAudioError when the host API is broken
        raise DeviceError(f"cannot list audio devices: {exc}") from None
    defaults = list(sd.default.device) if sd.default.device is not None else [-1, -1]
    out = []
    for index, dev in enumerate(devices):
        out.append({
            "index": index,
            "name": dev["name"],
            "inputs": int(dev["max_input_channels"]),
            "outputs": int(dev["max_output_channels"]),
            "default_rate": int(dev["default_samplerate"]),
            "default_input": index == defaults[0],
            "default_output": index == defaults[1],
        })
    return out


def find_device(name_or_index: str | int | None, kind: str) -> int:
    """The index of an ``input`` or ``output`` device, by index, by name part, or the default.

    DeviceError with what exists when there is no such device.
    """
    if kind not in ("input", "output"):
        raise ValueError(f"kind must be input or output, not {kind!r}")
    channels = "inputs" if kind == "input" else "outputs"
    devices = [d for d in list_devices() if d[channels] > 0]
    if not devices:
        raise DeviceError(f"no audio {kind} device found (is a {_thing(kind)} connected?)")
    if name_or_index is None or name_or_index == "":
        for d in devices:
            if d[f"default_{kind}"]:
                return int(d["index"])
        return int(devices[0]["index"])
    known = ", ".join(f"{d['index']}: {d['name']}" for d in devices)
    text = str(name_or_index).strip()
    if text.isdigit():
        for d in devices:
            if d["index"] == int(text):
                return int(d["index"])
        raise DeviceError(f"no audio {kind} device {text}; {kind} devices: {known}")
    matches = [d for d in devices if text.lower() in d["name"].lower()]
    if len(matches) == 1:
        return int(matches[0]["index"])
    if not matches:
        raise DeviceError(f"no audio {kind} device named {text!r}; {kind} devices: {known}")
    names = ", ".join(repr(d["name"]) for d in matches)
    raise DeviceError(f"{text!r} names several {kind} devices: {names}; give an index")


def _thing(kind: str) -> str:
    return "microphone" if kind == "input" else "speaker"


class MicSource:
    """An AudioSource on a microphone, at its own rate, resampled to 16 kHz mono.

    ``channel`` (0-based): open the input at its own channel count and keep that one
    channel (a microphone array's processed channel, such as a ReSpeaker USB array's
    channel 0); None opens it mono (the system mixes the channels down).
    ``array`` (a microphone array's geometry): open every channel, hear the array's voice
    channel (or ``channel``), and carry the raw microphones in each frame (``Frame.raw``).
    Raises DeviceError when there is no input device, no such channel, or PortAudio is missing.
    """

    def __init__(self, device: str | int | None = None, block_seconds: float = FRAME_MS / 1000,
                 channel: int | None = None, array: Geometry | None = None) -> None:
        sd = _sounddevice()
        index = find_device(device, "input")
        info = sd.query_devices(index)
        self.rate = int(info["default_samplerate"]) or SAMPLE_RATE
        self.name = str(info["name"])
        available = int(info["max_input_channels"])
        if channel is not None and not 0 <= channel < available:
            raise DeviceError(f"microphone {self.name!r} has {available} channel(s), 0 to {available - 1}; "
                              f"there is no channel {channel}")
        if array is not None and available < array.input_channels:
            raise DeviceError(f"microphone {self.name!r} has {available} channel(s); the {array.name} array "
                              f"needs {array.input_channels} (is devices.input the array?)")
        if array is not None:   # the array's own layout (a plug device offers many more)
            self.channels = max(array.input_channels, (channel or 0) + 1)
        else:
            self.channels = available if channel is not None else 1
        self.channel = channel if channel is not None else (array.voice_channel if array is not None else 0)
        self.array = array
        self._raw_resamplers = [Resampler(self.rate) for _ in (array.channels if array is not None else ())]
        self._queue: queue.Queue[bytes | None] = queue.Queue()
        self._resampler = Resampler(self.rate)
        self._t = 0.0
        self._closed = False

        def callback(indata: Any, frames: int, when: Any, status: Any) -> None:
            self._queue.put(bytes(indata))

        try:
            self._stream = sd.RawInputStream(
                device=index, samplerate=self.rate, channels=self.channels, dtype="int16",
                blocksize=int(self.rate * block_seconds), callback=callback,
            )
            self._stream.start()
        except Exception as exc:  # noqa: BLE001 - PortAudioError: busy, unplugged, bad rate
            raise DeviceError(f"cannot open microphone {self.name!r}: {exc}") from None

    def frames(self) -> Iterator[Frame]:
        pending = b""
        raw = b""
        microphones = len(self._raw_resamplers)
        while not self._closed:
            try:
                chunk = self._queue.get(timeout=0.5)
            except queue.Empty:
                continue
            if chunk is None:
                return
            samples = one_channel(chunk, self.channels, self.channel)
            pending += to_pcm16(self._resampler.process(samples))
            if self.array is not None:
                raw += interleave([to_pcm16(r.process(one_channel(chunk, self.channels, c)))
                                   for r, c in zip(self._raw_resamplers, self.array.channels, strict=True)])
            while len(pending) >= FRAME_BYTES:
                yield Frame(pending[:FRAME_BYTES], self._t, raw[: FRAME_BYTES * microphones])
                pending = pending[FRAME_BYTES:]
                raw = raw[FRAME_BYTES * microphones:]
                self._t += FRAME_MS / 1000

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        try:
            self._stream.stop()
            self._stream.close()
        except Exception:  # noqa: BLE001, S110 - closing a stream whose device vanished
            pass


def _record(sd: Any, index: int, info: Any, rate: int, seconds: float, channels: int) -> np.ndarray:
    """``seconds`` of ``channels`` channels from input ``index``, as float samples in int16
    units, one column a channel; DeviceError when the input cannot record."""
    try:
        recorded = sd.rec(int(rate * seconds), samplerate=rate, channels=channels, dtype="int16",
                          device=index, blocking=True)
    except Exception as exc:  # noqa: BLE001 - PortAudioError: busy, unplugged, bad rate
        raise DeviceError(f"cannot record from {info['name']!r}: {exc}") from None
    return np.asarray(recorded, dtype=np.float64).reshape(-1, channels)


def channel_levels(device: str | int | None, seconds: float) -> list[float]:
    """The loudness (dBFS, RMS) of each channel of an input opened at its own channel count,
    over ``seconds`` (``facilitator doctor``)."""
    import math

    sd = _sounddevice()
    index = find_device(device, "input")
    info = sd.query_devices(index)
    channels = int(info["max_input_channels"])
    rate = int(info["default_samplerate"]) or SAMPLE_RATE
    x = _record(sd, index, info, rate, seconds, channels)
    rms = np.sqrt(np.mean(x * x, axis=0)) if len(x) else np.zeros(channels)
    return [20 * math.log10(r / 32768.0) if r > 0 else -120.0 for r in rms]


def array_bearing(device: str | int | None, seconds: float, geometry: Geometry) -> tuple[float, float] | None:
    """Where the loudest voice of ``seconds`` heard at the array ``geometry`` comes from:
    (degrees, clarity), or None when it heard nothing (``facilitator doctor``'s live bearing)."""
    from ..voices.direction import finder

    sd = _sounddevice()
    index = find_device(device, "input")
    info = sd.query_devices(index)
    channels = int(info["max_input_channels"])
    if channels < geometry.input_channels:
        raise DeviceError(f"{info['name']!r} has {channels} channel(s); the {geometry.name} array needs "
                          f"{geometry.input_channels}")
    rate = int(info["default_samplerate"]) or SAMPLE_RATE
    channels = geometry.input_channels
    x = _record(sd, index, info, rate, seconds, channels)
    microphones = np.stack([_to_16k(x[:, c], rate) for c in geometry.channels])
    found = finder(geometry).bearing(microphones)
    return None if found is None else (found.degrees, found.clarity)


def one_channel(chunk: bytes, channels: int, channel: int) -> np.ndarray:
    """Channel ``channel`` of interleaved int16 ``chunk`` with ``channels`` channels."""
    samples = np.frombuffer(chunk, dtype="<i2")
    if channels == 1:
        return samples
    usable = len(samples) - len(samples) % channels
    return samples[:usable].reshape(-1, channels)[:, channel].copy()


class SilentSource:
    """An AudioSource for a table with no microphone of its own (phones are its microphones):
    silent frames at the pace of the clock, so the loop's time, timeouts and queued phone
    utterances go on."""

    def __init__(self, sleep: Any = None) -> None:
        import time

        self._sleep = sleep or time.sleep
        self._closed = False

    def frames(self) -> Iterator[Frame]:
        t = 0.0
        silence = bytes(FRAME_BYTES)
        while not self._closed:
            self._sleep(FRAME_MS / 1000)
            yield Frame(silence, t)
            t += FRAME_MS / 1000

    def close(self) -> None:
        self._closed = True


def stop_playing() -> None:
    """Stop what ``play_pcm`` is playing (from another thread: barge-in)."""
    try:
        _sounddevice().stop()
    except Exception:  # noqa: BLE001, S110 - nothing playing, or the device is gone
        pass


def play_pcm(pcm: bytes, rate: int, device: str | int | None = None) -> float:
    """Play mono int16 ``pcm`` at ``rate`` and wait until it has played; return seconds.

    DeviceError when there is no output device.
    """
    sd = _sounddevice()
    index = find_device(device, "output")
    samples = np.frombuffer(pcm, dtype="<i2")
    try:
        sd.play(samples, samplerate=rate, device=index, blocking=True)
    except Exception as exc:  # noqa: BLE001 - PortAudioError
        raise DeviceError(f"cannot play audio on device {index}: {exc}") from None
    return len(samples) / rate
