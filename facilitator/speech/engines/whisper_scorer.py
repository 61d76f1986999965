"""The closed set scored in one decoder pass: Whisper's decoder, teacher-forced over a tree of phrases.

CTranslate2's Whisper has no scoring call: forcing each phrase through
``generate`` makes every phrase one batch item, and each item computes the
cross-attention keys and values of the whole encoder output again, then steps
through its tokens one at a time.  Here the decoder's weights (the same
``model.bin`` CTranslate2 loads) run in NumPy:

- the encoder output's keys and values are computed **once per utterance**
  (``PhraseScorer.memory``), for the first batch of phrases and the slot swaps alike;
- every phrase is teacher-forced in the **same pass**: the prompt and the phrases
  form a tree (a prefix said by several phrases, "send north", is one node), each
  node attends to its ancestors only, so a node's output is the one a decoder
  forced through that prefix alone would give;
- each phrase's score is the mean log-probability of its tokens and of the
  sentence ending after it (end of text or a stop), as ``WhisperRecognizer.score``
  defines it.

**The weights are held in int8** (``weights="int8"``, the product's): each row of
a weight matrix (an output of a linear layer, a token of the embedding table) as
int8 with one scale, the quantisation CTranslate2's own int8 decoder gives the
same rows.  A product widens its matrix to float32 just before it, and the
vocabulary's logits are made ``VOCAB_BLOCK`` tokens at a time (their normaliser
summed as it goes), so the decoder costs about 30 MB where a float32 copy cost
118 MB.  int8 rather than float16: NumPy widens float16 about fifteen times more
slowly than int8 (no vector loop for it on x86: 2.4 against 0.16 ns an element,
measured), and a pass widens the decoder's 29 million weights twice an utterance.
``weights="float32"`` keeps the float copy: the tests compare it with
CTranslate2's float32 decoder to show that the pass computes the same decoder.

NumPy's BLAS (OpenBLAS) runs one thread (``blas_one_thread``): its threads spin
between the pass's small products, and on two cores the scoring cost 0.56 CPU-s
an utterance instead of 0.09 (median, held-out clips).

CTranslate2's int8 decoder also quantises its activations, so its scores and
these differ by a few hundredths of a nat a token (the test
``tests/speech/test_whisper_one_pass.py`` states the tolerance).
"""

from __future__ import annotations

import ctypes
import math
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from ...errors import ModelError

Array = npt.NDArray[np.float32]
_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


def _string(f: BinaryIO) -> str:
    (length,) = struct.unpack("<H", f.read(2))
    return f.read(length)[:-1].decode()


#: rows of a weight matrix read, or of the embedding table turned into logits, at a time
VOCAB_BLOCK = 4096


@dataclass(frozen=True)
class _Matrix:
    """A weight matrix in CTranslate2's layout (a row an output, or a token): float32, or int8
    rows with a float32 scale each (``row = values[row] * scales[row]``)."""

    values: npt.NDArray[Any]
    scales: Array | None = None

    @property
    def shape(self) -> tuple[int, int]:
        rows, width = self.values.shape
        return int(rows), int(width)

    def take(self, rows: Any) -> Array:
        """Some rows as float32 (the embeddings of some tokens)."""
        out: Array = self.values[rows].astype(np.float32)
        if self.scales is not None:
            out *= self.scales[rows][..., None]
        return out

    def product(self, x: Array, first: int = 0, last: int | None = None) -> Array:
        """``x @ matrix[first:last].T``: the outputs (rows) of a linear layer for the inputs ``x``."""
        block = self.values[first:last]
        out: Array = x @ block.astype(np.float32, copy=False).T
        if self.scales is not None:
            out *= self.scales[first:last]
        return out


def quantize_rows(matrix: Array) -> tuple[npt.NDArray[np.int8], Array]:
    """Each row as int8 and a scale (the row's largest magnitude over 127), as CTranslate2 quantises to int8."""
    peak = np.abs(matrix).max(axis=1)
    scales = np.where(peak > 0, peak / np.float32(127.0), np.float32(1.0)).astype(np.float32)
    values = np.clip(np.rint(matrix / scales[:, None]), -127, 127).astype(np.int8)
    return values, scales


def _read_matrix(f: BinaryIO, shape: tuple[int, ...], dtype: Any, int8: bool) -> _Matrix:
    """A weight matrix read ``VOCAB_BLOCK`` rows at a time: no whole float32 copy is made on the way."""
    rows, width = shape
    row_bytes = np.dtype(dtype).itemsize * width
    values = np.empty((rows, width), np.int8 if int8 else np.float32)
    scales = np.empty(rows, np.float32) if int8 else None
    for first in range(0, rows, VOCAB_BLOCK):
        count = min(VOCAB_BLOCK, rows - first)
        block = np.frombuffer(f.read(row_bytes * count), dtype=dtype).reshape(count, width).astype(np.float32)
        if scales is None:
            values[first:first + count] = block
        else:
            values[first:first + count], scales[first:first + count] = quantize_rows(block)
    return _Matrix(values, scales)


def read_decoder(path: Path, weights: str = "int8") -> dict[str, Any]:
    """The decoder's variables of a CTranslate2 ``model.bin`` (format version 5 or later): each
    weight matrix a ``_Matrix`` (int8 rows, or float32 when ``weights="float32"``), the other
    float variables float32, the rest ints."""
    if weights not in ("int8", "float32"):
        raise ValueError(f"weights must be 'int8' or 'float32', not {weights!r}")
    out: dict[str, Any] = {}
    try:
        with open(path, "rb") as f:
            (version,) = struct.unpack("<I", f.read(4))
            if version < 5:
                raise ModelError(f"{path} is a CTranslate2 model of format {version}; 5 or later is needed")
            _string(f)
            f.read(4)   # spec revision
            (count,) = struct.unpack("<I", f.read(4))
            for _ in range(count):
                name = _string(f)
                rank = f.read(1)[0]
                shape = struct.unpack("<" + "I" * rank, f.read(4 * rank))
                kind = f.read(1)[0]
                (size,) = struct.unpack("<I", f.read(4))
                if not name.startswith("decoder/") or kind not in _DTYPES:
                    f.seek(size, 1)
                    continue
                key = name[len("decoder/"):]
                dtype = _DTYPES[kind]
                if rank == 2 and key.endswith("/weight") and np.dtype(dtype).kind == "f":
                    out[key] = _read_matrix(f, shape, dtype, weights == "int8")
                    continue
                data = np.frombuffer(f.read(size), dtype=dtype).reshape(shape)
                out[key] = (data.astype(np.float32) if data.dtype.kind == "f"
                            else int(data) if rank == 0 else data)
    except (OSError, struct.error, ValueError) as exc:
        raise ModelError(f"cannot read the Whisper decoder from {path}: {exc}") from None
    return out


_BLAS_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads", "openblas_set_num_threads64_",
                 "openblas_set_num_threads")


def blas_one_thread() -> bool:
    """NumPy's OpenBLAS set to one thread (whether one was found loaded and set)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.lower() and "/" in line}
    except OSError:
        return False
    done = False
    for path in sorted(paths):
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _BLAS_SETTERS:
            setter = getattr(library, name, None)
            if setter is not None:
                setter(1)
                done = True
                break
    return done


def _layer_norm(x: Array, gamma: Array, beta: Array) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: Array = centred / np.sqrt(var + 1e-5) * gamma + beta
    return out


def _gelu(x: Array) -> Array:
    """GELU with erf (Abramowitz and Stegun 7.1.26, error below 1.5e-7)."""
    z = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    out: Array = (0.5 * x * (1.0 + erf)).astype(np.float32)
    return out


def _softmax(x: Array) -> Array:
    x = x - x.max(axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


@dataclass(frozen=True)
class _Layer:
    self_ln: tuple[Array, Array]
    qkv: tuple[_Matrix, Array]
    self_out: tuple[_Matrix, Array]
    cross_ln: tuple[Array, Array]
    query: tuple[_Matrix, Array]
    keys_values: tuple[_Matrix, Array]
    cross_out: tuple[_Matrix, Array]
    ffn_ln: tuple[Array, Array]
    ffn_in: tuple[_Matrix, Array]
    ffn_out: tuple[_Matrix, Array]


def _linear(weights: dict[str, Any], prefix: str) -> tuple[_Matrix, Array]:
    """A linear layer as (weight, bias): ``weight.product(x) + bias``."""
    return weights[prefix + "/weight"], weights[prefix + "/bias"]


def _apply(linear: tuple[_Matrix, Array], x: Array) -> Array:
    out: Array = linear[0].product(x) + linear[1]
    return out


def _norm(weights: dict[str, Any], prefix: str) -> tuple[Array, Array]:
    return weights[prefix + "/gamma"], weights[prefix + "/beta"]


class PhraseScorer:
    """Whisper's decoder in NumPy, for teacher-forced scoring of many phrases against one encoder output."""

    def __init__(self, model_bin: Path, weights: str = "int8") -> None:
        blas_one_thread()
        w = read_decoder(model_bin, weights)
        if w.get("activation") != 3 or not w.get("pre_norm", 0) or w.get("alibi", 0) \
                or w.get("scale_embeddings", 0) or "embeddings/weight" not in w:
            raise ModelError(f"{model_bin} is not a Whisper decoder this scorer knows")
        self.heads = int(w["num_heads"])
        self.embeddings: _Matrix = w["embeddings/weight"]
        self.positions: Array = w["position_encodings/encodings"]
        self.final_ln = _norm(w, "layer_norm")
        self.layers: list[_Layer] = []
        index = 0
        while f"layer_{index}/ffn/linear_0/weight" in w:
            p = f"layer_{index}/"
            self.layers.append(_Layer(
                _norm(w, p + "self_attention/layer_norm"), _linear(w, p + "self_attention/linear_0"),
                _linear(w, p + "self_attention/linear_1"), _norm(w, p + "attention/layer_norm"),
                _linear(w, p + "attention/linear_0"), _linear(w, p + "attention/linear_1"),
                _linear(w, p + "attention/linear_2"), _norm(w, p + "ffn/layer_norm"),
                _linear(w, p + "ffn/linear_0"), _linear(w, p + "ffn/linear_1")))
            index += 1
        self.width = self.embeddings.shape[1]
        self.weights = weights

    def memory(self, encoded: Array) -> list[tuple[Array, Array]]:
        """Each layer's cross-attention keys and values of one encoder output ``[frames, width]``:
        computed once per utterance, shared by every phrase scored against it."""
        out = []
        for layer in self.layers:
            kv = _apply(layer.keys_values, encoded)
            keys, values = np.split(kv, 2, axis=-1)
            out.append((self._heads(keys), self._heads(values)))
        return out

    def _heads(self, x: Array) -> Array:
        """[n, width] -> [heads, n, width / heads]"""
        return np.ascontiguousarray(x.reshape(x.shape[0], self.heads, -1).transpose(1, 0, 2))

    def score(self, memory: list[tuple[Array, Array]], prompt: list[int], sequences: list[list[int]],
              endings: list[int]) -> list[float]:
        """Each sequence's mean log-probability per token after ``prompt``, the ending included
        (the log of the probability that one of ``endings`` follows it); one pass for all."""
        if not sequences:
            return []
        tokens, parents, depths, paths = _tree(prompt, sequences)
        if max(depths) >= self.positions.shape[0]:
            raise ModelError("a phrase is longer than Whisper's decoder can score")
        count = len(tokens)
        allowed = np.zeros((count, count), dtype=bool)
        for node, parent in enumerate(parents):
            if parent >= 0:
                allowed[node] = allowed[parent]
            allowed[node, node] = True
        bias = np.where(allowed, np.float32(0.0), np.float32(-np.inf)).astype(np.float32)
        x = self.embeddings.take(tokens) + self.positions[depths]
        scale = np.float32(1.0 / math.sqrt(self.width // self.heads))
        for layer, (keys_mem, values_mem) in zip(self.layers, memory):
            h = _layer_norm(x, *layer.self_ln)
            q, k, v = np.split(_apply(layer.qkv, h), 3, axis=-1)
            weights = _softmax(self._heads(q) @ self._heads(k).transpose(0, 2, 1) * scale + bias)
            x = x + _apply(layer.self_out, self._merge(weights @ self._heads(v)))
            h = _layer_norm(x, *layer.cross_ln)
            q = _apply(layer.query, h)
            weights = _softmax(self._heads(q) @ keys_mem.transpose(0, 2, 1) * scale)
            x = x + _apply(layer.cross_out, self._merge(weights @ values_mem))
            h = _layer_norm(x, *layer.ffn_ln)
            x = x + _apply(layer.ffn_out, _gelu(_apply(layer.ffn_in, h)))
        # the nodes that predict a token (the prompt's last and after): their normaliser over the
        # vocabulary, and the logits of the tokens scored
        first = len(prompt) - 1
        final = _layer_norm(x[first:], *self.final_ln)
        normaliser = self._normaliser(final)
        out = []
        for sequence, path in zip(sequences, paths):
            # path[i] is the node of the prompt and the sequence's first i tokens: it predicts token i
            rows = [node - first for node in path]
            said = self._logits(final[rows[:-1]], sequence) - normaliser[rows[:-1]]
            last = rows[len(sequence)]
            ending = self._logits(final[[last] * len(endings)], endings) - normaliser[last]
            out.append((float(said.sum()) + float(np.logaddexp.reduce(ending))) / (len(sequence) + 1))
        return out

    def _normaliser(self, final: Array) -> npt.NDArray[np.float64]:
        """Each row's log of the summed exponentials of its logits over the vocabulary, made
        ``VOCAB_BLOCK`` tokens at a time (float32 logits, float64 sums)."""
        top = np.full(final.shape[0], -np.inf)
        total = np.zeros(final.shape[0])
        for begin in range(0, self.embeddings.shape[0], VOCAB_BLOCK):
            logits = self.embeddings.product(final, begin, begin + VOCAB_BLOCK)
            block_top = logits.max(axis=1).astype(np.float64)
            new_top = np.maximum(top, block_top)
            logits -= block_top[:, None].astype(np.float32)
            np.exp(logits, out=logits)
            total = total * np.exp(top - new_top) + logits.sum(axis=1, dtype=np.float64) * np.exp(block_top - new_top)
            top = new_top
        out: npt.NDArray[np.float64] = top + np.log(total)
        return out

    def _logits(self, rows: Array, tokens: list[int]) -> npt.NDArray[np.float64]:
        """The logit of ``tokens[i]`` after ``rows[i]`` (float64)."""
        if not tokens:
            return np.zeros(0)
        out: npt.NDArray[np.float64] = np.einsum("ij,ij->i", rows, self.embeddings.take(tokens)).astype(np.float64)
        return out

    def _merge(self, x: Array) -> Array:
        """[heads, n, width / heads] -> [n, width]"""
        return x.transpose(1, 0, 2).reshape(x.shape[1], self.width)


def _tree(prompt: list[int], sequences: list[list[int]]) -> tuple[list[int], list[int], list[int], list[list[int]]]:
    """The prompt and the sequences as a prefix tree: each node's token, parent and depth, and each
    sequence's path (the node after the prompt and each of its prefixes)."""
    tokens: list[int] = []
    parents: list[int] = []
    depths: list[int] = []
    children: dict[tuple[int, int], int] = {}
    node = -1
    for depth, token in enumerate(prompt):
        tokens.append(token)
        parents.append(node)
        depths.append(depth)
        node = len(tokens) - 1
    root = node
    paths = []
    for sequence in sequences:
        node = root
        path = [node]
        for token in sequence:
            found = children.get((node, token))
            if found is None:
                tokens.append(token)
                parents.append(node)
                depths.append(depths[node] + 1)
                found = len(tokens) - 1
                children[(node, token)] = found
            node = found
            path.append(node)
        paths.append(path)
    return tokens, parents, depths, paths
