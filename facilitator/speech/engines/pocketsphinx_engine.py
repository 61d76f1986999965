"""The embedded default recognizer: pocketsphinx with its wheel's English model.

Each utterance is decoded under a JSGF grammar of the commands legal now.  One
decoder holds a search per grammar (keyed by ``RecognitionGrammar.key``), so
switching grammars between listens costs a dictionary lookup, not a rebuild.

Out-of-grammar rejection, in order:

1. the decoder must reach the end of a whole phrase (a partial path through the
   grammar is what chatter often produces);
2. the phrase's words must explain the speech: chatter forced into a short
   command leaves most of its voiced frames (those standing out from the
   utterance's own noise floor) under silence or filler segments.  More than
   ``max_unexplained`` of them there means out of grammar.  A word's own decay
   (its release, the room's reverb tail) is not unexplained voice: in a room
   with a 0.5 s reverb, counting it refused a quarter of the correct hearings
   (``unexplained_frames``; figures from ``python -m benchmarks rejection``);
3. the phrase's lattice posterior must reach ``min_posterior``.

Pauses of exact digital silence (synthetic speech, padded files) are filled
with a faint fixed hiss first, see ``with_noise_floor``.

Words the dictionary lacks come from ``grammars/pronunciations.toml``.
"""

from __future__ import annotations

import hashlib
import time
import tomllib
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import GrammarError, SpeechError
from ...paths import grammars_dir
from ..base import Hypothesis, RecognitionGrammar

PRONUNCIATIONS_FILE = "pronunciations.toml"
_MAX_SEARCHES = 24
MIN_BYTES = 16_000 * 2 // 10  # under 0.1 s there is no command to hear
NOISE_FLOOR = 20.0  # standard deviation in int16 units, about -64 dBFS
VOICE_MARGIN_DB = 12.0  # a frame this far above the utterance's quietest tenth counts as voice
MIN_VOICE_DB = 40.0  # and never below this (about -50 dBFS): silence is not voice


def load_pronunciations(path: Path | None = None) -> dict[str, list[str]]:
    """``grammars/pronunciations.toml`` as word -> list of ARPABET phone strings."""
    path = path or grammars_dir() / PRONUNCIATIONS_FILE
    name = f"grammars/{path.name}"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise GrammarError(name, None, f"not valid TOML: {exc}") from None
    extra = set(data) - {"words"}
    if extra:
        raise GrammarError(name, min(extra), "unknown table (only [words])")
    words = data.get("words", {})
    if not isinstance(words, dict):
        raise GrammarError(name, "words", "must be a table of word = [phones, ...]")
    out: dict[str, list[str]] = {}
    for word, phones in words.items():
        if isinstance(phones, str):
            phones = [phones]
        if not isinstance(phones, list) or not phones or not all(
            isinstance(p, str) and p.split() and all(x.isalpha() and x.isupper() for x in p.split())
            for p in phones
        ):
            raise GrammarError(name, f"words.{word}", "needs a list of upper-case ARPABET phone strings")
        out[word.lower()] = [" ".join(p.split()) for p in phones]
    return out


def _pocketsphinx() -> Any:
    try:
        import pocketsphinx  # type: ignore[import-untyped]
    except ImportError as exc:
        raise SpeechError(f"pocketsphinx is not installed ({exc}); pip install pocketsphinx") from None
    return pocketsphinx


def dictionary_words() -> set[str]:
    """Every word in the wheel's pronunciation dictionary (variants folded)."""
    ps = _pocketsphinx()
    path = Path(ps.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    words = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                words.add(line.split()[0].split("(")[0].lower())
    return words


def unpronounceable(words: set[str] | frozenset[str], pronunciations: dict[str, list[str]] | None = None,
                    dictionary: set[str] | None = None) -> list[str]:
    """The ``words`` that neither the dictionary nor ``pronunciations.toml`` can say."""
    known = dictionary if dictionary is not None else dictionary_words()
    extra = pronunciations if pronunciations is not None else load_pronunciations()
    return sorted(w for w in words if w.lower() not in known and w.lower() not in extra)


def with_noise_floor(pcm: bytes, level: float = NOISE_FLOOR) -> bytes:
    """``pcm`` with a faint, fixed (seeded) hiss added.

    The acoustic model was trained on recordings, which never fall to digital
    zero; synthetic speech and padded files do, and exact zeros in the pauses
    make whole words vanish from the decode.  A real microphone's own noise
    floor is far above this level, so live audio is unaffected.
    """
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    noise = np.random.default_rng(0).normal(0.0, level, len(samples))
    return np.clip(np.round(samples + noise), -32768, 32767).astype("<i2").tobytes()


class PocketsphinxRecognizer:
    """Recognizer on pocketsphinx 5 (English acoustic model and dictionary from the wheel).

    ``max_unexplained``: the largest share of voiced frames the decoded words may
    leave to silence and fillers (``None``: no check), counted only when they
    add up to ``min_unexplained_seconds`` (a VAD's release after the last word
    is not chatter); ``min_posterior``: the
    lowest lattice posterior of the phrase accepted (0: no check);
    ``reset_cmn``: start every utterance from fresh feature state (the model's
    initial cepstral mean, no carried noise estimate), so a result does not
    depend on what was decoded before (a stretch of silence otherwise skews the
    next decode).
    """

    #: its phrase is never sure (its lattice posterior does not tell right from wrong)
    can_be_sure = False

    name = "pocketsphinx"

    def __init__(self, *, max_unexplained: float | None = 0.1, min_unexplained_seconds: float = 0.15,
                 min_posterior: float = 0.0, reset_cmn: bool = True,
                 options: dict[str, Any] | None = None,
                 pronunciations: dict[str, list[str]] | None = None) -> None:
        self.max_unexplained = max_unexplained
        self.min_unexplained_seconds = min_unexplained_seconds
        self.min_posterior = min_posterior
        self.reset_cmn = reset_cmn
        self._initial_cmn = ""
        self._pronunciations = pronunciations if pronunciations is not None else load_pronunciations()
        self._options = dict(options or {})
        self._decoder: Any = None
        self._searches: OrderedDict[str, str] = OrderedDict()
        self._phrases: dict[str, frozenset[str]] = {}
        #: the last hearing (search, audio, words and posterior, segments): an early-finish
        #: check's hearing is the utterance's when the endpointer ends it on that audio
        self._heard: tuple[str, bytes, tuple[str, float], list[Any]] | None = None
        self.last: dict[str, Any] = {}  # what the last decode saw, for benchmarks and tests

    # -- setup -----------------------------------------------------------
    def _ensure(self) -> Any:
        if self._decoder is None:
            ps = _pocketsphinx()
            # dither with a fixed seed: the same audio always decodes the same way
            options: dict[str, Any] = {"lm": None, "loglevel": "FATAL", "dither": True, "seed": 1}
            options.update(self._options)
            try:
                decoder = ps.Decoder(**options)
            except (RuntimeError, ValueError, KeyError) as exc:
                raise SpeechError(f"cannot start pocketsphinx: {exc}") from None
            for word, variants in self._pronunciations.items():
                self._add_word(decoder, word, variants)
            self._initial_cmn = decoder.get_cmn()
            self._decoder = decoder
        return self._decoder

    @staticmethod
    def _add_word(decoder: Any, word: str, variants: list[str]) -> None:
        """Add ``word``'s pronunciations: the word itself if new, else as ``word(N)`` variants."""
        taken = 1 if decoder.lookup_word(word) is not None else 0
        for phones in variants:
            spelled = word if taken == 0 else f"{word}({taken + 1})"
            while taken and decoder.lookup_word(spelled) is not None:
                taken += 1
                spelled = f"{word}({taken + 1})"
            try:
                decoder.add_word(spelled, phones, update=True)
            except (RuntimeError, ValueError) as exc:
                raise GrammarError(f"grammars/{PRONUNCIATIONS_FILE}", f"words.{word}",
                                   f"pocketsphinx refused {phones!r}: {exc}") from None
            taken += 1

    def _search(self, grammar: RecognitionGrammar) -> str:
        decoder = self._ensure()
        key = grammar.key or hashlib.sha1(grammar.jsgf.encode("utf-8")).hexdigest()[:16]
        if grammar.filler_probability is not None:
            key = f"{key}_f{grammar.filler_probability:g}".replace(".", "_").replace("-", "m")
        name = self._searches.get(key)
        if name is not None:
            self._searches.move_to_end(key)
            return name
        missing = sorted(w for w in grammar.words if decoder.lookup_word(w) is None)
        if missing:
            raise GrammarError(f"grammars/{PRONUNCIATIONS_FILE}", None,
                               f"no pronunciation for {', '.join(map(repr, missing))}")
        name = f"g_{key}"
        default = decoder.config["fillprob"]
        try:
            if grammar.filler_probability is not None:   # read when the search is built: this one only
                decoder.config["fillprob"] = grammar.filler_probability
            decoder.add_jsgf_string(name, grammar.jsgf)
        except (RuntimeError, ValueError) as exc:
            raise GrammarError("grammars", None, f"pocketsphinx cannot use the grammar: {exc}") from None
        finally:
            decoder.config["fillprob"] = default
        self._searches[key] = name
        self._phrases[name] = frozenset(grammar.phrases)
        self._heard = None
        if len(self._searches) > _MAX_SEARCHES:
            _, old = self._searches.popitem(last=False)
            self._phrases.pop(old, None)
            decoder.remove_search(old)
        return name

    # -- decoding --------------------------------------------------------
    def _run(self, search: str, pcm: bytes) -> tuple[str, float]:
        """Decode under ``search``: the words and their lattice posterior."""
        decoder = self._decoder
        if len(pcm) < MIN_BYTES:
            return "", 0.0
        decoder.activate_search(search)
        if self.reset_cmn:
            decoder.reinit_feat()  # also clears the noise estimate left by the last utterance
            decoder.set_cmn(self._initial_cmn)
        decoder.start_utt()
        try:
            decoder.process_raw(pcm, full_utt=True)
        finally:  # an utterance left open would refuse every later search switch
            decoder.end_utt()
        hyp = decoder.hyp()
        if hyp is None:
            return "", 0.0
        return " ".join(hyp.hypstr.split()), float(hyp.prob)

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        """The grammar phrase heard in ``pcm``, or None for silence and out-of-grammar speech."""
        began = time.process_time()
        try:
            return self._decode(pcm, grammar)
        finally:
            self.last["cpu"] = time.process_time() - began

    def _hear(self, search: str, pcm: bytes) -> tuple[tuple[str, float], list[Any], bool]:
        """``_run`` on ``pcm`` with the noise floor, its segments, and whether the last hearing was
        reused: the same audio under the same search decodes the same way (fresh feature state,
        seeded dither and hiss), so the early-finish check that ended an utterance is its hearing."""
        heard = self._heard
        if self.reset_cmn and heard is not None and heard[0] == search and heard[1] == pcm:
            return heard[2], heard[3], True
        result = self._run(search, with_noise_floor(pcm))
        segments = list(self._decoder.seg()) if result[0] else []
        self._heard = (search, pcm, result, segments) if self.reset_cmn else None
        return result, segments, False

    def _decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        search = self._search(grammar)
        (text, posterior), segments, reused = self._hear(search, pcm)
        self.last = {"text": text, "posterior": posterior, "reused": reused}
        if not text or text not in self._phrases[search]:
            return None
        self.last["segments"] = segments
        if self.max_unexplained is not None:
            share, seconds = unexplained_frames(self.last["segments"], voiced_frames(pcm), frame_levels(pcm))
            self.last["unexplained"] = share
            if share > self.max_unexplained and seconds >= self.min_unexplained_seconds:
                return None
        if posterior < self.min_posterior:
            return None
        return Hypothesis(text, posterior)

    def is_complete(self, pcm: bytes, grammar: RecognitionGrammar) -> bool:
        """Whether ``pcm`` so far already holds a whole phrase (for early endpointing)."""
        search = self._search(grammar)
        (text, _), _, _ = self._hear(search, pcm)
        return bool(text) and text in self._phrases[search]


def voiced_frames(pcm: bytes, margin_db: float = VOICE_MARGIN_DB) -> list[bool]:
    """For each 10 ms frame of 16 kHz int16 ``pcm``: does it stand out from the utterance's own floor?

    The floor is the quietest tenth of the frames, so steady room noise, hum or
    babble under the voice is not counted as voice (webrtcvad calls most of it
    speech).  A frame is voiced when it is ``margin_db`` above that floor.
    """
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    count = len(samples) // 160
    if count == 0:
        return []
    frames = samples[: count * 160].reshape(count, 160)
    level = 10 * np.log10(np.mean(frames**2, axis=1) + 1.0)
    floor = float(np.percentile(level, 10))
    return [bool(v) for v in level > max(floor + margin_db, MIN_VOICE_DB)]


#: a stretch the decoder left to silence after a word is that word's decay (its release,
#: the room's reverb) until the level rises this far above the lowest level since the word
RISE_DB = 3.0
#: and never longer than this after the word (a room's audible reverb tail is shorter)
MAX_DECAY_SECONDS = 0.3


def frame_levels(pcm: bytes) -> list[float]:
    """The power of each 10 ms frame of 16 kHz int16 ``pcm``, in dB of sample units."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    count = len(samples) // 160
    if count == 0:
        return []
    frames = samples[: count * 160].reshape(count, 160)
    return [float(v) for v in 10 * np.log10(np.mean(frames**2, axis=1) + 1.0)]


def _is_filler(word: str) -> bool:
    return word.startswith(("<", "[", "+")) or word == "(NULL)"


def unexplained_frames(segments: Any, voiced: list[bool], level: list[float],
                       rise_db: float = RISE_DB,
                       max_decay_seconds: float = MAX_DECAY_SECONDS) -> tuple[float, float]:
    """The share and seconds of ``voiced`` frames the decoded words leave unexplained.

    A frame under silence or a filler counts, except while it is the decay of the
    word before it: after a word, the level falls (the word's release, the room's
    reverb tail) until something new starts, which shows as a rise of ``rise_db``
    above the lowest level since the word, and lasts ``max_decay_seconds`` at
    most.  From then on, voiced frames under silence count (chatter forced onto
    a short command: its other words).
    Voice before the first word always counts."""
    total = sum(voiced)
    if not total:
        return 0.0, 0.0
    outside = 0
    seen_word = False
    for seg in segments:
        if not _is_filler(seg.word):
            seen_word = True
            continue
        decaying, lowest = seen_word, float("inf")
        first = max(0, seg.start_frame)
        for f in range(first, min(len(voiced), seg.end_frame + 1)):
            if decaying:
                lowest = min(lowest, level[f])
                decaying = level[f] < lowest + rise_db and (f - first) / 100 < max_decay_seconds
            if not decaying and voiced[f]:
                outside += 1
    return outside / total, outside / 100
