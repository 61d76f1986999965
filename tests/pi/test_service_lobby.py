"""In the table service a guest cannot stop it (issue 15): "quit" in the lobby stops
nothing unless the owner's settings say so; "quit" in a game still returns to the
lobby."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from facilitator.command import Command
from facilitator.lobby import GameStore, Lobby
from facilitator.lobby_run import run, run_text
from facilitator.settings import Service, Settings


def text_lobby(data: Path, lines: list[str], **kw: object) -> tuple[int, list[str]]:
    out = io.StringIO()
    lobby = Lobby(GameStore(data), seed=1, **kw)  # type: ignore[arg-type]
    status = run_text(lobby, io.BytesIO("\n".join(lines).encode() + b"\n"), out)
    return status, out.getvalue().splitlines()


STAYS = "The table service keeps running. Choose a game; its owner stops the service."


def test_quit_in_the_services_lobby_stops_nothing(tmp_path: Path) -> None:
    status, said = text_lobby(tmp_path, ["quit", "play compass code with 3 players", "quit", "quit", "status"],
                              quit_stops=False)
    assert status == 0
    assert said[1] == STAYS
    assert "Starting compass code with 3 players." in said
    assert said.count(STAYS) == 2                        # once before the game, once after
    assert said[-1].startswith("There is an unfinished compass code game")   # still answering


def test_quit_needs_no_confirmation_when_it_would_do_nothing(tmp_path: Path) -> None:
    lobby = Lobby(GameStore(tmp_path), quit_stops=False)
    quit_command = Command("quit", "quit")
    assert not lobby.acceptable(quit_command)
    assert lobby.execute(quit_command).public == [STAYS] and not lobby.closed
    owner = Lobby(GameStore(tmp_path), quit_stops=True)
    assert owner.acceptable(quit_command) and owner.execute(quit_command).quit and owner.closed


def test_the_owner_may_let_quit_stop_the_service(tmp_path: Path) -> None:
    def serve(settings: Settings, service: bool) -> list[str]:
        args = argparse.Namespace(text=True, data_dir=tmp_path, seed=1, private=None, service=service,
                                  screens=False, lan=None, port=None, host=None)
        out = io.StringIO()
        assert run(args, settings, stdin=io.BytesIO(b"quit\nstatus\n"), out=out, err=io.StringIO()) == 0
        return out.getvalue().splitlines()

    assert serve(Settings(), service=True)[1:] == [STAYS, ("Which game? Say, for example: let's play compass "
                                                          "code with four players.")]
    assert serve(Settings(service=Service(quit_stops=True)), service=True)[1:] == ["Goodbye."]
    assert serve(Settings(), service=False)[1:] == ["Goodbye."]


def test_with_screens_the_lobby_starts_hidden_information_games_without_a_private_file(tmp_path: Path) -> None:
    needs = Lobby(GameStore(tmp_path / "a"))
    assert "needs private screens" in needs.handle("play two windows").public[0] and not needs.over
    screens = Lobby(GameStore(tmp_path / "b"), screens=True)
    assert screens.handle("play two windows").public[0] == "Starting two windows with 3 players."
    assert screens.over
    screens.take().log.close()


def test_screen_flags_without_screens_are_one_line_and_exit_2(tmp_path: Path) -> None:
    from support import run_cli

    done = run_cli(["serve", "--text", "--lan", "--data-dir", str(tmp_path)], stdin="status\n")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0
    assert "--lan is for the screens" in done.stderr and "Traceback" not in done.stderr
