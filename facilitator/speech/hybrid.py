"""Two engines together: pocketsphinx (fast, light) and Whisper (holds up in babble, refuses chatter).

Modes (setting ``[listening] second_engine``, flag ``--second-engine``):

* ``off``: pocketsphinx alone (the light mode, e.g. a Pi Zero 2 W);
* ``verify``: pocketsphinx first; when it is sure, that is the answer (the fast
  path); otherwise Whisper decides (the verifying path);
* ``always``: both on every utterance, Whisper's rescoring deciding.

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

MODES = ("off", "verify", "always")

#: pocketsphinx is sure when its lattice posterior (log) is at least this and it left no voice unexplained
PS_SURE_LOG_POSTERIOR = -0.05
PS_SURE_MAX_UNEXPLAINED = 0.02


class Scores(NamedTuple):
    """Whisper's rescoring of one legal phrase (see ``WhisperRecognizer.rescore``)."""

    phrase: str
    logprob: float
    similarity: float


@dataclass(frozen=True)
class Thresholds:
    """Whisper's acceptance and sureness, measured on the clip benchmark.

    A phrase is accepted when its mean token log-probability is at least
    ``min_logprob``, it leads the next phrase by ``min_margin``, and its spelling
    similarity to Whisper's nearest free hypothesis is at least
    ``min_similarity``; or when the similarity alone reaches ``strong_similarity``.  It is *sure* when both engines heard the same phrase
    and Whisper's score reaches ``sure_logprob``.
    """

    min_logprob: float = -2.5
    min_similarity: float = 60.0
    strong_similarity: float = 85.0
    min_margin: float = 0.0
    sure_logprob: float = -1.5


DEFAULT = Thresholds()


def pocketsphinx_verdict(last: dict[str, Any]) -> bool:
    """Whether pocketsphinx's own result (its ``last`` record) passes its checks with margin."""
    posterior = last.get("posterior")
    unexplained = last.get("unexplained", 0.0)
    return (isinstance(posterior, float) and posterior >= PS_SURE_LOG_POSTERIOR
            and unexplained <= PS_SURE_MAX_UNEXPLAINED)


def whisper_choice(ranked: list[Scores], limits: Thresholds = DEFAULT) -> Scores | None:
    """Whisper's best-scored legal phrase, when it passes the out-of-grammar check."""
    if not ranked:
        return None
    top = ranked[0]
    if top.similarity >= limits.strong_similarity:
        return top
    margin = top.logprob - ranked[1].logprob if len(ranked) > 1 else float("inf")
    if top.logprob >= limits.min_logprob and margin >= limits.min_margin and top.similarity >= limits.min_similarity:
        return top
    return None


def decide(ps_text: str | None, ps_sure: bool, ranked: list[Scores] | None, mode: str,
           limits: Thresholds = DEFAULT) -> Hypothesis | None:
    """The answer of the two engines under ``mode`` (``whisper``: Whisper alone, for the benchmark).

    ``ranked`` is None when Whisper did not run.  In ``verify`` a sure
    pocketsphinx result stands alone; otherwise Whisper's choice is the answer
    and it is sure only when pocketsphinx heard the same phrase and Whisper's
    score clears ``sure_logprob``.  When Whisper refuses, nothing is heard: a
    pocketsphinx result Whisper does not back is what chatter looks like.
    """
    if mode == "off":
        return Hypothesis(ps_text, None, ps_sure) if ps_text else None
    if mode == "verify" and ps_text and ps_sure:
        return Hypothesis(ps_text, None, True)
    choice = whisper_choice(ranked or [], limits)
    if choice is None:
        return None
    sure = mode != "whisper" and choice.phrase == ps_text and choice.logprob >= limits.sure_logprob
    return Hypothesis(choice.phrase, choice.logprob, sure)


class HybridRecognizer:
    """pocketsphinx, verified or overruled by Whisper's rescoring of the legal phrases (see ``decide``)."""

    name = "pocketsphinx+whisper"

    def __init__(self, mode: str = "verify", *, pocketsphinx: PocketsphinxRecognizer | None = None,
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
        ps_sure = bool(ps) and pocketsphinx_verdict(last)
        ranked: list[Scores] | None = None
        if self.mode == "always" or (self.mode == "verify" and not ps_sure):
            raw = last.get("text")
            self.whisper.decode(pcm, grammar, hint=raw if raw in grammar.phrases else None)
            ranked = [Scores(s.phrase, s.logprob, s.similarity) for s in self.whisper.last.get("ranked", [])]
        self.last = {"pocketsphinx": dict(last), "ranked": ranked}
        return decide(ps.text if ps else None, ps_sure, ranked, self.mode, self.limits)

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        """pocketsphinx's early-finish check (cheap); Whisper only decides once the utterance ends."""
        return self.pocketsphinx.is_complete(pcm, grammar)
