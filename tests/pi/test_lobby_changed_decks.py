"""A game the lobby cannot resume because its decks changed is not forgotten: its log
is sound, so the lobby says why, keeps offering it (in the same run and after a
restart), and resumes it once the decks are put back.  Only a log that cannot be
read is set aside, and "new game" sets it aside as it does any offer."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from support import ROOT

from facilitator.lobby import GameStore, Lobby
from facilitator.lobby_run import run_text

OFFER = "There is an unfinished compass code game. Say resume or new game."
CHANGED = ("The compass code decks have changed since that game started, so it cannot go on now; "
           "it is kept for when they are put back. Say new game to set it aside, or choose a game.")
STATUS_LEAD = "Leg 1 of 3, guess 2 of 4: Player 2 is captain."


def text_lobby(data: Path, lines: list[str]) -> list[str]:
    out = io.StringIO()
    run_text(Lobby(GameStore(data), seed=1), io.BytesIO("\n".join(lines).encode() + b"\n"), out)
    return out.getvalue().splitlines()


@pytest.fixture
def changed_decks(tmp_path: Path) -> Path:
    """A copy of the decks with Compass Code's routes edited (not yet in use)."""
    content = tmp_path / "content"
    shutil.copytree(ROOT / "content", content)
    routes = content / "compass-code" / "routes.toml"
    routes.write_text(routes.read_text() + "\n# edited after the game started\n")
    return content


def test_a_game_refused_for_changed_decks_is_offered_again_and_resumes_once_they_are_back(
        tmp_path: Path, changed_decks: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    first = text_lobby(data, ["play compass code", "send north east south west", "status"])
    assert STATUS_LEAD in first
    log = next((data / "games").glob("*.jsonl"))
    before = log.read_bytes()

    monkeypatch.setenv("FACILITATOR_CONTENT_DIR", str(changed_decks))
    # refused with the reason; asked again in the same run, refused again; nothing written
    assert text_lobby(data, ["resume", "resume"]) == [OFFER, CHANGED, CHANGED]
    # after a restart it is still offered
    assert text_lobby(data, ["status"])[0] == OFFER
    assert log.read_bytes() == before

    monkeypatch.delenv("FACILITATOR_CONTENT_DIR")   # the decks are put back
    again = text_lobby(data, ["resume", "status"])
    assert again[:2] == [OFFER, "Resuming the game."]
    assert again.count(STATUS_LEAD) == 2


def test_new_game_after_the_refusal_sets_the_game_aside(
        tmp_path: Path, changed_decks: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    text_lobby(data, ["play compass code", "send north east south west"])
    monkeypatch.setenv("FACILITATOR_CONTENT_DIR", str(changed_decks))
    lines = text_lobby(data, ["resume", "new game"])
    assert lines == [OFFER, CHANGED, "The unfinished compass code game is set aside. Which game?"]
    monkeypatch.delenv("FACILITATOR_CONTENT_DIR")
    assert text_lobby(data, [])[0].startswith("Which game?")


def test_choosing_a_game_as_the_refusal_advises_keeps_the_game_for_when_the_decks_are_back(
        tmp_path: Path, changed_decks: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"... or choose a game": the table does, and the refused game is not set aside."""
    data = tmp_path / "data"
    text_lobby(data, ["play compass code", "send north east south west"])
    monkeypatch.setenv("FACILITATOR_CONTENT_DIR", str(changed_decks))
    lines = text_lobby(data, ["resume", "play lantern links", "quit"])
    assert lines[:3] == [OFFER, CHANGED, "Starting lantern links with 3 players."]
    monkeypatch.delenv("FACILITATOR_CONTENT_DIR")   # the decks are put back
    # the lantern game is the newest; set aside, the compass game is offered again, in the
    # same run ("resume" looks again) and after a restart
    again = text_lobby(data, ["new game", "resume", "resume", "status"])
    assert again[:4] == ["There is an unfinished lantern links game. Say resume or new game.",
                         "The unfinished lantern links game is set aside. Which game?", OFFER,
                         "Resuming the game."], again
    assert again.count(STATUS_LEAD) == 2
    assert text_lobby(data, [])[0] == OFFER
