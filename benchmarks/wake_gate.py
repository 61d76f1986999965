"""What the wake-phrase gate keeps out, and whether it still hears the wake phrase.

Run from the repository root: ``python benchmarks/wake_gate.py``.  With pocketsphinx:

* every clip in ``tests/audio/chatter`` (table talk) and ``tests/audio/compass-code``
  (commands said without the wake phrase) is decoded under the grammar of what is
  legal at the start of a Compass Code game (what an ungated loop listens with) and
  under the wake grammar (what a gated, dormant loop listens with: the wake
  phrases with the legal commands as competitors): how many would have become a
  command, how many wake the loop;
* the wake phrases, said by espeak-ng voices not used for the golden clips, are
  decoded under the wake grammar: how many are heard.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from facilitator.session import Session
from facilitator.speech.audio.devices import convert, read_wav
from facilitator.speech.base import VoiceSettings
from facilitator.speech.engines.recognize import make_recognizer
from facilitator.speech.loop.listen import ListenLoop

VOICES = ("en-gb-x-rp", "en-us+f2", "en-gb-x-gbclan", "en-us+m5", "en-gb-x-gbcwmd", "en-us+f5",
          "en-gb-scotland", "en-029", "en-us+m3")


class _Silent:
    def speak(self, text: str) -> float:
        return 0.0

    def earcon(self, name: str) -> None:
        return None


def main() -> None:
    recognizer = make_recognizer()
    with tempfile.TemporaryDirectory() as tmp:
        session, _ = Session.start("compass-code", seed=1, log_path=Path(tmp) / "log.jsonl")
        loop = ListenLoop(session, recognizer, _Silent(), VoiceSettings())
        listening, wake = loop.recognition_grammar(None), loop.wake_grammar()
        print(f"{'clips':<28}{'count':>6}{'ungated: a command':>20}{'gated: woke':>13}")
        for folder in ("chatter", "compass-code"):
            clips = sorted((ROOT / "tests" / "audio" / folder).glob("*.wav"))
            commands = woke = 0
            for clip in clips:
                pcm = read_wav(clip)
                commands += recognizer.decode(pcm, listening) is not None
                hyp = recognizer.decode(pcm, wake)
                woke += hyp is not None and hyp.text in loop.wake_phrases()
            print(f"{'tests/audio/' + folder:<28}{len(clips):>6}{commands:>20}{woke:>13}")
        heard = total = 0
        for phrase in loop.wake_phrases():
            for voice in VOICES:
                path = Path(tmp) / "wake.wav"
                subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), phrase], check=True)
                with wave.open(str(path)) as w:
                    pcm = convert(w.readframes(w.getnframes()), w.getframerate(), w.getnchannels(),
                                  w.getsampwidth())
                hyp = recognizer.decode(bytes(8000) + pcm + bytes(8000), wake)
                total += 1
                heard += hyp is not None and hyp.text == phrase
        print(f"wake phrases heard: {heard} of {total} ({', '.join(loop.wake_phrases())}; "
              f"voices {', '.join(VOICES)})")
        session.log.close()


if __name__ == "__main__":
    main()
