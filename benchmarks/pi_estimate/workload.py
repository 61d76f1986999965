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

The stages, on each clip, in the order the listen loop runs them (``HybridRecognizer``):
``pocketsphinx`` (``hear_first``: pocketsphinx's decode under the game's grammar),
``early-check`` (``is_complete``, the endpointer's early-finish check, on the whole
clip), then ``verify``: Whisper's own stages as ``WhisperRecognizer.decode`` times them
(``encode``, ``n-best``, ``scoring``, ``swaps``, marked where its stage clock is read)
and ``decide`` (the rest of ``verify``).  ``calibration`` runs faster-whisper's own
``transcribe`` with its defaults on the given files instead (the published Pi figures'
workload).  The output (``--out``) is JSON: the marks in order, and what each clip gave.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import time

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


def _recognition(clips: list[str], game: str, rounds: int, out: dict[str, object]) -> None:
    import faster_whisper  # noqa: F401  (its import is part of the load, as in play)

    from facilitator.grammar import load_grammar
    from facilitator.speech.audio.devices import read_wav
    from facilitator.speech.engines import whisper_engine
    from facilitator.speech.engines.grammar_build import recognition_grammar
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
    grammar = recognition_grammar(load_grammar(game))
    whisper = whisper_engine.WhisperRecognizer(threads=1)
    hybrid = HybridRecognizer("always", pocketsphinx=PocketsphinxRecognizer(), whisper=whisper)
    pcms = [read_wav(path) for path in clips]
    mark("load")
    # a first decode builds pocketsphinx's search for the grammar and warms CTranslate2: not a stage
    hybrid.decode(pcms[0], grammar)
    mark("warm-up")
    heard = []
    for r in range(rounds):
        for k, pcm in enumerate(pcms):
            clip = r * len(pcms) + k
            MarkedStages.current = clip
            mark("between", clip)
            first = hybrid.hear_first(pcm, grammar)
            mark("pocketsphinx", clip)
            # an early check decodes the audio so far (here: the clip less its last 10 ms; on the
            # whole clip it would reuse the hearing just made, as the check that ends an utterance does)
            hybrid.is_complete(pcm[:-320], grammar)
            mark("early-check", clip)
            verdict = hybrid.verify(pcm, grammar, first)
            mark("decide", clip)
            heard.append({"clip": os.path.basename(clips[k]), "round": r,
                          "pocketsphinx": first.hypothesis.text if first.hypothesis else None,
                          "whisper_nbest": whisper.last.get("heard"),
                          "scored": whisper.last.get("scored"), "cpu": whisper.last.get("cpu"),
                          "verdict": verdict.text if verdict else None})
    out["clips"] = heard
    out["phrases"] = len(grammar.phrases)
    out["scorer"] = "one-pass"   # the closed set scored in one decoder pass (issue 42)


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
        _recognition(args.files, args.game, args.rounds, out)
    else:   # the same imports and loads, and no utterance
        _recognition(args.files[:1], args.game, 0, out)
    mark("end")
    out["marks"] = marks
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
