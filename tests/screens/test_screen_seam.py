"""The seam between screens and games (issue 15): the screens render what a game gives
them and know no game by name, so a fifth game needs no change in facilitator/screens.

A tiny fake game (a bell, a secret number for seat 1) is served by the real web app:
its private view reaches only its seat, and its grammar's valueless command ("ring")
gets a button that works, with no screen module and no change to the screens."""

from __future__ import annotations

import random
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from facilitator.command import Command
from facilitator.events import Audience, Event
from facilitator.games import Referee, available_games
from facilitator.grammar import grammars_dir, load_grammar
from facilitator.log import EventLog
from facilitator.screens import ScreenServer, ScreenSettings
from facilitator.screens.seats import cookie_name
from facilitator.session import Reply, Session

SCREENS = Path(__file__).resolve().parents[2] / "facilitator" / "screens"
SCREEN_FILES = [p for p in SCREENS.rglob("*") if p.suffix in {".py", ".html", ".js", ".css", ".toml"}]


def test_the_screens_package_names_no_game_and_imports_none():
    assert SCREEN_FILES, "the screens' files were found"
    names = {g for game in available_games() for g in (game, game.replace("-", "_"), game.replace("-", " "))}
    names |= {game.split("-")[0] for game in available_games() if len(game.split("-")[0]) > 3}
    assert "clover" in names and "compass" in names
    for path in SCREEN_FILES:
        text = path.read_text(encoding="utf-8").lower()
        for name in names:
            assert not re.search(rf"\b{re.escape(name)}\b", text), f"{path.name} names {name!r}"
        imported = re.findall(r"(?:from|import)\s+(?:facilitator|\.\.)\.?games\.(\w+)", text)
        assert set(imported) <= {"screen"}, f"{path.name} imports game modules {imported}"


BELL_GRAMMAR = '''
[[commands]]
intent = "ring"
output = "ring"
say = ["ring [the bell]"]

[[commands]]
intent = "guess"
output = "guess {n}"
type = ["guess {number:n}"]

[responses]
bell-rang = "The bell rings, {count} times so far."
bell-secret = "Your secret is {secret}."
'''


@dataclass(frozen=True)
class Bells:
    players: int
    names: tuple[str, ...]
    secret: int = 0
    rung: int = 0


class BellGame(Referee[Bells]):
    """A fifth game the screens have never heard of."""

    name = "bells"
    queries = frozenset({"status", "help"})

    def initial(self, started: Event) -> Bells:
        return Bells(started["players"], tuple(started["names"]))

    def setup(self, state: Bells, rng: random.Random) -> list[Event]:
        return [Event("secret-dealt", {"secret": 7}, 1)]

    def legal_intents(self, state: Bells) -> set[str]:
        return {"ring", "guess", "status", "help"}

    def decide(self, state: Bells, command: Command, rng: random.Random) -> list[Event]:
        return [Event("bell-rang", {"count": state.rung + 1})]

    def evolve(self, state: Bells, event: Event) -> Bells:
        if event.type == "secret-dealt":
            return replace(state, secret=int(event["secret"]))
        return replace(state, rung=int(event["count"]))

    def is_over(self, state: Bells) -> bool:
        return False

    def announce(self, state: Bells, event: Event, phrases: Any) -> list[str]:
        return [phrases.say("bell-rang", count=event["count"])]

    def private_text(self, state: Bells, event: Event, phrases: Any) -> str | None:
        return phrases.say("bell-secret", secret=event["secret"])

    def private_view(self, state: Bells, audience: Audience) -> dict[str, Any] | None:
        return {"secret number": state.secret} if audience == 1 else None

    def query(self, state: Bells, command: Command, phrases: Any) -> list[str]:
        return [f"{state.rung} rings"]


@pytest.fixture
def bells(tmp_path: Path):
    grammars = tmp_path / "grammars"
    grammars.mkdir()
    shutil.copy(grammars_dir() / "common.toml", grammars / "common.toml")
    (grammars / "bells.toml").write_text(BELL_GRAMMAR, encoding="utf-8")
    referee = BellGame()
    started = Event("game-started", {"game": "bells", "seed": 1, "players": 2,
                                     "names": ["Ada", "Bo"], "options": {}})
    session = Session(referee, load_grammar("bells", grammars), EventLog(tmp_path / "bells.jsonl"),
                      referee.initial(started), 1)
    opening = Reply(accepted=True)
    session._commit(referee.setup(session.state, random.Random(1)), opening, first=started)
    server = ScreenServer(session, opening, ScreenSettings(port=0)).start()
    yield server
    server.stop()
    session.log.close()


def seat(server: ScreenServer, number: int) -> httpx.Client:
    c = httpx.Client(base_url=server.base_url, timeout=10)
    c.get(f"/join/{server.seats.seats[number].token}")
    assert c.cookies.get(cookie_name(number))
    return c


def test_a_fifth_game_gets_screens_without_changing_them(bells):
    one, two, table = seat(bells, 1), seat(bells, 2), httpx.Client(base_url=bells.base_url, timeout=10)
    try:
        check_fifth_game(bells, one, two, table)
    finally:
        for c in (one, two, table):
            c.close()


def check_fifth_game(bells, one, two, table):
    page_one, page_two = one.get("/seat/1").text, two.get("/seat/2").text
    assert "secret number" in page_one and "7" in page_one and "Your secret is 7." in page_one
    assert "secret number" not in page_two and "Your secret is" not in page_two
    # the grammar's valueless command is a button on every seat, the valued one is not
    assert 'id="do-ring"' in page_one and 'id="do-ring"' in page_two and "do-guess" not in page_two
    reply = two.post("/seat/2/command", data={"control": "ring"}, headers={"Accept": "application/json"}).json()
    assert reply["accepted"] and reply["public"] == ["The bell rings, 1 times so far."]
    assert bells.hub.session.state.rung == 1
    assert "The bell rings, 1 times so far." in one.get("/seat/1").text
    assert "The bell rings" in table.get(bells.table_url, follow_redirects=True).text
    assert "secret number" not in table.get("/table").text
