"""Voice controls: "louder", "softer", "faster", "slower", as a pure step.

Volume is a linear gain 0.1-1.0 on the voice and the earcons (1.0 is the
loudest the voice goes without clipping), stepped by ``volume_step_db``; rate
is stepped by ``rate_step_wpm`` within its limits.  At a limit the reply says
so and nothing changes.  The reply is a phrase key of ``grammars/common.toml``
(``voice-louder``, ``voice-loudest``, ...).
"""

from __future__ import annotations

from .settings import LoopSettings


def step(intent: str, volume: float, rate_wpm: int, settings: LoopSettings) -> tuple[float, int, str]:
    """(new volume, new rate, the reply's phrase key) for the voice control ``intent``."""
    s = settings
    key = "voice-" + intent.replace(" ", "-")
    gain = 10 ** (s.volume_step_db / 20)
    near = 10 ** (0.5 / 20)   # within half a decibel of a limit is the limit
    if intent == "louder":
        if volume * near >= s.max_volume:
            key = "voice-loudest"
        louder = volume * gain
        volume = s.max_volume if louder * near >= s.max_volume else round(louder, 3)
    elif intent == "softer":
        if volume <= s.min_volume * near:
            key = "voice-softest"
        softer = volume / gain
        volume = s.min_volume if softer <= s.min_volume * near else round(softer, 3)
    elif intent == "faster":
        if rate_wpm >= s.max_rate_wpm:
            key = "voice-fastest"
        rate_wpm = min(s.max_rate_wpm, rate_wpm + s.rate_step_wpm)
    elif intent == "slower":
        if rate_wpm <= s.min_rate_wpm:
            key = "voice-slowest"
        rate_wpm = max(s.min_rate_wpm, rate_wpm - s.rate_step_wpm)
    return volume, rate_wpm, key
