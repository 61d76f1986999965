"""Clover by ear (issue 18): the cards on the table can be heard with their words, a
player hears their own board and clues privately, and clue writing is announced once
per seat, not once per clue."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from facilitator.games.clover import REFEREE
from facilitator.games.clover.board import ZONES, all_words, zone_words
from facilitator.grammar import load_grammar


def test_read_the_cards_counts_first_then_one_card_a_sentence_with_its_words(
    new_table: Callable[..., Any],
) -> None:
    table = new_table(players=3, seed=8)
    table.write_clues()
    layout = table.state.layout
    logged_before = len(table.events())
    reply = table.say("read the cards")
    assert len(table.events()) == logged_before
    assert reply.public[0] == "5 cards are on the table, 0 placed."
    # one card a sentence, each on "go on" (the paging of every long answer)
    pages = [table.say("go on").public[0] for _ in layout.cards]
    for k, line in enumerate(pages, 1):
        top, right, bottom, left = layout.words(k)
        assert line == (f"Card {k}: {top} on top, {right} on the right, {bottom} at the bottom, "
                        f"{left} on the left; not placed.")


def test_read_my_board_goes_to_that_seat_only_and_logs_nothing(new_table: Callable[..., Any]) -> None:
    table = new_table(players=3, seed=8)
    table.say("clue 2 top harvest")
    logged_before = len(table.events())
    reply = table.say("read my board 2")
    assert len(table.events()) == logged_before                     # a query: nothing logged
    assert reply.public == ["Player 2, your board is on your screen."]
    assert [(p["type"], p["audience"]) for p in reply.private] == [("private-answer", 2)]
    board = table.board(2)
    text = reply.private[0]["text"]
    for word in all_words(board):
        assert word in text
        assert word not in " ".join(reply.public)
    a, b = zone_words(board, ZONES[0])
    assert f"top ties {a} and {b}; your clue: harvest." in text
    assert "right ties" in text and "your clue" not in text.split("right ties")[1]
    assert table.say("repeat").public == ["Player 2, your board is on your screen."]


def test_read_my_board_during_resolution_and_for_a_seat_that_is_not_there(
    new_table: Callable[..., Any],
) -> None:
    table = new_table(players=3, seed=8)
    assert table.say("read board 4").public == ["There is no seat 4; the seats are 1 to 3."]
    table.write_clues()
    reply = table.say("read my board 3")
    assert [p["audience"] for p in reply.private] == [3]
    assert "your clue: justice3" in reply.private[0]["text"]


def test_read_my_board_by_voice_names_the_seat(new_table: Callable[..., Any]) -> None:
    session = new_table(players=4, seed=8).session
    for said, seat in (("read my board seat two", "2"), ("read my board four", "4"),
                       ("read the board for player three", "3")):
        command = session.parse(said, typed=False, narrow=True)
        assert command.canonical == f"read board {seat}", said


def test_six_players_hear_six_progress_lines_not_twenty_four(new_table: Callable[..., Any]) -> None:
    table = new_table(players=6, seed=3)
    start = len(table.public)
    table.write_clues()
    progress = [line for line in table.public[start:] if "clues are in" in line]
    assert progress == [f"Player {s}'s clues are in: {s} of 6 ready." for s in range(1, 6)] + [
        "Player 6's clues are in: 6 of 6 ready."]
    assert table.public[start + 6].startswith("Resolution 1 of 6: Player 1's board; Player 2 commits;")


def test_a_replaced_clue_after_the_fourth_is_not_announced_again(new_table: Callable[..., Any]) -> None:
    table = new_table(players=3, seed=8)
    for zone in ("top", "right", "bottom", "left"):
        table.say(f"clue 1 {zone} harvest{zone}")
    assert table.public[-1] == "Player 1's clues are in: 1 of 3 ready."
    assert table.say("clue 1 top journey").public == []


def test_status_is_one_sentence_in_every_phase(new_table: Callable[..., Any]) -> None:
    table = new_table(players=3, seed=8)
    for _ in range(2):
        status = table.say("status").public
        assert len(status) == 1 and status[0].count(". ") == 0 and status[0].endswith("."), status
        table.write_clues()


def test_help_says_what_fits_this_moment_first(new_table: Callable[..., Any]) -> None:
    table = new_table(players=3, seed=8)
    assert table.say("help").public[0].startswith("Write your four clues on your screen")
    table.write_clues()
    assert table.say("help").public[0] == "Say place card three top left, turn card three, then commit."


def test_every_clover_intent_has_a_one_sentence_usage() -> None:
    grammar = load_grammar("clover")
    game_intents = set(grammar.intents) - grammar.common_intents
    assert {"clue", "place", "turn", "commit", "read card", "read cards", "read clues",
            "read board"} <= game_intents
    for intent in game_intents:
        usage = grammar.responses["usage-" + intent.replace(" ", "-")]
        assert usage.endswith(".") and usage.count(". ") == 0 and len(usage.split()) <= 20, intent
    assert REFEREE.private_queries <= game_intents


def test_by_voice_read_my_board_is_never_spoken_aloud(tmp_path) -> None:
    """Through the real listen loop: the board goes to the private file, the speaker says
    only that it was sent, and a query asking the loop to repeat gives nothing more away."""
    from loop.loop_fakes import CaptionLog, RecordingSpeaker, ScriptedRecognizer, said
    from support import read_jsonl

    from facilitator.session import Session
    from facilitator.speech.base import VoiceSettings
    from facilitator.speech.loop.listen import ListenLoop, LoopSettings

    session, _ = Session.start("clover", players=3, seed=8, options={"extra": 1},
                               log_path=tmp_path / "log.jsonl", private_path=tmp_path / "private.jsonl")
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    loop = ListenLoop(session, ScriptedRecognizer(), speaker, voice, CaptionLog(),
                      LoopSettings(earcon_seconds=0.0))
    try:
        logged = len(read_jsonl(tmp_path / "log.jsonl"))
        loop.hear(said("read my board seat two", 10.0))
        loop.hear(said("repeat", 20.0))
        assert speaker.spoken[-2:] == ["Player 2, your board is in the private file."] * 2
        answers = [p for p in read_jsonl(tmp_path / "private.jsonl") if p["type"] == "private-answer"]
        assert [p["audience"] for p in answers] == [2]
        words = set(all_words(session.state.boards[2]))
        assert not [w for w in words if any(w in line for line in speaker.spoken)]
        assert len(read_jsonl(tmp_path / "log.jsonl")) == logged
    finally:
        session.log.close()
