"""The lobby: choosing, resuming and setting aside games; its logs in the data directory."""

from __future__ import annotations

import io
import json
from pathlib import Path

from loop.loop_fakes import CaptionLog, RecordingSpeaker, ScriptedRecognizer, said

from facilitator.games import find_game
from facilitator.lobby import GameStore, Lobby
from facilitator.lobby_run import run_text
from facilitator.session import Session
from facilitator.settings import Settings, parse
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopState

WELCOME = "Which game? Say, for example: let's play compass code with four players."
OFFER = "There is an unfinished compass code game. Say resume or new game."


def text_lobby(data: Path, lines: list[str], **kw: object) -> tuple[int, list[str]]:
    out = io.StringIO()
    lobby = Lobby(GameStore(data), seed=kw.pop("seed", 1), **kw)  # type: ignore[arg-type]
    status = run_text(lobby, io.BytesIO("\n".join(lines).encode() + b"\n"), out)
    return status, out.getvalue().splitlines()


def only_log(data: Path) -> Path:
    logs = sorted((data / "games").glob("*.jsonl"))
    assert len(logs) == 1
    return logs[0]


def test_an_empty_table_asks_which_game(tmp_path: Path) -> None:
    assert text_lobby(tmp_path, [])[1] == [WELCOME]


def test_lets_play_with_five_players_starts_that_game_with_its_log_in_the_data_directory(tmp_path: Path) -> None:
    status, lines = text_lobby(tmp_path, ["let's play compass code with five players"])
    assert status == 0
    assert lines[1] == "Starting compass code with 5 players."
    assert lines[2].startswith("Leg 1 of 3")
    started = json.loads(only_log(tmp_path).read_text().splitlines()[0])
    assert (started["type"], started["game"], started["players"]) == ("game-started", "compass-code", 5)


def test_a_player_count_the_game_does_not_take_starts_nothing(tmp_path: Path) -> None:
    _, lines = text_lobby(tmp_path, ["let's play two windows with eight players"])
    assert lines[1] == "Two windows takes 3 to 6 players."
    assert not (tmp_path / "games").exists()


def test_the_settings_player_count_and_options_are_used_when_none_is_said(tmp_path: Path) -> None:
    settings = parse("[games.compass-code]\nplayers = 6\nmode = 'tight'\n", Path("config.toml"))
    text_lobby(tmp_path, ["play compass code"], settings=settings)
    started = json.loads(only_log(tmp_path).read_text().splitlines()[0])
    assert started["players"] == 6 and started["options"]["mode"] == "tight"


def test_a_restart_offers_the_interrupted_game_and_resume_continues_it(tmp_path: Path) -> None:
    _, first = text_lobby(tmp_path, ["play compass code", "send north east south west", "status"])
    status_lead = "Leg 1 of 3, guess 2 of 4: Player 2 is captain."     # status's first sentence
    assert status_lead in first
    _, second = text_lobby(tmp_path, ["resume", "status"])
    assert second[:2] == [OFFER, "Resuming the game."]
    assert second.count(status_lead) == 2       # resuming says where the game stands; so does status


def test_new_game_sets_the_interrupted_game_aside_for_good(tmp_path: Path) -> None:
    text_lobby(tmp_path, ["play compass code"])
    log = only_log(tmp_path)
    _, lines = text_lobby(tmp_path, ["new game"])
    assert lines == [OFFER, "The unfinished compass code game is set aside. Which game?"]
    assert text_lobby(tmp_path, ["resume"])[1] == [WELCOME, "There is no unfinished game. Which game?"]
    assert log.exists()   # set aside, not deleted


def test_quit_in_a_game_returns_to_the_lobby_and_keeps_the_game(tmp_path: Path) -> None:
    _, lines = text_lobby(tmp_path, ["play compass code", "status", "quit", "resume", "quit", "quit"])
    kept = "The compass code game is kept. Say resume to go on with it, or choose a game."
    status_lead = "Leg 1 of 3, guess 1 of 4: Player 1 is captain."     # status's first sentence
    # status, quit (kept), resume (where it stands), quit (kept), quit the lobby
    left = "Back to the lobby."                     # quitting the game is no goodbye
    marks = [line for line in lines if line in {"Goodbye.", left, kept, "Resuming the game.", status_lead}]
    assert marks == [status_lead, left, kept, "Resuming the game.", status_lead,
                     left, kept, "Goodbye."]
    assert lines[-1] == "Goodbye."


def test_a_finished_game_returns_to_the_lobby_and_is_not_offered_again(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    lobby = Lobby(store, seed=3)
    lobby.handle("let's play compass code with three players")
    session = lobby.take()
    while not session.over:   # the table guesses the hidden route at once, every leg
        session.handle(f"send {session.state.route}")
    assert lobby.back(session).public == ["Back in the lobby. Which game next?"]
    assert Lobby(store).opening().public == [WELCOME]


def test_choosing_another_game_over_the_offer_sets_the_offer_aside(tmp_path: Path) -> None:
    text_lobby(tmp_path, ["play compass code"])
    _, lines = text_lobby(tmp_path, ["play lantern links"])
    assert lines[0] == OFFER and lines[1] == "Starting lantern links with 3 players."
    _, again = text_lobby(tmp_path, [])
    assert again == ["There is an unfinished lantern links game. Say resume or new game."]


def test_a_corrupt_log_is_set_aside_with_a_note_not_a_crash(tmp_path: Path) -> None:
    text_lobby(tmp_path, ["play compass code"])
    log = only_log(tmp_path)
    log.write_text('{"type": "game-started", "seq": 1}\nnot json\n{"seq": 3}\n')
    notes: list[str] = []
    lobby = Lobby(GameStore(tmp_path), warn=notes.append)
    assert lobby.opening().public == [WELCOME]
    assert notes and log.name in notes[0]


def test_a_hidden_information_game_by_voice_needs_a_private_path(tmp_path: Path) -> None:
    lobby = Lobby(GameStore(tmp_path))
    reply = lobby.handle("play two windows")
    assert reply.public == [("Two windows needs private screens: start the assistant with the phones "
                             "(--screens) or a private file (--private), or choose another game.")]
    assert not lobby.over
    with_private = Lobby(GameStore(tmp_path), private_path=tmp_path / "p.jsonl")
    with_private.handle("play two windows")
    assert with_private.over
    with_private.take().log.close()


def test_help_status_repeat_and_what_belongs_to_a_game(tmp_path: Path) -> None:
    _, lines = text_lobby(tmp_path, ["help", "repeat", "where are we", "read the rules", "hands", "stop listening"])
    assert lines[1].startswith("Say let's play, a game and the number of players")
    assert lines[2] == lines[1]
    assert lines[3] == WELCOME
    assert lines[4] == "Choose a game first; each game explains its own rules."
    assert lines[5] == "Say again?"
    assert lines[6] == "That is not possible now."


def voice_lobby(tmp_path: Path, *segments: tuple[str, float]) -> tuple[Lobby, ListenLoop, RecordingSpeaker]:
    lobby = Lobby(GameStore(tmp_path), Settings(), seed=2)
    voice = VoiceSettings()
    speaker = RecordingSpeaker(voice, seconds=1.0)
    loop = ListenLoop(lobby, ScriptedRecognizer(), speaker, voice, CaptionLog())  # type: ignore[arg-type]
    loop.announce(lobby.opening().public)
    loop.run([said(text, at) for text, at in segments])
    return lobby, loop, speaker


def test_by_voice_a_game_is_chosen_without_confirmation(tmp_path: Path) -> None:
    lobby, loop, speaker = voice_lobby(tmp_path, ("let's play compass code with five players", 3.0))
    assert loop.state is LoopState.DONE and lobby.chosen is not None
    assert speaker.spoken[:2] == [WELCOME, "Starting compass code with 5 players."]
    session = lobby.take()
    assert session.state.players == 5
    session.log.close()


def test_by_voice_quit_is_confirmed_and_no_cancels_it(tmp_path: Path) -> None:
    lobby, loop, speaker = voice_lobby(tmp_path, ("quit", 3.0), ("no", 6.0), ("quit", 9.0), ("yes", 12.0))
    assert speaker.spoken == [WELCOME, "Quit. Is that right?", "Cancelled.", "Quit. Is that right?", "Goodbye."]
    assert lobby.closed and loop.state is LoopState.DONE


def test_by_voice_new_game_over_an_offer_is_confirmed(tmp_path: Path) -> None:
    text_lobby(tmp_path, ["play compass code"])
    lobby, _, speaker = voice_lobby(tmp_path, ("new game", 4.0), ("yes", 7.0))
    assert speaker.spoken == [OFFER, "New game. Is that right?",
                              "The unfinished compass code game is set aside. Which game?"]
    assert lobby.offer is None


def test_by_voice_resume_continues_the_game(tmp_path: Path) -> None:
    text_lobby(tmp_path, ["play compass code", "send north east south west"])
    lobby, _, speaker = voice_lobby(tmp_path, ("resume", 4.0))
    assert speaker.spoken[1] == "Resuming the game."
    session = lobby.take()
    assert session.referee is find_game("compass-code") and len(session.state.scored) == 1
    assert isinstance(session, Session)
    session.log.close()
