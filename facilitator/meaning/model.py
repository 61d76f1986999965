"""Which command a line means: a linear model of the intents (and of table talk).

Trained on the examples (``examples.py``) when a game first needs it, as kernel ridge
regression: each example's row ``x`` (``features.py``: hashed words, and the sentence
vector when the encoder is installed) is fitted to its intent's column, solved in the
dual (``A = (X Xᵀ + λ D)⁻¹ Y``, ``D`` the inverse of each example's weight) and kept as
the primal weights ``W = Xᵀ A``.  A line's intents are then ``softmax(T · x W)`` over
the intents legal now and talk.  Table talk weighs ``TALK_WEIGHT`` (a line nearest to
talk is left alone) and the grammar's own forms ``GRAMMAR_WEIGHT`` (they are many and
alike); the weights and ``λ``, ``T`` were chosen by five-fold cross-validation on the
tuning lines (benchmarks/phrasing, ``options``).

The trained weights are kept in the cache directory under a digest of everything they
depend on (the examples, their weights, the features, the encoder's weights), so a
second start reads them back; the examples' sentence vectors are kept there too, text by
text, so a changed grammar encodes only its new lines.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .examples import TALK, Example
from .features import HASHED, lexical
from .slots import Lexicon

Array = npt.NDArray[np.float32]

#: what changes the trained weights besides the examples (bump it when the features change)
VERSION = "ridge-1"
RIDGE = 0.3
TEMPERATURE = 8.0
TALK_WEIGHT = 2.0
GRAMMAR_WEIGHT = 0.5


@dataclass(frozen=True)
class IntentModel:
    """The trained model of one game's intents."""

    classes: tuple[str, ...]
    weights: Array          # (features, classes)
    encoded: bool           # its rows end with the sentence vector

    def scores(self, row: Array, allowed: frozenset[str] | None) -> dict[str, float]:
        """Each intent's share (softmax) among ``allowed`` (None: every one) and talk."""
        raw = row @ self.weights
        keep = [k for k, c in enumerate(self.classes) if c == TALK or allowed is None or c in allowed]
        if not keep:
            return {}
        z = raw[keep] * TEMPERATURE
        z = np.exp(z - z.max())
        z /= z.sum()
        return {self.classes[k]: float(p) for k, p in zip(keep, z)}


Encode = Callable[[list[str]], Array]


def row_of(lexicon: Lexicon, text: str, vector: Array | None) -> Array:
    lex = lexical(lexicon, text)
    return lex if vector is None else np.concatenate([lex, vector]).astype(np.float32)


def train(lexicon: Lexicon, examples: Sequence[Example], encode: Encode | None,
          cache: Path | None, encoder_id: str = "") -> IntentModel:
    """The model of ``examples`` (read from ``cache`` when it was trained before)."""
    classes = tuple(sorted({e.intent for e in examples}))
    digest = _digest(examples, encoder_id if encode is not None else "")
    kept = _read(cache, digest, classes) if cache is not None else None
    if kept is not None:
        return IntentModel(classes, kept, encode is not None)
    texts = [sentence_text(lexicon, e.text) for e in examples]
    vectors = _vectors(texts, encode, cache, encoder_id) if encode is not None else None
    rows = np.stack([row_of(lexicon, e.text, vectors[k] if vectors is not None else None)
                     for k, e in enumerate(examples)])
    weight = np.array([TALK_WEIGHT if e.intent == TALK else GRAMMAR_WEIGHT if e.source == "grammar" else 1.0
                       for e in examples], dtype=np.float64)
    targets = np.zeros((len(examples), len(classes)))
    targets[np.arange(len(examples)), [classes.index(e.intent) for e in examples]] = 1.0
    x = rows.astype(np.float64)
    dual = np.linalg.solve(x @ x.T + RIDGE * np.diag(1.0 / weight), targets)
    weights = (x.T @ dual).astype(np.float32)
    if cache is not None:
        _write(cache / f"model-{digest}.npz", {"weights": weights, "classes": np.array(classes)})
    return IntentModel(classes, weights, encode is not None)


def sentence_text(lexicon: Lexicon, text: str) -> str:
    """What the encoder reads of a line: its words as the meaning stage reads them."""
    return " ".join(lexicon.words(text))


def _digest(examples: Sequence[Example], encoder_id: str) -> str:
    h = hashlib.sha256(f"{VERSION}|{HASHED}|{RIDGE}|{TALK_WEIGHT}|{GRAMMAR_WEIGHT}|{encoder_id}".encode())
    for e in examples:
        h.update(f"\n{e.text}\t{e.intent}\t{e.source == 'grammar'}".encode())
    return h.hexdigest()[:20]


def _read(cache: Path, digest: str, classes: tuple[str, ...]) -> Array | None:
    try:
        with np.load(cache / f"model-{digest}.npz") as kept:
            if tuple(str(c) for c in kept["classes"]) != classes:
                return None
            return np.asarray(kept["weights"], dtype=np.float32)
    except (OSError, KeyError, ValueError):
        return None


def _vectors(texts: list[str], encode: Encode, cache: Path | None, encoder_id: str) -> Array:
    """The sentence vector of every text, those encoded before read from the cache."""
    known: dict[str, Array] = {}
    path = cache / f"vectors-{encoder_id}.npz" if cache is not None else None
    if path is not None:
        try:
            with np.load(path) as kept:
                known = dict(zip((str(t) for t in kept["texts"]), np.asarray(kept["vectors"], np.float32)))
        except (OSError, KeyError, ValueError):
            known = {}
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    for start in range(0, len(missing), 32):
        chunk = missing[start:start + 32]
        known.update(zip(chunk, encode(chunk)))
    if path is not None and missing:
        ordered = sorted(known)
        _write(path, {"texts": np.array(ordered), "vectors": np.stack([known[t] for t in ordered]).astype(np.float16)})
    # as kept (float16), so a model trained from the cache is the model trained afresh
    return np.stack([known[t] for t in texts]).astype(np.float16).astype(np.float32)


def _write(path: Path, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
    """Written whole or not at all (a second process may write the same file)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".npz")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)   # type: ignore[arg-type]
        os.replace(temporary, path)
    except OSError:
        pass   # a cache that cannot be written costs time at the next start, nothing else
