"""Two engines together: pocketsphinx (fast, light) and Whisper (holds up in babble, refuses chatter).

Modes (setting ``[listening] second_engine``, flag ``--second-engine``):

* ``off``: pocketsphinx alone (the light mode, e.g. a Pi Zero 2 W);
* ``always``: both on every utterance, Whisper's rescoring deciding, their
  agreement making a hearing sure.

A ``verify`` mode (Whisper only for pocketsphinx's unsure hearings) was
measured and dropped: pocketsphinx's own scores cannot say when it is sure
(see ``decide``), so there is no fast path to keep.

``decide`` is the whole rule, a pure function of the two engines' outputs, so
the clip benchmark (``benchmarks/engines.py``) measures exactly what play does.
The thresholds below were chosen on that benchmark (tuning and held-out voices
are reported apart); see ``docs/speech.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .base import Hypothesis, RecognitionGrammar
from .pocketsphinx_engine import PocketsphinxRecognizer

MODES = ("off", "always")


class Scores(NamedTuple):
    """Whisper's rescoring of one legal phrase (see ``WhisperRecognizer.rescore``)."""

    phrase: str
    logprob: float
    similarity: float


@dataclass(frozen=True)
class Thresholds:
    """Whisper's acceptance and sureness, chosen on the clip benchmark's tuning voices.

    Whisper's best phrase is *sure* when pocketsphinx heard the same phrase and
    Whisper's mean token log-probability is at least ``agree_logprob``.  Alone,
    it is accepted (not sure) when its log-probability is at least
    ``min_logprob``, it leads the next phrase by ``min_margin``, and its
    spelling similarity (0-100) to Whisper's nearest free hypothesis is at least
    ``min_similarity``; or when that similarity alone reaches ``strong_similarity``.
    """

    min_logprob: float = -4.0
    min_similarity: float = 55.0
    strong_similarity: float = 90.0
    min_margin: float = 0.0
    agree_logprob: float = -5.0


DEFAULT = Thresholds()


def whisper_choice(ranked: list[Scores], limits: Thresholds = DEFAULT) -> Scores | None:
    """Whisper's best-scored legal phrase, when it passes the out-of-grammar check on its own."""
    if not ranked:
        return None
    top = ranked[0]
    if top.similarity >= limits.strong_similarity:
        return top
    margin = top.logprob - ranked[1].logprob if len(ranked) > 1 else float("inf")
    if top.logprob >= limits.min_logprob and margin >= limits.min_margin and top.similarity >= limits.min_similarity:
        return top
    return None


def decide(ps_text: str | None, ranked: list[Scores] | None, mode: str,
           limits: Thresholds = DEFAULT) -> Hypothesis | None:
    """The answer of the two engines under ``mode`` (``whisper``: Whisper alone, for the benchmark).

    ``off``: pocketsphinx's phrase, never sure (its lattice posterior does not
    tell right from wrong: on the clip benchmark wrong commands scored *higher*).
    Otherwise Whisper's best legal phrase is the answer: sure when pocketsphinx
    heard the same phrase (on the benchmark's held-out voices such agreement was
    right 97-100 % of the time), accepted but unsure when Whisper's own checks
    pass, and nothing when neither holds: a pocketsphinx phrase Whisper does
    not back is what chatter looks like.
    """
    if mode == "off":
        return Hypothesis(ps_text, None, False) if ps_text else None
    if not ranked:
        return None
    top = ranked[0]
    if mode != "whisper" and ps_text and top.phrase == ps_text and top.logprob >= limits.agree_logprob:
        return Hypothesis(top.phrase, top.logprob, True)
    choice = whisper_choice(ranked, limits)
    if choice is None:
        return None
    return Hypothesis(choice.phrase, choice.logprob, False)


class HybridRecognizer:
    """pocketsphinx, verified or overruled by Whisper's rescoring of the legal phrases (see ``decide``)."""

    name = "pocketsphinx+whisper"

    def __init__(self, mode: str = "always", *, pocketsphinx: PocketsphinxRecognizer | None = None,
                 whisper: Any = None, limits: Thresholds = DEFAULT) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown second-engine mode {mode!r} (one of {', '.join(MODES)})")
        self.mode = mode
        self.limits = limits
        self.pocketsphinx = pocketsphinx or PocketsphinxRecognizer()
        if whisper is None and mode != "off":
            from .whisper_engine import WhisperRecognizer

            whisper = WhisperRecognizer()
        self.whisper = whisper
        self.last: dict[str, Any] = {}

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        ps = self.pocketsphinx.decode(pcm, grammar)
        last = self.pocketsphinx.last
        ranked: list[Scores] | None = None
        if self.mode == "always":
            raw = last.get("text")
            self.whisper.decode(pcm, grammar, hint=raw if raw in grammar.phrases else None)
            ranked = [Scores(s.phrase, s.logprob, s.similarity) for s in self.whisper.last.get("ranked", [])]
        self.last = {"pocketsphinx": dict(last), "ranked": ranked}
        return decide(ps.text if ps else None, ranked, self.mode, self.limits)

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        """pocketsphinx's early-finish check (cheap); Whisper only decides once the utterance ends."""
        return self.pocketsphinx.is_complete(pcm, grammar)
