"""Games the fault-injection suite plays, straight and under faults.

Each ``Game`` is a command line and a script of typed lines in which every line
is one command (no queries), so the log holds exactly one batch per line after
the opening batch: how many lines a crashed run took is read off its log, and
the resumed run is fed the rest.  ``straight(...)`` plays a game without faults;
every faulty run must end with the same log (byte for byte: the chain digests
included), the same private messages and the same table records, or be refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from support import ROOT, deadline

from facilitator.games.clover.board import SLOTS, ZONES, board_from_json, turns_between
from facilitator.session import Session
from facilitator.table_data import TableData


@dataclass(frozen=True)
class Game:
    name: str
    args: tuple[str, ...]          # after ``play GAME --text`` (seed, players, options)
    lines: tuple[str, ...]
    private: bool = True           # run with --private
    records: tuple[str, ...] = ()  # the data directory's documents this game writes


COMPASS_HUMAN = Game("compass-code", (
    "--seed", "5", "--names", "Ann,Ben,Cat,Dan", "--keeper", "human", "--routes", "ESNW,NESW,WSEN"), (
    "send north east south west", "two anchors, one clockwise step", "one anchor, two clockwise steps",
    "send north east west south", "three anchors one clockwise step", "zero anchors four clockwise steps",
    "send east south north west", "four anchors",
    "send north east south west", "four anchors",
    "send north east south west", "no anchors, two clockwise steps", "send east south west north",
    "two anchors, no clockwise steps", "send south west north east", "zero anchors two clockwise steps",
    "is N in position 4", "send south north west east", "zero anchors one clockwise step",
))
COMPASS_MACHINE = Game("compass-code", ("--seed", "11", "--routes", "ESNW,NESW,WSEN"), (
    "send north east south west", "is W in position 4", "send east west south north",
    "send east south north west", "send south west north east", "send west north east south",
    "send north east south west", "send west south east north",
), private=False)
NATO = dict(zip("ABCDEFGHIJ", ["alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
                                "india", "juliett"]))


def lantern_game(tmp: Path) -> Game:
    """Route 1 on card 7 with a mismatch, a rewind and passes; routes 2 and 3 end by agreement."""
    from facilitator.games import find_game

    options = find_game("lantern-links").parse_options({"routes": "7,1,12"})
    session, opening = Session.start("lantern-links", seed=9, options=options,
                                     table=TableData(tmp / "lantern-plan"))
    route = next(line for line in opening.logged if line["type"] == "route-started")
    hands = {int(s): list(h) for s, h in route["hands"].items()}
    session.log.close()
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

    for tile in "GEB":
        lay(tile)
    lines.append("rewind")
    turn = turn % 3 + 1
    for tile in "FIDB":
        lay(tile)
    lines += ["finish", "finish"]
    return Game("lantern-links", ("--seed", "9", "--routes", "7,1,12"), tuple(lines), private=False)


TWO_WINDOWS = Game("two-windows", ("--seed", "4", "--players", "5"), (
    "a sends form round", "b sends surface striped", "more", "final alder",
    "a sends edge notched", "b sends size large", "final elm",
    "a sends form round", "b sends surface striped", "final gorse",
    "a sends size small", "b sends edge smooth", "final birch",
    "a sends edge smooth", "b sends surface striped", "final birch",
    "a sends form square", "b sends edge notched", "more", "final fern",
), records=("two-windows.json",))


def clover_game(tmp: Path, seed: int = 3, players: int = 3) -> Game:
    """A whole Clover game worked out in-process: clues, then every board solved at once."""
    session, reply = Session.start("clover", players=players, seed=seed, options={"extra": 1},
                                   table=TableData(tmp / "clover-plan"))
    boards = {p["audience"]: board_from_json(p["board"]) for p in reply.private if p["type"] == "board-dealt"}
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        got = session.handle(line)
        for p in got.private:
            if p["type"] == "board-dealt":
                boards[p["audience"]] = board_from_json(p["board"])

    for seat in range(1, players + 1):
        for zone in ZONES:
            say(f"clue {seat} {zone.value} {zone.value}x{seat}")
    while not session.over:
        state = session.state
        board = boards[state.spectator]
        for slot in SLOTS:
            layout = session.state.layout
            for k in range(1, len(layout.cards) + 1):
                turns = turns_between(layout.words(k), board[slot])
                if turns is not None:
                    if layout.card_in(slot) != k:
                        say(f"place {k} {slot.value}")
                    for _ in range(turns):
                        say(f"turn {k}")
                    break
        say("commit")
    session.log.close()
    return Game("clover", ("--seed", str(seed), "--players", str(players), "--extra", "1"), tuple(lines),
                records=("clover.json",))


@dataclass
class Table:
    """Where one run of a game keeps its files."""

    root: Path
    log: Path = field(init=False)
    private: Path = field(init=False)
    data: Path = field(init=False)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.log = self.root / "game.jsonl"
        self.private = self.root / "private.jsonl"
        self.data = self.root / "data"

    def outcome(self, game: Game) -> dict[str, object]:
        """What a finished run leaves: the log's bytes, the private messages, the records."""
        private = []
        if self.private.exists():
            for line in self.private.read_text(encoding="utf-8").splitlines():
                try:
                    private.append(json.loads(line))
                except ValueError:
                    continue     # a line torn by a crash: its message is delivered again
        records = {}
        for name in game.records:
            path = self.data / name
            records[name] = json.loads(path.read_text()) if path.exists() else None
        seqs = [p["seq"] for p in private]
        return {"log": self.log.read_bytes(), "private": sorted((p["seq"], p["text"]) for p in private),
                "private_unique": len(seqs) == len(set(seqs)), "records": records,
                "stale": sorted(p.name for p in self.data.glob(".*.tmp")) if self.data.exists() else []}


def start_args(game: Game, table: Table) -> list[str]:
    out = ["play", game.name, "--text", *game.args, "--log", str(table.log), "--data-dir", str(table.data)]
    return out + (["--private", str(table.private)] if game.private else [])


def resume_args(game: Game, table: Table) -> list[str]:
    out = ["play", game.name, "--text", "--resume", str(table.log), "--data-dir", str(table.data)]
    return out + (["--private", str(table.private)] if game.private else [])


def script(lines: tuple[str, ...] | list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def run(args: list[str], stdin: bytes = b"", wrapper: list[str] | None = None,
        env: dict[str, str] | None = None, timeout: float = 60,
        preexec: object = None) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess (optionally under ``wrapper``, a python -c prelude)."""
    command = [sys.executable, *(wrapper if wrapper is not None else ["-m", "facilitator"]), *args]
    proc = subprocess.run(command, check=False, input=stdin, capture_output=True, timeout=deadline(timeout), cwd=ROOT,
                          env={**os.environ, **(env or {})}, preexec_fn=preexec)  # type: ignore[arg-type]
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode("utf-8", "replace"),
                                       proc.stderr.decode("utf-8", "replace"))


def batches_done(log: Path) -> int:
    """How many script lines a log holds: its complete batches, less the opening one."""
    return max(batches_done_raw(log) - 1, 0)


def straight(game: Game, root: Path) -> Table:
    """The game played without faults."""
    table = Table(root)
    done = run(start_args(game, table), script(game.lines))
    assert done.returncode == 0, done.stderr
    assert batches_done(table.log) == len(game.lines), "every script line must log one batch"
    return table


def one_line(stderr: str) -> bool:
    """A refusal or a fault: exactly one line, the program's own, and no traceback."""
    lines = stderr.splitlines()
    return len(lines) == 1 and lines[0].startswith("facilitator: ") and "Traceback" not in stderr


def finish(game: Game, table: Table) -> subprocess.CompletedProcess[str]:
    """Resume a stopped run and feed it the lines its log does not hold yet."""
    if batches_done_raw(table.log) == 0:
        # the opening itself never reached the log whole: start again, as a player would
        return run(start_args(game, table), script(game.lines))
    rest = game.lines[batches_done(table.log):]
    return run(resume_args(game, table), script(rest))


def batches_done_raw(log: Path) -> int:
    """Complete batches in the log, the opening one included."""
    from facilitator.errors import LogError
    from facilitator.log import read_log

    try:
        return len(read_log(log).batches)
    except (LogError, FileNotFoundError):
        return 0


def batch_ranges(raw: bytes) -> list[tuple[int, int]]:
    """Byte ranges (start, end) of each command's batch in a log's bytes."""
    out, start, offset = [], 0, 0
    for line in raw.splitlines(keepends=True):
        obj = json.loads(line)
        if obj["seq"] == obj["batch"]:
            start = offset
        offset += len(line)
        if obj["seq"] == obj["batch"] + obj["batch_size"] - 1:
            out.append((start, offset))
    return out
