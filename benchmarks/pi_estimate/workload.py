"""What is counted: one process that loads the engines, then runs each recognition stage on the clips.

Run by ``python -m benchmarks.pi_estimate`` under a counter (see ``__main__``), or
alone for the CPU seconds.  Every stage boundary is a *mark*, which closes the
segment it names (``mark("pocketsphinx", clip)`` right after pocketsphinx's decode);
the counter reports the instructions executed so far at each mark, so a stage's
instructions are the difference between its mark and the one before.  The marks:

* ``qemu``: the system call 31337 (none in Linux), which the QEMU plugin
  ``stagecount.c`` reports with the running count of guest instructions;
* ``callgrind``: callgrind's client request to dump the instructions counted since
  the last dump (``callgrind_mark.c``, built as the library ``$PI_ESTIMATE_MARK_LIB``),
  under ``valgrind --tool=callgrind``;
* ``none``: no counter; the process's CPU seconds (all threads) at each mark are kept.

The stages, on each clip, in the order the listen loop runs them while it listens for
commands (``ListenLoop``: the wake phrase optional before every command, as at a table):

* ``early-check``: an early-finish check before the last (``is_complete`` on the clip less
  its last 10 ms, under the check's grammar: the commands after an optional wake phrase,
  without the wake phrase alone), as the endpointer asks at a pause inside a command;
* ``end-check``: the check that ends the utterance (the whole clip);
* ``pocketsphinx``: the utterance's decode under the decode's grammar (``hear_first``):
  another search than the check's, so the audio is decoded again (docs/speech.md says
  why the two are not one search yet);
* ``verify``: Whisper's own stages as ``WhisperRecognizer.decode`` times them (``encode``,
  ``n-best``, ``scoring``, ``swaps``, marked where its stage clock is read) and ``decide``
  (the rest of ``verify``);
* then each stage of ``STAGES``, when it can run here: the speaker embedder (voices
  enrolled), the bearing at a microphone array (``--array``: utterances said at a simulated
  array, made on the host by ``inputs.make_array``), and the meaning stage when it has landed.

**Adding a stage to the count** is one entry in ``STAGES``: its label (the mark, and the
row of the estimate), the kind of code it is (the rate it is converted at:
``estimate.KINDS``), its row's words, when it runs (``estimate.WHEN``: with voices, at an
array, or for a line the grammar does not parse), and a function that loads what it needs
(outside the counted segments) and returns the work of one clip, or None when it cannot
run here (the estimate then has no row for it).  The record carries each stage's kind,
words and when, so ``estimate`` needs no change.

``calibration`` runs faster-whisper's own ``transcribe`` with its defaults on the given
files instead (the published Pi figures' workload).  The output (``--out``) is JSON: the
marks in order, and what each clip gave.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

MARK_SYSCALL = 31337   # as in stagecount.c

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.syscall.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_long]
_callgrind: ctypes.CDLL | None = None
marks: list[dict[str, object]] = []
_mode = "none"


def mark(label: str, clip: int = -1) -> None:
    """A stage boundary: what ran since the last mark was ``label`` (of clip ``clip``, -1: none)."""
    marks.append({"label": label, "clip": clip, "cpu": time.process_time()})
    if _mode == "qemu":
        _libc.syscall(MARK_SYSCALL, len(marks) - 1, clip)
    elif _callgrind is not None:
        _callgrind.callgrind_mark(len(marks) - 1)


@dataclass(frozen=True)
class Stage:
    """A stage counted on each clip after the recognition's own (see the module's text)."""

    label: str
    kind: str
    name: str
    when: str
    ready: Callable[[argparse.Namespace], Callable[[int, bytes], object] | None]


def _embedder(args: argparse.Namespace) -> Callable[[int, bytes], object] | None:
    """The speaker embedder on the utterance (one thread, as the product runs it)."""
    try:
        from facilitator.speech.voices.speaker_embed import Embedder, EmbedderMissing
    except ImportError:
        return None
    try:
        embedder = Embedder()
    except EmbedderMissing:
        return None
    return lambda clip, pcm: embedder.embed(pcm)


def _bearing(args: argparse.Namespace) -> Callable[[int, bytes], object] | None:
    """The bearing of an utterance said at a simulated ReSpeaker 4-mic array (``--array``)."""
    if not args.array:
        return None
    import numpy as np

    from facilitator.speech.voices.direction import GEOMETRIES, finder

    saved = np.load(args.array)
    said = [saved[k] for k in sorted(saved.files)]
    find = finder(GEOMETRIES[args.geometry])
    find.bearing(said[0])     # NumPy's first FFT and eigensolver calls: not a stage
    return lambda clip, pcm: find.bearing(said[clip % len(said)])


#: stages counted after the recognition's own, in this order (see "Adding a stage to the count")
STAGES = [
    Stage("embedder", "numpy", "the speaker embedder (d-vector, onnxruntime int8, one thread)", "voices", _embedder),
    Stage("bearing", "numpy", "a microphone array's bearing (NormMUSIC, ReSpeaker 4-mic)", "array", _bearing),
]


def _recognition(args: argparse.Namespace, clips: list[str], rounds: int, out: dict[str, object]) -> None:
    import faster_whisper  # noqa: F401  (its import is part of the load, as in play)

    from facilitator.grammar import load_grammar
    from facilitator.speech.audio.devices import read_wav
    from facilitator.speech.engines import whisper_engine
    from facilitator.speech.engines.grammar_build import recognition_grammar, with_wake_prefix
    from facilitator.speech.engines.hybrid import HybridRecognizer
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

    clock = whisper_engine._Stages

    class MarkedStages(clock):  # type: ignore[misc,valid-type]
        """Whisper's own stage clock, also marking each stage's end for the counter."""

        current = -1

        def done(self, stage: str) -> None:
            super().done(stage)
            mark(stage, MarkedStages.current)

    whisper_engine._Stages = MarkedStages
    mark("import")
    game = load_grammar(args.game)
    base = recognition_grammar(game)
    wakes = sorted({p for ps in game.lists["wake"].spoken.values() for p in ps})
    # as the loop listens for commands: the check's grammar leaves out the wake phrase alone
    checking = with_wake_prefix(base, wakes, bare_wake=False)
    decoding = with_wake_prefix(base, wakes, bare_wake=True)
    whisper = whisper_engine.WhisperRecognizer(threads=1)
    pocketsphinx = PocketsphinxRecognizer()
    hybrid = HybridRecognizer("always", pocketsphinx=pocketsphinx, whisper=whisper)
    pcms = [read_wav(path) for path in clips]
    extra = [(stage, stage.ready(args)) for stage in STAGES]
    extra = [(stage, work) for stage, work in extra if work is not None]
    mark("load")
    # a first decode builds pocketsphinx's searches and warms CTranslate2 (and each stage): not a stage
    hybrid.is_complete(pcms[0], checking)
    hybrid.decode(pcms[0], decoding)
    for _, work in extra:
        work(0, pcms[0])
    mark("warm-up")
    heard = []
    for r in range(rounds):
        for k, pcm in enumerate(pcms):
            clip = r * len(pcms) + k
            MarkedStages.current = clip
            mark("between", clip)
            hybrid.is_complete(pcm[:-320], checking)
            mark("early-check", clip)
            ended = hybrid.is_complete(pcm, checking)
            mark("end-check", clip)
            first = hybrid.hear_first(pcm, decoding)
            mark("pocketsphinx", clip)
            verdict = hybrid.verify(pcm, decoding, first)
            mark("decide", clip)
            for stage, work in extra:
                work(clip, pcm)
                mark(stage.label, clip)
            heard.append({"clip": os.path.basename(clips[k]), "round": r,
                          "pocketsphinx": first.hypothesis.text if first.hypothesis else None,
                          "ended_on_check": ended, "reused": pocketsphinx.last.get("reused"),
                          "whisper_nbest": whisper.last.get("heard"),
                          "scored": whisper.last.get("scored"), "cpu": whisper.last.get("cpu"),
                          "verdict": verdict.text if verdict else None})
    out["clips"] = heard
    out["phrases"] = len(decoding.phrases)
    out["scorer"] = "one-pass"   # the closed set scored in one decoder pass (issue 42)
    out["weights"] = whisper._scorer.weights    # the pass's weights: int8 rows (issue 50)
    out["checks"] = "end-check"   # the check that ends the utterance counted as its own stage (issue 50)
    out["stages"] = {stage.label: {"kind": stage.kind, "name": stage.name, "when": stage.when}
                     for stage, _ in extra}


def _calibration(files: list[str], out: dict[str, object]) -> None:
    from faster_whisper import WhisperModel
    from faster_whisper.audio import decode_audio, pad_or_trim

    from facilitator.speech.engines.whisper_model import packaged_model_dir

    mark("import")
    model = WhisperModel(str(packaged_model_dir()), device="cpu", compute_type="int8", cpu_threads=1)
    mark("load")
    texts = []
    for k, path in enumerate(files):
        mark("between", k)
        segments, info = model.transcribe(path)   # faster-whisper's defaults: beam 5, 30 s window
        text = " ".join(s.text.strip() for s in segments)
        mark("transcribe", k)
        # the encoder's part of it: one 30 s window, as transcribe encodes it
        model.encode(pad_or_trim(model.feature_extractor(decode_audio(path))))
        mark("encode-30s", k)
        texts.append({"file": os.path.basename(path), "seconds": info.duration, "text": text})
    out["files"] = texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mark", choices=("qemu", "callgrind", "none"), default="none")
    parser.add_argument("--what", choices=("baseline", "recognition", "calibration"), required=True)
    parser.add_argument("--game", default="compass-code")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--array", help="utterances said at an array (.npz of (microphones, samples) arrays)")
    parser.add_argument("--geometry", default="respeaker-4mic-hat", help="the array's geometry (direction.GEOMETRIES)")
    parser.add_argument("--out", required=True)
    parser.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    global _mode, _callgrind
    _mode = args.mark
    if _mode == "callgrind":
        _callgrind = ctypes.CDLL(os.environ["PI_ESTIMATE_MARK_LIB"])
        _callgrind.callgrind_mark.argtypes = [ctypes.c_long]
    mark("python")
    out: dict[str, object] = {"what": args.what}
    if args.what == "calibration":
        _calibration(args.files, out)
    elif args.what == "recognition":
        _recognition(args, args.files, args.rounds, out)
    else:   # the same imports and loads, and no utterance
        _recognition(args, args.files[:1], 0, out)
    mark("end")
    out["marks"] = marks
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
