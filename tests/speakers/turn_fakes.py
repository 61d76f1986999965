"""Voice turns whose voices are given, not heard: a seat's voice is a fixed unit vector
(``VOICE``) and an utterance's voice is given by its start time (the fake audio carries
only words).  For the voice-turn tests with and without a microphone array."""

from __future__ import annotations

import numpy as np

from facilitator.speech.base import Segment
from facilitator.speech.voices.voice_turns import VoiceTurns

#: seats 1 and 2, a stranger (9), a voice halfway between seats 1 and 2 (12), seat 2's
#: voice as it sounds another day (13: still unlike seat 1's, cosine 0.28), and a voice
#: almost the same as seat 1's (21: cosine 0.99, the table's microphone cannot tell them apart)
VOICE = {1: np.array([1.0, 0, 0]), 2: np.array([0, 1.0, 0]), 9: np.array([0, 0, 1.0]),
         12: np.array([1.0, 1.0, 0.2]) / np.sqrt(2.04), 13: np.array([0.3, 1.0, 0.2]) / np.sqrt(1.13),
         21: np.array([1.0, 0.14, 0.0]) / np.linalg.norm([1.0, 0.14, 0.0])}


class Turns(VoiceTurns):
    """Voice turns whose embedder reads the voice given to each utterance's start."""

    voices_at: dict[float, int]

    def _embed(self, segment: Segment) -> np.ndarray | None:
        self.embedded += 1
        return VOICE[self.voices_at[segment.start]]


class Unused:
    def embed(self, pcm: bytes) -> np.ndarray:
        raise AssertionError("the test's Turns embeds")
