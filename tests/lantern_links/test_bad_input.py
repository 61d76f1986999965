"""Bad input costs nothing: one command-rejected, a clear sentence, no turn used.

The one exception is the rules' own: a tile that matches neither end is returned
and the turn counts as a pass."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support import read_jsonl, run_cli

Make = Callable[..., Any]


def refused(t: Any, line: str) -> list[str]:
    before = t.state
    said = t.say(line)
    assert t.state == before, line
    assert [e["type"] for e in t.replies[-1].logged] == ["command-rejected"], line
    assert t.replies[-1].logged[0]["utterance"] == (line if len(line) <= 300 else line[:300] + "…")
    return said


def test_refusals_cost_no_turn(table: Make) -> None:
    t = table(routes=(1, 7, 12))            # card 1 uses B C F H I J
    seat = t.state.turn
    other = next(x for s, h in enumerate(t.state.hands, 1) if s != seat for x in h)
    before_chain = t.state.chain
    words = " ".join(t.state.words[other]).lower()
    assert refused(t, f"play {other}") == [
        (f"Player {t.state.holder(other)} holds {words}. It is Player {seat}'s turn: "
         f"only Player {seat} places now.")]
    # tiles are named by their words, never bare letters (A is sun sun; card 1 uses B C F H I J)
    assert refused(t, "play alpha") == [
        ("The sun sun tile is not in this route, which uses sun moon, sun leaf, moon leaf, leaf leaf, "
        "leaf key, key key.")]
    assert refused(t, "play kilo") == ["Say again?"]
    assert refused(t, "sun") == ["Say again?"]
    # a line the grammar cannot parse but meaning can place is asked, never applied
    assert refused(t, "play charlie charlie") == ["Did you mean: play charlie?"]
    assert t.say("no") and t.state.chain == before_chain
    assert refused(t, "rewind") == ["The chain is empty: there is nothing to rewind."]
    assert refused(t, "x" * 400) == ["That was too long to be a command. Say again?"]
    assert refused(t, "send north east south west") == ["Say again?"]
    assert refused(t, "yes") == ["There is nothing to confirm."]
    t.place("C")
    assert refused(t, "play charlie") == ["The sun leaf tile is already in the chain, in space 1."]
    assert t.state.passes == 0


def test_queries_log_nothing_and_change_nothing(table: Make) -> None:
    t = table(routes=(1, 7, 12))
    before = t.state
    for line in ("hands", "what's in my hand", "status", "help", "read the rules", "repeat"):
        said = t.say(line)
        assert said and t.replies[-1].logged == [] and t.state == before
    hands = t.session.referee.query(t.state, t.session.parse("read the hands"), t.session.phrases)
    # the player up first, with the open word; then one sentence for each other hand
    assert hands[0].startswith("Player 1 holds ") and hands[0].endswith(". The open word is leaf.")
    assert [h.split(" holds ")[0] for h in hands[1:]] == ["Player 2", "Player 3"]
    said = t.say("read the hands")           # the key sentence first, "go on" for the rest
    assert said[0] == hands[0]
    assert t.say("go on")[0] == hands[1]


def test_the_rules_exception_a_mismatch_is_a_pass(table: Make) -> None:
    t = table(routes=(1, 7, 12))
    t.place("C")
    seat = t.state.turn
    tile = next(x for x in t.state.hands[seat - 1] if "SUN" not in t.state.words[x])
    t.say(f"play {tile}")
    assert t.state.passes == 1 and t.state.turn != seat


@pytest.mark.slow
def test_cli_survives_malformed_lines(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    stdin = (b"# a comment\n\n   \nplay \xff\xfe charlie\n\x00\x01\nplay charlie\nstatus\n"
             b"play charlie;;;\n" + b"a" * 5000 + b"\n")
    result = run_cli(["play", "lantern-links", "--text", "--seed", "3", "--routes", "1,7,12",
                      "--log", str(log)], stdin)
    assert result.returncode == 0 and result.stderr == ""
    events = read_jsonl(log)
    rejected = [e for e in events if e["type"] == "command-rejected"]
    placed = [e for e in events if e["type"] in ("tile-placed", "tile-returned")]
    assert len(rejected) + len(placed) >= 4
    assert "Traceback" not in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), [
    (["--routes", "1,2"], "--routes needs 3 card numbers, got 2"),
    (["--routes", "1,2,13"], "--routes: 13 is not a route card (1 to 12)"),
    (["--routes", "1,1,2"], "--routes: a game plays three different cards"),
    (["--routes", "one,2,3"], "--routes: 'one' is not a route card number (1 to 12)"),
    (["--players", "7"], "lantern-links takes 2 to 6 players, not 7"),
    (["--mode", "gentle"], "--mode is not an option of lantern-links"),
])
def test_bad_arguments_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = run_cli(["play", "lantern-links", "--text", *args], "pass\n")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"facilitator: {message}\n"


@pytest.mark.slow
@pytest.mark.parametrize(("old", "new"), [('"hands":{', '"hands":["x"],"was":{'), ('"tiles":{', '"tiles":{"Z":1,')])
def test_a_corrupt_log_cannot_be_resumed_and_says_why(tmp_path: Path, old: str, new: str) -> None:
    log = tmp_path / "game.jsonl"
    first = run_cli(["play", "lantern-links", "--text", "--routes", "1,7,12", "--log", str(log)], "pass\n")
    assert first.returncode == 0
    text = log.read_text(encoding="utf-8")
    assert old in text
    # edited by hand, and written as a log from before batches (no chain to catch the edit),
    # so that replay itself must refuse the malformed event
    lines = [{k: v for k, v in json.loads(x).items() if k not in ("batch", "batch_size", "chain")}
             for x in text.replace(old, new, 1).splitlines()]
    log.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines), encoding="utf-8")
    kept = log.read_bytes()
    result = run_cli(["play", "lantern-links", "--text", "--resume", str(log)], "pass\n")
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and "cannot be replayed" in result.stderr
    # the field check on resume or the referee's replay names the event
    assert "malformed route-started event" in result.stderr or "route-started.hands" in result.stderr
    assert log.read_bytes() == kept          # nothing rewritten
