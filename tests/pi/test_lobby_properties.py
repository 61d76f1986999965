"""Properties of the lobby over any sequence of lines, across restarts."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from facilitator.games import find_game
from facilitator.lobby import GameStore, Lobby
from facilitator.lobby_run import run_text
from facilitator.log import read_log

LINES = ["let's play compass code with five players", "play lantern links", "play clover with three players",
         "play two windows with nine players", "resume", "new game", "quit", "status", "help", "repeat",
         "send north east south west", "send east south north west", "pass", "hands", "yes", "no",
         "what is the weather", ""]
#: a session is what the table says between two starts of the assistant
sessions = st.lists(st.lists(st.sampled_from(LINES), max_size=8), min_size=1, max_size=4)


@settings(max_examples=30, deadline=None)
@given(sessions)
def test_restarts_never_lose_or_rewrite_a_log_and_offer_only_unfinished_games(script: list[list[str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        seen: dict[Path, bytes] = {}
        for lines in script:
            out = io.StringIO()
            lobby = Lobby(GameStore(data), seed=1)
            offer = lobby.offer
            if offer is not None:
                events = read_log(offer.log).events
                referee = find_game(offer.game)
                assert not referee.is_over(referee.replay(events)), "a finished game is never offered"
            assert run_text(lobby, io.BytesIO("\n".join(lines).encode()), out) == 0
            assert out.getvalue().strip(), "the lobby always speaks first"
            for log in (data / "games").glob("*.jsonl") if (data / "games").exists() else []:
                now = log.read_bytes()
                before = seen.get(log, b"")
                assert now.startswith(before), f"{log.name} was rewritten"
                seen[log] = now
