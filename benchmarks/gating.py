"""Table chatter through the real listen loop: what reaches the referee after gating.

For every chatter clip, in a fresh game at its start, the real ``ListenLoop``
(pocketsphinx, the state-narrowed grammar) hears the clip as its next utterance
in each mode:

* ``ungated``: always listening;
* ``wake``: dormant, waiting for the wake phrase; when chatter wakes it, the next
  chatter clip is heard as the command;
* ``push-to-talk held``: the key is held while the chatter is said (the worst case
  for push-to-talk; with the key up the loop discards everything unheard);

and whenever the loop echoes a consequential command back, the next chatter clip
is its answer (worse than silence, which times out and cancels).

Counted per mode: *taken* (heard as any command while listening: a query, a control or
a game command; each costs the table a spoken answer), *echoed* (a consequential command asked back), *reached the referee*
(a command that changes the game was applied).
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from facilitator.session import CONTROLS, Reply, Session
from facilitator.speech.base import Segment
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState

MODES = ("ungated", "wake", "push-to-talk held")


class _Silent:
    """A speaker that says nothing (the loop still counts its earcons and deaf windows)."""

    def speak(self, text: str) -> float:
        return 0.5

    def earcon(self, name: str) -> None:
        return None


def _settings(mode: str) -> LoopSettings:
    return LoopSettings(wake_phrase=mode == "wake", push_to_talk=mode == "push-to-talk held")


def chatter_trial(game: str, mode: str, clips: list[bytes], recognizer: Any) -> Counter[str]:
    """Feed ``clips`` (chatter) to a fresh loop one after another; count what got through."""
    counts: Counter[str] = Counter()
    session, _ = Session.start(game, seed=1)
    executed: list[Reply] = []
    real_execute = session.execute

    def execute(command: Any) -> Reply:
        reply = real_execute(command)
        executed.append(reply)
        return reply

    session.execute = execute  # type: ignore[method-assign]
    loop = ListenLoop(session, recognizer, _Silent(), settings=_settings(mode))
    real_command = loop._command

    def command_taken(command: Any) -> None:
        counts["taken"] += 1
        real_command(command)

    loop._command = command_taken  # type: ignore[method-assign]
    loop.start()
    if mode == "push-to-talk held":
        loop.press(0.0)
    t = 1.0
    first_discarded = 0
    for pcm in clips:
        if loop.state is LoopState.DONE:
            break
        seconds = len(pcm) / 32_000
        t = max(t, loop.quiet_from + 0.5)
        was = loop.state
        loop.hear(Segment(pcm, t, t + seconds))
        t += seconds + 0.5
        if was is LoopState.DORMANT and len(loop.discarded) == first_discarded:
            counts["woke"] += 1
        first_discarded = len(loop.discarded)
        if loop.state is LoopState.CONFIRMING:
            counts["echoed"] += 1
        if loop.state not in (LoopState.CONFIRMING,) and not (mode == "wake" and loop.gate.armed):
            break   # nothing pending and not awake: this trial is over
    loop.finish()
    for reply in executed:
        command = reply.command
        if command is None:
            continue
        if reply.accepted and command.intent not in session.referee.queries and command.intent not in CONTROLS \
                and command.intent != "repeat":
            counts["reached"] += 1
    session.log.close()
    return counts


def run_gating(games: tuple[str, ...], chatter: list[bytes], recognizer: Any) -> dict[tuple[str, str], Counter[str]]:
    """Per (game, mode): totals over trials, one trial starting at each chatter clip."""
    out: dict[tuple[str, str], Counter[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FACILITATOR_DATA_DIR"] = str(Path(tmp))
        for game in games:
            for mode in MODES:
                total: Counter[str] = Counter()
                for i in range(len(chatter)):
                    order = chatter[i:] + chatter[:i]
                    total.update(chatter_trial(game, mode, order[:3], recognizer))
                    total["trials"] += 1
                out[(game, mode)] = total
    return out
