"""The event log: append with fsync, read back, survive a half-written last line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from facilitator.errors import LogError
from facilitator.events import Event, rejected
from facilitator.log import EventLog, read_log

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
fields = st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True).filter(
    lambda k: k not in ("type", "seq", "audience")), json_values, max_size=4)
audiences = st.sampled_from(["public", "keeper", "a", "b"]) | st.integers(1, 8)
types = st.from_regex(r"[a-z]+(-[a-z]+){0,2}", fullmatch=True)


@given(types, fields, audiences, st.integers(1, 1000))
def test_every_event_round_trips_through_its_log_line(kind: str, data: dict, audience, seq: int) -> None:
    event = Event(kind, data, audience)
    line = json.loads(json.dumps(event.to_json(seq)))
    assert line["seq"] == seq
    assert Event.from_json(line) == event


def test_events_refuse_a_bad_envelope() -> None:
    with pytest.raises(ValueError):
        Event("Not_Kebab")
    with pytest.raises(ValueError):
        Event("x", {}, "everyone")
    with pytest.raises(ValueError):
        Event("x", {"seq": 3})


def _write(path: Path, events: list[Event]) -> None:
    log = EventLog(path)
    log.append(events)
    log.close()


def test_append_then_read(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    _write(path, [Event("game-started", {"game": "x"}), rejected("huh", "not understood")])
    contents = read_log(path)
    assert [e.type for e in contents.events] == ["game-started", "command-rejected"]
    assert contents.last_seq == 2 and not contents.notes


def test_a_half_written_last_line_is_dropped_with_a_note_and_cut_on_resume(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    _write(path, [Event("game-started", {"game": "x"}), rejected("a", "b")])
    with open(path, "ab") as f:
        f.write(b'{"type":"command-rej')     # the power went out mid-write
    contents = read_log(path)
    assert len(contents.events) == 2
    assert contents.notes and "half-written" in contents.notes[0]
    log, _ = EventLog.resume(path)
    log.append([rejected("c", "d")])
    log.close()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["seq"] for x in lines] == [1, 2, 3]


def test_a_last_line_without_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    _write(path, [Event("game-started", {"game": "x"})])
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    log, contents = EventLog.resume(path)
    assert len(contents.events) == 1
    log.append([rejected("c", "d")])
    log.close()
    assert [json.loads(x)["seq"] for x in path.read_text().splitlines()] == [1, 2]


@pytest.mark.parametrize("damage, message", [
    (lambda b: b.replace(b'"seq":2', b'"seq":1'), "line 2: seq 1 does not follow 1"),
    (lambda b: b.split(b"\n", 1)[0] + b"\n#garbage\n" + b.split(b"\n", 1)[1], "line 2"),
    (lambda b: b"", "holds no events"),
    (lambda b: b.split(b"\n", 1)[1], "does not start the log at 1"),
    (lambda b: b"\xff\xfe\x00garbage\n" + b, "line 1"),
])
def test_a_corrupt_log_is_refused_and_left_untouched(tmp_path: Path, damage, message: str) -> None:
    path = tmp_path / "game.jsonl"
    _write(path, [Event("game-started", {"game": "x"}), rejected("a", "b"), rejected("c", "d")])
    path.write_bytes(damage(path.read_bytes()))
    before = path.read_bytes()
    with pytest.raises(LogError, match=message):
        EventLog.resume(path)
    assert path.read_bytes() == before


def test_missing_log(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="no log at"):
        read_log(tmp_path / "nothing.jsonl")


def _batched(path: Path) -> bytes:
    log = EventLog(path)
    log.append([Event("game-started", {"game": "x"})])
    log.append([rejected("a", "b"), rejected("c", "d")])      # the last command: two events
    log.close()
    return path.read_bytes()


@pytest.mark.parametrize("flipped", [b"\x0b", b"\x8a", b"*", b"\x00", b"\x0e", b"J"])
def test_a_flipped_last_newline_keeps_the_whole_command_its_chain_verifies(tmp_path: Path, flipped: bytes) -> None:
    """One damaged byte where the last line's newline belongs: the line before it is whole
    and its chain verifies, so it is a command, not a torn tail; only the byte is cut off."""
    path = tmp_path / "game.jsonl"
    raw = _batched(path)
    path.write_bytes(raw[:-1] + flipped)
    contents = read_log(path)
    assert [e.type for e in contents.events] == ["game-started", "command-rejected", "command-rejected"]
    assert len(contents.batches) == 2
    assert contents.notes and "chain verifies" in contents.notes[0] and repr(flipped) in contents.notes[0]
    log, _ = EventLog.resume(path)
    assert path.read_bytes() == raw              # the damage is cut off, the newline put back
    log.append([rejected("e", "f")])
    log.close()
    assert [e.type for e in read_log(path).events][-1] == "command-rejected"
    assert not read_log(path).notes


def test_a_cut_last_line_is_still_a_torn_tail_dropped_whole(tmp_path: Path) -> None:
    """Cut one byte short of its chain's end, the last line is torn: its command goes."""
    path = tmp_path / "game.jsonl"
    raw = _batched(path)
    path.write_bytes(raw[:-3] + b"\x0b")
    contents = read_log(path)
    assert [e.type for e in contents.events] == ["game-started"]
    assert "half-written" in contents.notes[0]
