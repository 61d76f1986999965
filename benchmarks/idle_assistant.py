"""Memory and CPU of an idle listening assistant (the lobby of ``facilitator serve``).

A child process runs the real pieces a Pi runs between commands: the lobby, the
listen loop, the webrtcvad endpointer, the pocketsphinx recognizer (loaded, with
the lobby's grammar) and the speech synthesizer (its worker started by the
opening announcement, rendered to a WAV file because there is no sound card
here).  Its microphone is a source that delivers a quiet room (a -60 dBFS noise
floor with a cough-length bump of -30 dBFS every 20 s) in real time, 30 ms frames at
wall-clock pace, exactly as ``MicSource`` would.

The parent waits for the opening announcement to finish, then samples the
child's process tree from /proc: CPU time (utime+stime of the child and its
workers) over the window, RSS now and the peak (VmHWM).  Figures go to
``benchmarks/idle_assistant.txt``.

    python benchmarks/idle_assistant.py [--seconds 60] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
READY = "ready"


# -- the child: an idle lobby listening to a quiet room ------------------------------
class QuietRoom:
    """An AudioSource of room noise at wall-clock pace (what a microphone delivers)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.closed = False

    def frames(self) -> Iterator[object]:
        import numpy as np

        from facilitator.speech.base import FRAME_MS, SAMPLE_RATE, Frame

        rng = np.random.default_rng(1)
        per_frame = SAMPLE_RATE * FRAME_MS // 1000
        start = time.monotonic()
        n = 0
        while not self.closed:
            t = n * FRAME_MS / 1000
            if t >= self.seconds:
                return
            wait = start + t + FRAME_MS / 1000 - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            level = 1000.0 if (t % 20.0) < 0.4 else 33.0   # about -30 and -60 dBFS
            pcm = (rng.standard_normal(per_frame) * level).astype("<i2").tobytes()
            yield Frame(pcm, t)
            n += 1

    def close(self) -> None:
        self.closed = True


def child(seconds: float) -> int:
    from facilitator.lobby import GameStore, Lobby
    from facilitator.speech.audio.endpoint import Endpointer
    from facilitator.speech.base import VoiceSettings
    from facilitator.speech.engines.recognize import make_recognizer
    from facilitator.speech.loop.listen import ListenLoop
    from facilitator.speech.voice_out import tts

    with tempfile.TemporaryDirectory() as tmp:
        lobby = Lobby(GameStore(Path(tmp) / "data"))
        voice = VoiceSettings()
        speaker = tts.FileSpeaker(Path(tmp) / "said", voice)
        loop = ListenLoop(lobby, make_recognizer(), speaker, voice, None, wall_clock=time.monotonic)
        loop.recognition_grammar(None)   # the lobby's grammar is built before the first utterance
        try:
            loop.announce(lobby.opening().public)
            print(READY, flush=True)
            loop.run_audio(QuietRoom(seconds), Endpointer(complete=loop.complete))
        finally:
            speaker.synthesizer.close()
    return 0


# -- the parent: measure the child's process tree --------------------------------------
def _tree(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")   # utime + stime


def _status_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def measure(seconds: float) -> dict[str, float]:
    proc = subprocess.Popen([sys.executable, __file__, "--child", "--seconds", str(seconds + 30)],
                            stdout=subprocess.PIPE, text=True, cwd=HERE.parent)
    try:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != READY:
            raise SystemExit("the idle assistant did not start")
        time.sleep(3.0)   # let the opening's synthesis and the first frames settle
        pids = _tree(proc.pid)
        cpu0 = sum(_cpu_seconds(p) for p in pids)
        t0 = time.monotonic()
        time.sleep(seconds)
        pids = _tree(proc.pid)
        cpu1 = sum(_cpu_seconds(p) for p in pids)
        wall = time.monotonic() - t0
        rss = {p: _status_kib(p, "VmRSS") for p in pids}
        hwm = {p: _status_kib(p, "VmHWM") for p in pids}
    finally:
        proc.kill()
        proc.wait()
    return {
        "window_seconds": wall,
        "cpu_percent_of_one_core": 100.0 * (cpu1 - cpu0) / wall,
        "rss_main_mib": rss[proc.pid] / 1024,
        "rss_tree_mib": sum(rss.values()) / 1024,
        "peak_rss_main_mib": hwm[proc.pid] / 1024,
        "processes": len(pids),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=HERE / "idle_assistant.txt")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.seconds)
    figures = measure(args.seconds)
    lines = [
        "# Idle listening assistant (lobby, listen loop, webrtcvad, pocketsphinx, TTS worker)",
        (f"# made by benchmarks/idle_assistant.py on {time.strftime('%Y-%m-%d', time.gmtime())}, "
         f"{platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores"),
        f"window: {figures['window_seconds']:.1f} s of a quiet room fed in real time",
        f"cpu: {figures['cpu_percent_of_one_core']:.1f} % of one core (all {figures['processes']} processes)",
        f"rss: {figures['rss_main_mib']:.0f} MiB main process, {figures['rss_tree_mib']:.0f} MiB with its workers",
        f"peak rss of the main process: {figures['peak_rss_main_mib']:.0f} MiB",
    ]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
