"""What a second evening heard, through the real command line (issue 43): one "go on"
cue, never two in a row, and one for each kind of paged answer; one way to say a
score; the keeper's help, an invisible character, a returned Lantern tile and the
spectator's reminder in plain words; the lobby's answers to a player count out of
range and to a "yes" with nothing asked."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from support import run_cli

from facilitator.games.clover.referee import RESOLUTION
from facilitator.session import Session
from facilitator.speech.voices.refusal import refuse
from facilitator.table_data import TableData

CUE = "Say go on for more."
TRANSCRIPTS = Path(__file__).resolve().parent / "transcripts"


def test_reading_the_candidates_gives_one_cue(tmp_path: Path) -> None:
    done = run_cli(["play", "compass-code", "--text", "--seed", "3", "--log", str(tmp_path / "g.jsonl")],
                   "read the candidates\ngo on\n")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    first = "First 4: north east south west, north east west south, north south east west and north south west east."
    assert lines[1:3] == ["24 candidates. Say go on to hear them, four at a time.", first]
    assert CUE not in lines


def test_each_kind_of_paged_answer_gives_its_cue_once(tmp_path: Path) -> None:
    done = run_cli(["play", "two-windows", "--text", "--private", str(tmp_path / "p.jsonl"),
                    "--log", str(tmp_path / "g.jsonl")],
                   "read the rules\nread the catalogue\ngo on\nread the catalogue\n")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    catalogue = "The catalogue has 8 entries: Alder, Birch, Cedar, Dahlia, Elm, Fern, Gorse and Hazel."
    first = lines.index(catalogue)
    assert lines[first - 1] == CUE and lines[first + 1] == CUE        # the rules' cue, then the catalogue's
    assert lines[first + 2].startswith("Alder: ")
    assert lines[-1] == catalogue                                      # told once is enough


def test_every_game_says_its_score_one_way() -> None:
    """The games' last lines (the transcripts' golden output, which test_transcripts
    checks against real play) say "N of M points"."""
    form = re.compile(r"(The game is over|Game over): \d+ of \d+ points\.")
    for game in ("clover", "two-windows", "lantern-links"):
        said = (TRANSCRIPTS / f"{game}.txt").read_text(encoding="utf-8").splitlines()
        over = [line for line in said if "over:" in line and "points" in line]
        assert over and all(form.fullmatch(line) for line in over), (game, over)


def test_the_keepers_help_names_the_keeper_as_a_person(tmp_path: Path) -> None:
    done = run_cli(["play", "compass-code", "--text", "--keeper", "human", "--private", str(tmp_path / "p.jsonl"),
                    "--log", str(tmp_path / "g.jsonl")], "send north east south west\nhelp\n")
    assert done.returncode == 0, done.stderr
    assert "Player 1, as keeper, say the totals, like: one anchor, two clockwise steps." in done.stdout
    assert "Keeper Player" not in done.stdout


def test_an_invisible_character_is_named_in_plain_words(tmp_path: Path) -> None:
    done = run_cli(["play", "lantern-links", "--text", "--seed", "9", "--log", str(tmp_path / "g.jsonl")],
                   b"pass\x00\n\xe2\x80\x8bpass\n\xcc\x81pass\n\xffpass\n\xee\x80\x80pass\npass$\n")
    assert done.returncode == 0, done.stderr
    refused = [line.split(" in a typed line")[0] for line in done.stdout.splitlines()
               if line.startswith("I can't take")]
    assert refused == ["I can't take an invisible control character",
                       "I can't take an invisible formatting character, like a zero-width space or a direction mark,",
                       "I can't take an accent that is on no letter",
                       "I can't take bytes that are not text",
                       "I can't take a character that is not ordinary text",
                       "I can't take the character $"]
    assert "U+" not in done.stdout


def test_a_returned_tile_says_whose_pass_and_whose_turn(tmp_path: Path) -> None:
    done = run_cli(["play", "lantern-links", "--text", "--seed", "9", "--routes", "7,1,12",
                    "--log", str(tmp_path / "g.jsonl")], "play sun moon\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[2:] == [
        "Player 1's sun moon does not match key: it goes back, and Player 1 passes.",
        "Player 2's turn. The open word is key."]


def test_the_spectator_is_told_why_in_plain_words(tmp_path: Path) -> None:
    session, _ = Session.start("clover", players=4, seed=3, options={"extra": 1}, screens=True,
                               log_path=tmp_path / "g.jsonl", table=TableData(tmp_path / "data"))
    try:
        session.state = replace(session.state, phase=RESOLUTION, spectator=1)
        command = session.parse("turn 1")
        reply = refuse(session, command, frozenset({2, 3, 4}), 1, "another seat's phone")
        assert reply.public == ["Player 1, it is your board the others are placing: stay silent until it is scored."]
    finally:
        session.log.close()


def test_the_lobby_gives_the_range_for_one_player_and_answers_a_lone_yes(tmp_path: Path) -> None:
    done = run_cli(["serve", "--text", "--data-dir", str(tmp_path / "data")],
                   "let's play compass code with one player\nlet's play clover with nine players\nyes\n"
                   "let's play two windows with three players\nquit\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:-1] == [
        "Compass code takes 2 to 8 players.",
        "Clover takes 3 to 6 players.",
        "There is nothing to confirm. Which game? Say, for example: let's play compass code with four players.",
        ("Two windows needs private screens: start the assistant with the phones (--screens) or a private file "
         "(--private), or choose another game.")]


def test_a_lone_yes_with_an_unfinished_game_offered_says_what_to_say(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    kept = run_cli(["serve", "--text", "--data-dir", data], "let's play compass code with three players\nquit\nquit\n")
    assert kept.returncode == 0, kept.stderr
    done = run_cli(["serve", "--text", "--data-dir", data], "yes\nno\nquit\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == [
        "There is an unfinished compass code game. Say resume or new game.",
        "Say resume to go on with the unfinished compass code game, or new game to set it aside.",
        "Say resume to go on with the unfinished compass code game, or new game to set it aside."]
