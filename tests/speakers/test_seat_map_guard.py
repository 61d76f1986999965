"""The seat map survives a real evening (issue 48), on the real loop with real raw microphones
(plane waves at a ReSpeaker 4-Mic HAT) and the scripted recognizer: a line from another
seat's place never becomes a seat's enrollment, a seat enrols again at any time (typed,
said, or from its phone), and a role's command whose direction is unsure asks its owner
by name, applied only on a yes from her place or her phone."""

from __future__ import annotations

from pathlib import Path

from speakers.test_array_turns import SEND, events, make, say

from facilitator.speech.loop.listen import LoopState
from facilitator.speech.voices.voiceprints import Voiceprints

READY = "raw:i'm ready to play"


def test_the_line_after_a_missed_enrollment_from_another_seat_is_not_that_seats(tmp_path: Path) -> None:
    loop, turns, speaker = make(tmp_path)
    turns.begin()
    say(loop, turns, READY, 1, 0.0, 10.0, 1.2)        # Player 1 at 0 degrees
    say(loop, turns, READY, 2, 90.0, 20.0, 1.2)       # Player 2 at 90
    assert turns.asking == 3
    turns.queue = []                                  # a table of three: Player 3 is asked last
    # Player 3's line was lost under the referee's voice; 20 s later the captain (Player 1)
    # gives the first command from her own seat, 4 degrees off it
    say(loop, turns, SEND, 1, 4.0, 40.0)
    assert 3 not in turns.prints.bearings and not turns.prints.seats.get(3)
    assert turns.asking == 3
    assert speaker.spoken[-1] == "That sounded like Player 1. Player 3, say: I'm ready to play."
    say(loop, turns, READY, 1, 270.0, 50.0, 1.2)      # Player 3 at last (the same voice as Player 1)
    assert abs(turns.prints.bearings[3] - 270.0) <= 2 and abs(turns.prints.bearings[1]) % 360 <= 2
    kept = Voiceprints(Voiceprints.beside(tmp_path / "log.jsonl"), turns.prints.game_id, dimension=3)
    assert sorted(kept.bearings) == [1, 2, 3]


def test_twice_from_an_enrolled_seats_place_the_seat_map_is_asked_again(tmp_path: Path) -> None:
    loop, turns, speaker = make(tmp_path)
    turns.begin()
    # Player 2 talked while Player 1 was asked: Player 1's place is Player 2's (150 degrees)
    say(loop, turns, READY, 2, 150.0, 10.0, 1.2)
    turns.queue = []
    say(loop, turns, READY, 2, 151.0, 20.0, 1.2)      # Player 2, asked, from its own place
    assert speaker.spoken[-1] == "That sounded like Player 1. Player 2, say: I'm ready to play."
    say(loop, turns, READY, 2, 149.0, 30.0, 1.2)      # and again, from the same place
    # twice by name from one place: Player 2 keeps it, and Player 1 is asked again
    assert speaker.spoken[-3:] == ["Thanks, Player 2.", "Player 1, I may have your seat wrong.",
                                   "Player 1, say: I'm ready to play."]
    assert 1 not in turns.prints.bearings and abs(turns.prints.bearings[2] - 149.0) <= 2
    say(loop, turns, READY, 1, 30.0, 40.0, 1.2)
    assert abs(turns.prints.bearings[1] - 30.0) <= 2 and turns.asking is None


def test_a_seat_enrols_again_by_a_spoken_command_asked_first(tmp_path: Path) -> None:
    loop, turns, speaker = make(tmp_path)
    say_enrolled(loop, turns)
    say(loop, turns, "learn seat two again", 1, 30.0, 40.0)
    assert speaker.spoken[-1] == "Learn seat two again. Is that right?"
    say(loop, turns, "yes", 1, 30.0, 50.0, 0.4)
    assert turns.asking == 2 and speaker.spoken[-1] == "Player 2, say: I'm ready to play."
    say(loop, turns, READY, 2, 200.0, 60.0, 1.2)      # Player 2 moved to 200 degrees
    assert abs(turns.prints.bearings[2] - 200.0) <= 2
    assert events(tmp_path) == []                     # voice turns' own business: nothing logged


def test_an_asked_seat_applies_its_command_with_a_yes_from_its_place(tmp_path: Path) -> None:
    loop, turns, speaker = make(tmp_path)
    say_enrolled(loop, turns)
    say(loop, turns, SEND, 2, 90.0, 40.0)            # between the seats: asked by name
    assert speaker.spoken[-1] == "Player 1, was that you: send north east south west?"
    say(loop, turns, "yes", 2, 150.0, 46.0, 0.4)     # a yes from Player 2's place: not hers to give
    assert loop.state is LoopState.CONFIRMING and not scored(tmp_path)
    say(loop, turns, "yes", 1, 28.0, 48.0, 0.4)      # the captain's own yes
    loop.tick(60.0)
    assert len(scored(tmp_path)) == 1


def test_an_asked_seat_answers_from_its_phone(tmp_path: Path) -> None:
    loop, turns, _speaker = make(tmp_path)
    say_enrolled(loop, turns)
    say(loop, turns, SEND, 2, 90.0, 40.0)
    assert loop.asking_seat() == 1
    loop.seat_answer(2, True)                        # another seat's phone: not its question
    loop.tick(42.0)
    assert loop.state is LoopState.CONFIRMING
    loop.seat_answer(1, True)
    loop.tick(43.0)
    assert len(scored(tmp_path)) == 1


def test_an_asked_seat_that_says_nothing_is_never_taken_for_another(tmp_path: Path) -> None:
    loop, turns, speaker = make(tmp_path)
    say_enrolled(loop, turns)
    say(loop, turns, SEND, 2, 90.0, 40.0)
    loop.tick(70.0)
    assert speaker.spoken[-1] == "No answer, so cancelled: send north east south west."
    assert not scored(tmp_path)


def say_enrolled(loop: object, turns: object) -> None:
    from speakers.test_array_turns import enrol

    enrol(loop, turns, {1: 30.0, 2: 150.0})  # type: ignore[arg-type]
    turns.asking, turns.queue = None, []  # type: ignore[attr-defined]


def scored(tmp_path: Path) -> list[dict[str, object]]:
    return [e for e in events(tmp_path) if e["type"] == "guess-scored"]
