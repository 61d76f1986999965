"""Whisper's OpenMP threads wait passively (they sleep between calls instead of spinning).

The policy is read when CTranslate2's OpenMP library loads, so each case runs in a
fresh interpreter that loads the real model.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = ("import os; from facilitator.speech.engines.whisper_engine import WhisperRecognizer; "
         "WhisperRecognizer(threads=1); print(os.environ.get('OMP_WAIT_POLICY'))")


def _policy(extra: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env.update(extra, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=True,
                          cwd=ROOT, timeout=120)
    return done.stdout.strip()


def test_whisper_threads_wait_passively_unless_the_player_chose() -> None:
    pytest.importorskip("faster_whisper")
    assert _policy({}) == "PASSIVE"
    assert _policy({"OMP_WAIT_POLICY": "ACTIVE"}) == "ACTIVE"


def test_the_default_threads_follow_the_cores_this_process_may_use() -> None:
    from facilitator.speech.engines.whisper_engine import _cores

    assert _cores() == len(os.sched_getaffinity(0))
