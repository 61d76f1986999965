"""What a first evening hears, through the real command line (issue 36): quitting a
game to the lobby is no goodbye; "new game" in a game says to quit first; Clover says
where the boards really are; no "Captain Player 1"; Two Windows' help names no fact
that may not be on the report."""

from __future__ import annotations

from pathlib import Path

from support import read_jsonl, run_cli

from facilitator.session import Session

FACTS = ("form round", "form square", "size small", "size large", "surface plain", "surface striped",
         "edge smooth", "edge notched")


def test_quitting_a_game_in_the_lobby_goes_back_to_it_and_says_goodbye_only_when_leaving(tmp_path: Path) -> None:
    done = run_cli(["serve", "--text", "--data-dir", str(tmp_path / "data")],
                   "let's play compass code with four players\nquit\nquit\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-3:] == [
        "Back to the lobby.", "The compass code game is kept. Say resume to go on with it, or choose a game.",
        "Goodbye."]
    alone = run_cli(["play", "compass-code", "--text", "--log", str(tmp_path / "g.jsonl")], "quit\n")
    assert alone.stdout.splitlines()[-1] == "Goodbye."          # play itself ends: that is goodbye


def test_new_game_during_a_game_says_to_quit_first(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    done = run_cli(["play", "compass-code", "--text", "--log", str(log)], "new game\nresume\nnew gam\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["To start a new game, say quit first; this game is kept.",
                                            "This game is already going on.",
                                            "To start a new game, say quit first; this game is kept."]
    assert [e["type"] for e in read_jsonl(log)][-3:] == ["command-rejected"] * 3   # and cost nothing


def test_clover_says_where_the_boards_are(tmp_path: Path) -> None:
    private = tmp_path / "boards.jsonl"
    by_file = run_cli(["play", "clover", "--text", "--seed", "3", "--private", str(private),
                       "--log", str(tmp_path / "a.jsonl")], "read my board 2\nclue 2 top\nhelp\n")
    assert by_file.returncode == 0, by_file.stderr
    said = by_file.stdout
    assert "screen" not in said
    assert said.splitlines()[0].startswith("Write one clue per zone: your boards are in the private file;")
    assert "Player 2, your board is in the private file." in said
    assert "Type your four clues" in said
    assert any(p["type"] == "board-dealt" for p in read_jsonl(private))           # they are there

    shown, opening = Session.start("clover", players=4, seed=3, private_path=private, screens=True,
                                   log_path=tmp_path / "b.jsonl")
    try:
        assert opening.public[0].startswith("Write one clue per zone: your boards are on your screens;")
        assert shown.handle("read my board 2").public == ["Player 2, your board is on your screen."]
    finally:
        shown.log.close()


def test_no_captain_player_1(tmp_path: Path) -> None:
    done = run_cli(["play", "compass-code", "--text", "--log", str(tmp_path / "g.jsonl")], "help\n")
    assert "Captain Player" not in done.stdout
    assert done.stdout.splitlines()[1] == ("Player 1, as captain, say send and four directions, "
                                           "or is west in position three.")


def test_two_windows_names_no_fact_the_report_may_lack(tmp_path: Path) -> None:
    for packets in ("1,8,13,4,17,10", "7,2,3,5,6,9"):
        done = run_cli(["play", "two-windows", "--text", "--packets", packets, "--private",
                        str(tmp_path / f"{packets}.jsonl"), "--log", str(tmp_path / f"{packets}-g.jsonl")],
                       "help\nreport b\nreport a\n")
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        said = lines[lines.index("Informants, lock a first fact: report a or report b, then a fact from your "
                                 "report."):]
        assert "Report B's informant says report b, then one of the two facts on the report." in said
        assert not [line for line in said for fact in FACTS if fact in line.lower()], said
