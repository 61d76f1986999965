"""The speech-synthesis worker: pyttsx3 (over espeak-ng) in its own process.

Run by ``tts.Synthesizer`` as ``python -m facilitator.speech.voice_out.tts_worker``.  Each
request is one JSON line on stdin (``text``, ``path``, ``voice``, ``rate_wpm``,
``volume``); the worker writes the WAV with ``save_to_file`` and one
``runAndWait`` (pyttsx3 keeps only the last of several queued files) and answers
one JSON line.  pyttsx3 prints to stdout, so the answers go to a private copy
of the original stdout and stdout itself is pointed at stderr.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def main() -> int:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        import pyttsx3  # type: ignore[import-untyped]

        engine: Any = pyttsx3.init("espeak")
    except Exception as exc:  # noqa: BLE001 - no pyttsx3, no libespeak-ng: the parent falls back
        answers.write(json.dumps({"ready": False, "error": f"{type(exc).__name__}: {exc}"}) + "\n")
        return 1
    answers.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        try:
            request = json.loads(line)
            if request.get("voice"):
                engine.setProperty("voice", request["voice"])
            engine.setProperty("rate", int(request["rate_wpm"]))
            engine.setProperty("volume", float(request["volume"]))
            engine.save_to_file(request["text"], request["path"])
            engine.runAndWait()
            answer: dict[str, Any] = {"ok": True}
        except Exception as exc:  # noqa: BLE001 - the library raises bare exceptions
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        answers.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
