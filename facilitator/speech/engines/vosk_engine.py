"""The optional Vosk recognizer, used when a Vosk model directory is configured.

Vosk decodes in grammar mode: the phrases legal now plus ``[unk]``, so speech
outside them comes back as ``[unk]`` and is rejected.  The model directory is
checked before ``vosk.Model(path)`` is called (never ``Model(lang=...)`` or
``Model(model_name=...)``: those reach for the network and can exit the process),
and the first load happens in a child process, because a broken model can crash
the native library instead of raising.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Any

from ...errors import ModelError
from ..base import SAMPLE_RATE, Hypothesis, RecognitionGrammar

UNKNOWN = "[unk]"
#: above this many phrases, Vosk gets the grammar's words instead (a word loop);
#: whole phrases are still checked afterwards
MAX_PHRASES = 5000
_MAX_RECOGNIZERS = 16
PROBE_SECONDS = 120.0


def check_layout(model_dir: str | Path) -> Path:
    """``model_dir`` as a Path if it looks like a Vosk model; ModelError naming what is missing."""
    path = Path(model_dir).expanduser()
    if not path.exists():
        raise ModelError(f"vosk model directory {str(path)!r} does not exist")
    if not path.is_dir():
        raise ModelError(f"vosk model {str(path)!r} is not a directory (unzip the model first)")
    missing = []
    if not _nonempty(path / "am" / "final.mdl"):
        missing.append("am/final.mdl")
    if not _nonempty(path / "conf" / "mfcc.conf"):
        missing.append("conf/mfcc.conf")
    graph = path / "graph"
    if not (_nonempty(graph / "HCLG.fst") or (_nonempty(graph / "HCLr.fst") and _nonempty(graph / "Gr.fst"))):
        missing.append("graph/HCLr.fst and graph/Gr.fst (or graph/HCLG.fst)")
    if missing:
        inner = [p for p in path.iterdir() if p.is_dir() and (p / "am" / "final.mdl").is_file()] \
            if path.is_dir() else []
        hint = f"; did you mean {str(inner[0])!r}?" if len(inner) == 1 else ""
        raise ModelError(f"{str(path)!r} is not a Vosk model: missing {', '.join(missing)}{hint}")
    return path


def _nonempty(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


_PROBE = """
import json, sys
import vosk
vosk.SetLogLevel(-1)
try:
    model = vosk.Model(sys.argv[1])
    recognizer = vosk.KaldiRecognizer(model, 16000, json.dumps(["yes", "[unk]"]))
except Exception as exc:  # noqa: BLE001 - the library raises bare exceptions
    print(f"{exc}", file=sys.stderr)
    sys.exit(3)
print("ok")
"""


def probe_model(path: Path, timeout: float = PROBE_SECONDS) -> None:
    """Load the model once in a child process; ModelError if that fails or crashes."""
    try:
        done = subprocess.run([sys.executable, "-c", _PROBE, str(path)], check=False,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ModelError(f"vosk model {str(path)!r} took over {timeout:.0f} s to load") from None
    if done.returncode == 0 and done.stdout.strip() == "ok":
        return
    if done.returncode < 0:
        raise ModelError(f"vosk crashed loading {str(path)!r} (signal {-done.returncode}); "
                         "the model files are broken")
    detail = (done.stderr.strip().splitlines() or ["unknown error"])[-1]
    if "No module named" in detail:
        raise ModelError("vosk is not installed (pip install vosk)")
    raise ModelError(f"vosk cannot load the model in {str(path)!r}: {detail}")


class VoskRecognizer:
    """Recognizer on a local Vosk model in grammar mode (phrases plus ``[unk]``)."""

    name = "vosk"
    #: its phrase is never sure (no second opinion checks it)
    can_be_sure = False

    def __init__(self, model_dir: str | Path, *, probe: bool = True) -> None:
        path = check_layout(model_dir)
        if probe:
            probe_model(path)
        try:
            import vosk  # type: ignore[import-untyped]
        except ImportError as exc:
            raise ModelError(f"vosk is not installed ({exc}); pip install vosk") from None
        vosk.SetLogLevel(-1)
        try:
            self._model = vosk.Model(str(path))  # a path only: never lang= or model_name=
        except Exception as exc:  # noqa: BLE001 - vosk raises a bare Exception('Failed to create a model')
            raise ModelError(f"vosk cannot load the model in {str(path)!r}: {exc}") from None
        self._vosk = vosk
        self.path = path
        self._recognizers: OrderedDict[str, tuple[Any, frozenset[str]]] = OrderedDict()

    def _recognizer(self, grammar: RecognitionGrammar) -> tuple[Any, frozenset[str]]:
        key = grammar.key or str(hash(grammar.jsgf))
        found = self._recognizers.get(key)
        if found is not None:
            self._recognizers.move_to_end(key)
            return found
        entries = list(grammar.phrases) if len(grammar.phrases) <= MAX_PHRASES else sorted(grammar.words)
        spec = json.dumps(entries + [UNKNOWN], ensure_ascii=False)
        try:
            recognizer = self._vosk.KaldiRecognizer(self._model, SAMPLE_RATE, spec)
        except Exception as exc:  # noqa: BLE001 - the library raises bare exceptions
            raise ModelError(f"vosk cannot build a recognizer from {str(self.path)!r}: {exc}") from None
        found = (recognizer, frozenset(grammar.phrases))
        self._recognizers[key] = found
        if len(self._recognizers) > _MAX_RECOGNIZERS:
            self._recognizers.popitem(last=False)
        return found

    def decode(self, pcm: bytes, grammar: RecognitionGrammar) -> Hypothesis | None:
        """The grammar phrase heard, or None for silence, ``[unk]`` or a non-phrase."""
        recognizer, phrases = self._recognizer(grammar)
        recognizer.AcceptWaveform(pcm)
        result = json.loads(recognizer.FinalResult())
        recognizer.Reset()
        return parse_result(result, phrases)


def parse_result(result: dict[str, Any], phrases: frozenset[str]) -> Hypothesis | None:
    """A Vosk final result as a Hypothesis: None when empty, holding ``[unk]``, or not a phrase."""
    text = " ".join(str(result.get("text", "")).split())
    if not text or UNKNOWN in text.split():
        return None
    if text not in phrases:
        return None
    return Hypothesis(text)
