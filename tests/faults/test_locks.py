"""The data directory's lock API (``facilitator/locks.py``), as other parts use it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import deadline

from facilitator.errors import InUseError, WriteError
from facilitator.locks import held_data_dir, lock_data_dir

HOLD = "import sys, time; from facilitator.locks import lock_data_dir; lock_data_dir(sys.argv[1]); " \
       "print('held', flush=True); sys.stdin.read()"


def test_the_lock_is_reentrant_within_a_process_and_released_by_the_last_holder(tmp_path: Path) -> None:
    first = lock_data_dir(tmp_path / "data")
    second = lock_data_dir(tmp_path / "data")
    assert second is first and held_data_dir(tmp_path / "data")
    first.release()
    assert held_data_dir(tmp_path / "data")
    second.release()
    assert not held_data_dir(tmp_path / "data")


def test_another_process_holding_it_is_named_by_its_pid(tmp_path: Path) -> None:
    data = tmp_path / "data"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(data)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        with pytest.raises(InUseError, match=f"pid {holder.pid}") as caught:
            lock_data_dir(data)
        assert caught.value.pid == holder.pid
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=deadline(30))
        if holder.stdout is not None:
            holder.stdout.close()
    lock_data_dir(data).release()      # the holder's end released it


def test_a_file_in_the_way_is_a_write_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(WriteError, match="cannot use the data directory"):
        lock_data_dir(tmp_path / "file")
