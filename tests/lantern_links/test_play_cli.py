"""Lantern Links through the real command line: the answer notes score 8, a game
survives SIGKILL, and stdout carries only public sentences."""

from __future__ import annotations

import signal
from itertools import pairwise
from pathlib import Path

import pytest
from support import kill_while_playing, log_has, read_jsonl, run_cli

NATO = dict(zip("ABCDEFGHIJ", ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
                               "hotel", "india", "juliet"]))
NOTES = Path(__file__).parent / "golden" / "answer_notes.txt"


def answer_notes() -> dict[int, str]:
    notes = {}
    lines = NOTES.read_text(encoding="utf-8").splitlines()
    for head, body in pairwise(lines):
        if head.startswith("LL-"):
            route = body.split("left to right: ")[1].split(".")[0]
            notes[int(head[3:])] = "".join(route.split(" → "))
    return notes


def lines_for(route: dict, solution: str, players: int, words: bool) -> list[str]:
    """What the table says to lay ``solution``: each tile by its owner, the others pass.

    The rules: seats act in turn clockwise from the route's first player; only the
    current player places, from their own hand."""
    hands = {int(s): list(h) for s, h in route["hands"].items()}
    turn, out = route["first"], []
    for i, tile in enumerate(solution):
        while tile not in hands[turn]:
            out.append("pass")
            turn = turn % players + 1
        a, b = route["tiles"][tile]
        out.append(f"{b.lower()} {a.lower()}" if words and i % 2 else f"play {NATO[tile]}")
        hands[turn].remove(tile)
        turn = turn % players + 1
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("cards", "players"), [((1, 2, 3), 3), ((4, 5, 6), 2), ((7, 8, 9), 4),
                                                ((10, 11, 12), 6)])
def test_answer_notes_score_eight_through_the_cli(tmp_path: Path, cards: tuple[int, ...],
                                                  players: int) -> None:
    notes = answer_notes()
    log = tmp_path / "game.jsonl"
    routes = ",".join(map(str, cards))
    first = run_cli(["play", "lantern-links", "--text", "--routes", routes, "--players", str(players),
                     "--seed", str(sum(cards)), "--log", str(log)], "")
    assert first.returncode == 0, first.stderr
    out = first.stdout
    for index, card in enumerate(cards):
        route = [e for e in read_jsonl(log) if e["type"] == "route-started"][-1]
        assert (route["route"], route["index"], route["first"]) == (card, index + 1, index % players + 1)
        said = lines_for(route, notes[card], players, words=index == 1)
        more = run_cli(["play", "lantern-links", "--text", "--resume", str(log)], "\n".join(said) + "\n")
        assert more.returncode == 0, more.stderr
        out += more.stdout
    events = read_jsonl(log)
    ended = [e for e in events if e["type"] == "route-ended"]
    assert [(e["route"], e["placed"], e["end_bonus"], e["checkpoint_bonus"], e["points"], e["reason"])
            for e in ended] == [(c, 6, 1, 1, 8, "complete") for c in cards]
    assert events[-1] == {**events[-1], "type": "game-ended", "points": 24}
    assert out.splitlines()[-1] == "The game is over: 24 of 24 points."
    assert [e for e in events if e["type"] == "command-rejected"] == []
    # the answer notes stay unread when a route scores 8
    assert "One solution" not in out




def mid_route_script(log_dir: Path) -> tuple[list[str], list[str]]:
    """A route-1 script (three players, card 7) with a mismatch, a rewind and passes,
    split where the game will be killed; the rest plays card 7 out and ends the game."""
    probe = log_dir / "probe.jsonl"
    run_cli(["play", "lantern-links", "--text", "--routes", "7,1,12", "--seed", "9", "--log", str(probe)], "")
    route = read_jsonl(probe)[1]
    hands = {int(s): h for s, h in route["hands"].items()}
    owner = {t: s for s, h in hands.items() for t in h}
    lines: list[str] = []
    turn = 1

    def lay(tile: str) -> None:
        nonlocal turn
        while owner[tile] != turn:
            lines.append("pass")
            turn = turn % 3 + 1
        lines.append(f"play {NATO[tile]}")
        turn = turn % 3 + 1

    lay("G")
    lay("E")
    lay("B")                                # wrong checkpoint: SUN
    lines.append("rewind")                  # the next seat undoes tile three
    turn = turn % 3 + 1
    lay("F")
    cut = len(lines)
    lay("I")
    lay("D")
    lay("B")
    lines += ["finish", "finish"]            # routes 2 and 3 end by agreement
    return lines[:cut], lines[cut:]


@pytest.mark.slow
def test_sigkill_mid_route_then_resume_loses_nothing(tmp_path: Path) -> None:
    head, tail = mid_route_script(tmp_path)
    args = ["play", "lantern-links", "--text", "--routes", "7,1,12", "--seed", "9"]
    straight = tmp_path / "straight.jsonl"
    whole = run_cli([*args, "--log", str(straight)], "\n".join(head + tail) + "\n")
    assert whole.returncode == 0, whole.stderr
    assert whole.stdout.splitlines()[-1] == "The game is over: 8 of 24 points."

    log = tmp_path / "killed.jsonl"
    status = kill_while_playing(       # G, E, B, then F after the rewind of B: mid-route
        [*args, "--log", str(log)], head,
        log_has(log, lambda events: sum(e["type"] == "tile-placed" for e in events) >= 4))
    assert status == -signal.SIGKILL
    before = read_jsonl(log)
    assert [e["tile"] for e in before if e["type"] == "tile-placed"][-1] == "F"

    resumed = run_cli(["play", "lantern-links", "--text", "--resume", str(log)], "\n".join(tail) + "\n")
    assert resumed.returncode == 0, resumed.stderr
    lines = resumed.stdout.splitlines()
    assert lines[0] == "Resuming the game."
    assert lines[1:4] == ["Player 3 places moon leaf in space 3. The open word is leaf.",
                          "Checkpoint recorded: leaf, as the card asks.",
                          "Player 1's turn."]   # the last command before the kill, said again
    assert lines[4] == "Route 1 of 3, 3 tiles placed, open word leaf: Player 1's turn."
    assert "The chain: key moon, moon moon, moon leaf." in lines
    assert "Checkpoint recorded: leaf. The rewind is spent." in lines
    assert lines[-1] == "The game is over: 8 of 24 points."
    after = read_jsonl(log)
    assert after[:len(before)] == before                   # nothing rewritten
    assert after == read_jsonl(straight)                   # the same game as without the crash


@pytest.mark.slow
def test_stdout_is_public_only_and_the_end_reads_no_further(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    result = run_cli(["play", "lantern-links", "--text", "--routes", "1,7,12", "--players", "2",
                      "--log", str(log)], "finish\nfinish\nfinish\nplay charlie\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "The game is over: 0 of 24 points."
    assert sum(line.startswith("One solution") for line in lines) == 3    # read after scoring
    events = read_jsonl(log)
    assert all(e["audience"] == "public" for e in events)
    assert [e["type"] for e in events].count("command-rejected") == 0     # "play charlie" never read


@pytest.mark.slow
def test_a_half_written_last_line_is_dropped_with_a_note(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    args = ["play", "lantern-links", "--text", "--routes", "1,7,12", "--players", "2"]
    first = run_cli([*args, "--log", str(log)], "pass\n")
    assert first.returncode == 0
    with open(log, "ab") as f:                       # a power cut mid-append
        f.write(b'{"type":"passed","seq":4,"audi')
    resumed = run_cli(["play", "lantern-links", "--text", "--resume", str(log)], "status\n")
    assert resumed.returncode == 0
    assert "dropped a half-written last line" in resumed.stderr
    assert "Passes in a row: 1." in resumed.stdout
    events = read_jsonl(log)
    assert [e["type"] for e in events] == ["game-started", "route-started", "passed"]
