"""Helpers for tests: run the real CLI as a subprocess and read JSON Lines.

Importable from any test as ``from support import run_cli, read_jsonl`` (pytest
puts tests/ on the path; test files may share base names across folders).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_cli(args: Sequence[str], stdin: bytes | str = b"", timeout: float = 60,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m facilitator ARGS`` with ``stdin``; text stdout/stderr."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "facilitator", *args], input=data,
                          capture_output=True, timeout=timeout, env=full_env, cwd=ROOT)
    return subprocess.CompletedProcess(proc.args, proc.returncode,
                                       proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
