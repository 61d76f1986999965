"""Two engines together: pocketsphinx (fast, light) and Whisper (holds up in babble, refuses chatter).

Modes (setting ``[listening] second_engine``, flag ``--second-engine``):

* ``off``: pocketsphinx alone (the light mode, e.g. a Pi Zero 2 W);
* ``always``: both on every utterance, Whisper's rescoring deciding, their
  agreement making a hearing sure.

A ``verify`` mode (Whisper only for pocketsphinx's unsure hearings) was
measured and dropped: pocketsphinx's own scores cannot say when it is sure
(see ``decide``), so there is no fast path to keep.

``decide`` is the whole rule, a pure function of the two engines' outputs (and
the grammar's phrase -> command map), so
the clip benchmark (``benchmarks/engines.py``) measures exactly what play does.
The thresholds below were chosen on that benchmark (tuning and held-out voices
are reported apart); see ``docs/speech.md``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..base import FirstHearing, Hypothesis, RecognitionGrammar
from .pocketsphinx_engine import PocketsphinxRecognizer

MODES = ("off", "always")


class Scores(NamedTuple):
    """Whisper's rescoring of one legal phrase (see ``WhisperRecognizer.rescore``)."""

    phrase: str
    logprob: float
    similarity: float
    #: the score of Whisper's best free text in the same terms (-inf: not scored)
    free: float = float("-inf")


@dataclass(frozen=True)
class Thresholds:
    """Whisper's acceptance and sureness, chosen on the clip benchmark's tuning voices.

    Whisper's best phrase is *sure* when pocketsphinx heard the same command (not
    necessarily the same words), Whisper's mean token log-probability is at least
    ``agree_logprob`` and its spelling similarity to Whisper's own free n-best
    is at least ``sure_similarity``.  Alone, it is accepted (not sure) when its
    log-probability is at least ``min_logprob``, it leads the best phrase of
    another command by ``min_margin``, and its similarity is at least
    ``min_similarity``; or when that similarity alone reaches ``strong_similarity``.

    ``agree_similarity``: an agreement whose similarity is below
    ``sure_similarity`` but at least this is accepted unsure (asked), not
    dropped (None: dropped).  ``agree_margin``: an agreement farther still from
    Whisper's free text is accepted unsure when Whisper's phrase leads the best
    phrase of another command by at least this (flite's "report a edge smooth":
    both engines heard it, Whisper wrote something else freely, similarity 26,
    yet scored it 2.6 above any other command); None: dropped.  ``rescue_logprob``: when Whisper's best phrase
    fails its own checks while pocketsphinx heard *another* command, Whisper's
    phrase is still accepted unsure if it scores at least this, is at least
    ``rescue_similarity`` from Whisper's free text, and leads pocketsphinx's
    phrase by ``rescue_lead`` in Whisper's own scoring (None: never).

    ``free_gap``: Whisper alone is refused when its best legal phrase scores
    more than this below Whisper's own free text ("is it my turn" at -0.5
    against "skip my turn" at -3.0: the audio says something else).

    ``sure_when_preferred``: an agreement is sure whatever its spelling similarity
    when Whisper scores the legal phrase at least as high as every text it wrote
    freely (its n-best spelled flite's "yes" as "U.S.", similarity 40, yet scored
    "Yes." above "U.S."): the spelling is Whisper's, the preference is the audio's.
    """

    min_logprob: float = -3.5
    min_similarity: float = 55.0
    strong_similarity: float = 90.0
    min_margin: float = 0.0
    agree_logprob: float = -5.0
    sure_similarity: float = 55.0
    agree_similarity: float | None = 45.0
    agree_margin: float | None = 1.5
    rescue_logprob: float | None = None
    rescue_similarity: float = 0.0
    rescue_lead: float = 0.0
    free_gap: float | None = 2.25
    sure_when_preferred: bool = True


DEFAULT = Thresholds()


def _command(phrase: str, commands: Mapping[str, str] | None) -> str:
    """The command ``phrase`` says (the phrase itself when the grammar gave no map)."""
    return (commands.get(phrase) if commands else None) or phrase


def margin(ranked: list[Scores], commands: Mapping[str, str] | None = None) -> float:
    """How far Whisper's best phrase leads the best phrase of *another* command (inf: none scored).

    "read hands" and "read the hands" are one command, so the runner-up is the
    first phrase that says something else.
    """
    if not ranked:
        return float("-inf")
    top = _command(ranked[0].phrase, commands)
    for other in ranked[1:]:
        if _command(other.phrase, commands) != top:
            return ranked[0].logprob - other.logprob
    return float("inf")


def whisper_choice(ranked: list[Scores], limits: Thresholds = DEFAULT,
                   commands: Mapping[str, str] | None = None) -> Scores | None:
    """Whisper's best-scored legal phrase, when it passes the out-of-grammar check on its own."""
    if not ranked:
        return None
    top = ranked[0]
    if limits.free_gap is not None and top.logprob < top.free - limits.free_gap:
        return None
    if top.similarity >= limits.strong_similarity:
        return top
    if (top.logprob >= limits.min_logprob and margin(ranked, commands) >= limits.min_margin
            and top.similarity >= limits.min_similarity):
        return top
    return None


def agree(ps_text: str | None, whisper_phrase: str, commands: Mapping[str, str] | None = None) -> bool:
    """Whether pocketsphinx's phrase and Whisper's say the same command ("read hands", "read the hands")."""
    return bool(ps_text) and _command(ps_text or "", commands) == _command(whisper_phrase, commands)


def decide(ps_text: str | None, ranked: list[Scores] | None, mode: str,
           limits: Thresholds = DEFAULT, commands: Mapping[str, str] | None = None) -> Hypothesis | None:
    """The answer of the two engines under ``mode`` (``whisper``: Whisper alone, for the benchmark).

    ``commands`` maps each legal phrase to its command (``RecognitionGrammar.commands``).

    ``off``: pocketsphinx's phrase, never sure (its lattice posterior does not
    tell right from wrong: on the clip benchmark wrong commands scored *higher*).
    Otherwise Whisper's best legal phrase is the answer:

    * **sure** when pocketsphinx heard the same *command* (other words for it
      count: "read hands" / "read the hands"), Whisper's score reaches
      ``agree_logprob`` and Whisper's phrase is near what it heard freely
      (``sure_similarity``: "good game everyone" was heard by both as "new
      game", at similarity 37), or Whisper scores it above everything it wrote
      freely (``sure_when_preferred``);
    * accepted but unsure when the engines agree at a lower similarity
      (``agree_similarity``) or with a clear lead over every other command
      (``agree_margin``), when Whisper's own checks pass
      (``whisper_choice``), or when Whisper's phrase clearly beats pocketsphinx's
      other command in Whisper's own scoring (``rescue_logprob``);
    * nothing when none holds: a pocketsphinx phrase Whisper does not back
      is what chatter looks like.
    """
    if mode == "off":
        return Hypothesis(ps_text, None, False) if ps_text else None
    if not ranked:
        return None
    top = ranked[0]
    both = mode != "whisper"
    if both and agree(ps_text, top.phrase, commands) and top.logprob >= limits.agree_logprob:
        # a free text was scored (free is finite) and the legal phrase scored no lower
        preferred = limits.sure_when_preferred and math.isfinite(top.free) and top.logprob >= top.free
        if top.similarity >= limits.sure_similarity or preferred:
            return Hypothesis(top.phrase, top.logprob, True)
        if limits.agree_similarity is not None and top.similarity >= limits.agree_similarity:
            return Hypothesis(top.phrase, top.logprob, False)
        lead = margin(ranked, commands)
        if limits.agree_margin is not None and math.isfinite(lead) and lead >= limits.agree_margin:
            return Hypothesis(top.phrase, top.logprob, False)
    choice = whisper_choice(ranked, limits, commands)
    if choice is not None:
        return Hypothesis(choice.phrase, choice.logprob, False)
    if both and ps_text and _rescued(ps_text, ranked, limits, commands):
        return Hypothesis(top.phrase, top.logprob, False)
    return None


def _rescued(ps_text: str, ranked: list[Scores], limits: Thresholds, commands: Mapping[str, str] | None) -> bool:
    """Whisper's best phrase, failing its own checks, against pocketsphinx's other command ("commit" / "quit")."""
    if limits.rescue_logprob is None:
        return False
    top = ranked[0]
    theirs = _command(ps_text, commands)
    if theirs == _command(top.phrase, commands):
        return False
    scored = [s.logprob for s in ranked if _command(s.phrase, commands) == theirs]
    lead = top.logprob - scored[0] if scored else float("inf")
    return (top.logprob >= limits.rescue_logprob and top.similarity >= limits.rescue_similarity
            and lead >= limits.rescue_lead)


def first_of_repeats(text: str) -> str:
    """``text`` once when Whisper wrote it again and again ("what's on card two what's on
    card two what's on", its loop on a short clip): the words up to where they repeat."""
    words = text.split()
    for size in range(1, len(words) // 2 + 1):
        head = words[:size]
        if words[size:2 * size] == head and all(w == head[i % size] for i, w in enumerate(words)):
            return " ".join(head)
    return text


def free_text_hearing(heard: list[str], ps_text: str | None,
                      commands: Mapping[str, str] | None) -> Hypothesis | None:
    """What Whisper wrote freely, when the rescoring of the legal phrases (``decide``) gave nothing.

    ``heard`` is Whisper's n-best, folded to the grammar's words (lower case, no
    punctuation, digits spelled).  A text the grammar's own parser reads (``commands``
    parses a phrase with skip words and contractions: "okay let's send north east south
    west") is the hearing: sure when pocketsphinx heard the same command, else unsure.
    Otherwise the words are handed on as they are (``Hypothesis.free`` with no text): the
    listen loop's meaning stage may place them, and what it finds is asked, never applied
    as heard.  (A nearest phrase by spelling was accepted here before, unsure, and an
    unsure free move was then echoed and applied: "um card one goes top right" placed
    card two.)
    """
    texts = [h for h in dict.fromkeys(first_of_repeats(h) for h in heard) if h]
    if not texts:
        return None
    for text in texts:
        said = commands.get(text) if commands else None
        if said is not None:
            return Hypothesis(text, None, bool(ps_text) and commands.get(ps_text or "") == said,  # type: ignore[union-attr]
                              free=tuple(texts))
    return Hypothesis("", None, False, free=tuple(texts))


class HybridRecognizer:
    """pocketsphinx, verified or overruled by Whisper's rescoring of the legal phrases (see ``decide``).

    ``decode`` runs both at once.  The listen loop may also take the two steps apart
    (``TwoStage``): ``hear_first`` is pocketsphinx alone (tens of milliseconds), so an
    undoable command can be echoed at once, and ``verify`` is Whisper's verdict, which
    the loop computes while the echo is said (in a worker thread at a live table).  A
    lock keeps Whisper to one utterance at a time.
    """

    name = "pocketsphinx+whisper"

    @property
    def can_be_sure(self) -> bool:
        """Sure only with Whisper beside pocketsphinx (``off``: the light mode, never sure)."""
        return self.mode != "off"

    @property
    def transcribes(self) -> bool:
        """Whether its hearings carry Whisper's free words for the meaning stage (not in
        the light mode, which has none)."""
        return self.mode != "off"

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
        self._second = threading.Lock()

    def hear_first(self, pcm: bytes, grammar: RecognitionGrammar) -> FirstHearing:
        """pocketsphinx alone: its phrase (never sure), and its best legal phrase as a hint."""
        ps = self.pocketsphinx.decode(pcm, grammar)
        raw = self.pocketsphinx.last.get("text")
        first = FirstHearing(Hypothesis(ps.text, ps.score, False) if ps else None,
                             raw if raw in grammar.phrases else None)
        self.last = {"pocketsphinx": dict(self.pocketsphinx.last), "ranked": None}
        return first

    def verify(self, pcm: bytes, grammar: RecognitionGrammar, first: FirstHearing) -> Hypothesis | None:
        """Whisper's rescoring and the two engines' decision (``decide``) on ``first``."""
        ps_text = first.hypothesis.text if first.hypothesis is not None else None
        ranked: list[Scores] | None = None
        with self._second:
            if self.mode == "always":
                self.whisper.decode(pcm, grammar, hint=first.hint)
                ranked = [Scores(s.phrase, s.logprob, s.similarity, s.free)
                          for s in self.whisper.last.get("ranked", [])]
            self.last = {**self.last, "ranked": ranked}
        decided = decide(ps_text, ranked, self.mode, self.limits, grammar.commands)
        if self.mode == "always":
            heard = list(self.whisper.last.get("heard") or [])
            if decided is None:
                decided = free_text_hearing(heard, ps_text, grammar.commands)
                self.last["free text"] = decided is not None and bool(decided.text)
            else:   # the free words go with the choice: the listen loop reads them against it
                texts = tuple(h for h in dict.fromkeys(first_of_repeats(h) for h in heard) if h)
                decided = Hypothesis(decided.text, decided.score, decided.sure, free=texts)
        return decided

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        return self.verify(pcm, grammar, self.hear_first(pcm, grammar))

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        """pocketsphinx's early-finish check (cheap); Whisper only decides once the utterance ends."""
        return self.pocketsphinx.is_complete(pcm, grammar)
