"""Voice turns in the listen loop, with the loop's fakes: who may give a role's command,
what an unsure or a stranger's voice does, enrollment by voice and by a typed line, and
what is logged.  A seat's voice is a fixed unit vector (``VOICE``); an utterance's voice
is given by its start time (the fake audio carries only words: ``turn_fakes.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    ScriptedRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    compass_session,
    said,
)
from speakers.turn_fakes import VOICE, Turns, Unused
from support import read_jsonl

from facilitator.session import Session
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings
from facilitator.speech.voices.voice_turns import VoiceTurns

SEND = "send north east south west"

_open = OPENED


def make(tmp_path: Path, session: Session | None = None) -> tuple[ListenLoop, Turns, RecordingSpeaker, CaptionLog]:
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    captions = CaptionLog()
    session = session or compass_session(tmp_path)
    loop = ListenLoop(session, ScriptedRecognizer(), speaker, voice, captions, LoopSettings(earcon_seconds=0.0))
    _open.append(loop)
    from facilitator.speech.voices.voiceprints import Voiceprints

    turns = Turns(loop, Unused(), Voiceprints(Voiceprints.beside(tmp_path / "log.jsonl"), session.game_id,
                                              dimension=3))             # VOICE is 3-d
    turns.voices_at = {}
    return loop, turns, speaker, captions


def say(loop: ListenLoop, turns: Turns, text: str, seat: int, at: float, seconds: float = 1.0) -> None:
    turns.voices_at[at] = seat
    loop.hear(said(text, at, seconds))


def enrol_both(loop: ListenLoop, turns: Turns) -> None:
    turns.begin()
    say(loop, turns, "raw:i'm ready to play", 1, 10.0, 1.2)
    say(loop, turns, "raw:i'm ready to play", 2, 20.0, 1.2)


def events(tmp_path: Path) -> list[dict[str, object]]:
    return read_jsonl(tmp_path / "log.jsonl")[3:]


def test_each_seat_is_asked_by_name_in_turn(tmp_path: Path) -> None:
    loop, turns, speaker, _ = make(tmp_path)
    turns.begin()
    assert speaker.spoken[-1].endswith("Player 1, say: I'm ready to play.")
    say(loop, turns, "raw:i'm ready to play", 1, 10.0, 1.2)
    assert speaker.spoken[-2:] == ["Thanks, Player 1.", "Player 2, say: I'm ready to play."]
    say(loop, turns, "raw:hi", 2, 20.0, 0.4)                      # too short to learn
    assert speaker.spoken[-1] == "Player 2, say it once more, a little longer: I'm ready to play."
    say(loop, turns, "raw:i'm ready to play", 2, 30.0, 1.2)
    assert speaker.spoken[-2:] == ["Thanks, Player 2.", "Player 3, say: I'm ready to play."]
    assert turns.prints.enrolled(1) and turns.prints.enrolled(2) and not turns.prints.enrolled(3)
    assert events(tmp_path) == []                                # enrolling logs nothing


def test_a_roles_command_in_another_seats_voice_is_refused_once(tmp_path: Path) -> None:
    loop, turns, speaker, _ = make(tmp_path)
    enrol_both(loop, turns)
    turns.asking, turns.queue = None, []                         # seats 3 and 4 not asked
    say(loop, turns, SEND, 2, 40.0)                              # Player 2 answers for the captain
    assert speaker.spoken[-1] == "That is Player 1's guess to send."
    refused = events(tmp_path)
    assert [(e["type"], e["reason"], e["heard"]) for e in refused] == [
        ("command-rejected", "another seat's voice", 2)]
    say(loop, turns, SEND, 2, 50.0)                              # again, nothing changed: silence
    assert speaker.spoken[-1] == "That is Player 1's guess to send." and len(events(tmp_path)) == 1
    say(loop, turns, SEND, 1, 60.0)                              # the captain: echoed, applied
    loop.tick(70.0)
    scored = [e for e in events(tmp_path) if e["type"] == "guess-scored"]
    assert len(scored) == 1 and scored[0]["heard"] == 1


def test_the_captain_saying_her_guess_again_as_it_is_applied_is_not_refused(tmp_path: Path) -> None:
    """A player confirms a held command by saying it again inside its window; when that
    line is heard only after the window closed (the guess applied, the next captain's
    turn), it is the same repeat: applied once, and not refused as the new captain's."""
    loop, turns, speaker, _ = make(tmp_path)
    enrol_both(loop, turns)
    turns.asking, turns.queue = None, []
    say(loop, turns, SEND, 1, 40.0)                              # the captain: echoed, held
    loop.tick(50.0)                                              # the window closed at 46.3: applied
    assert [e["heard"] for e in events(tmp_path) if e["type"] == "guess-scored"] == [1]
    spoken = len(speaker.spoken)
    say(loop, turns, SEND, 1, 44.0, seconds=1.5)                 # her repeat, begun inside the window
    assert speaker.spoken[spoken:] == [], speaker.spoken[spoken:]
    assert not [e for e in events(tmp_path) if e["type"] == "command-rejected"]
    assert len([e for e in events(tmp_path) if e["type"] == "guess-scored"]) == 1


def test_queries_stay_open_to_every_enrolled_seat(tmp_path: Path) -> None:
    loop, turns, speaker, _ = make(tmp_path)
    enrol_both(loop, turns)
    turns.asking, turns.queue = None, []
    say(loop, turns, "status", 2, 40.0)
    assert any("captain" in line for line in speaker.spoken[-2:])


def test_an_unsure_voice_is_taken_as_without_voices(tmp_path: Path) -> None:
    loop, turns, _, _ = make(tmp_path)
    enrol_both(loop, turns)
    turns.asking, turns.queue = None, []
    say(loop, turns, SEND, 12, 40.0)                             # between seats 1 and 2
    loop.tick(50.0)
    scored = [e for e in events(tmp_path) if e["type"] == "guess-scored"]
    assert len(scored) == 1 and scored[0]["heard"] is None       # a voice command, seat unknown


def test_a_stranger_is_chatter(tmp_path: Path) -> None:
    loop, turns, speaker, _ = make(tmp_path)
    enrol_both(loop, turns)
    turns.asking, turns.queue = None, []
    before = list(speaker.spoken)
    say(loop, turns, SEND, 9, 40.0)                              # the next table
    say(loop, turns, "status", 9, 45.0)
    loop.tick(60.0)
    assert speaker.spoken == before and events(tmp_path) == [] and loop.chatter == 2


def test_no_to_the_question_plays_without_voices_and_is_kept(tmp_path: Path) -> None:
    loop, turns, speaker, _ = make(tmp_path)
    turns.begin()
    say(loop, turns, "no", 1, 10.0, 0.4)
    assert speaker.spoken[-1] == "Playing without voices: anyone may give any command."
    assert json.loads((tmp_path / "log.jsonl.voices").read_text())["declined"] is True
    say(loop, turns, SEND, 2, 20.0)                              # anyone may send now
    loop.tick(30.0)
    assert [e["type"] for e in events(tmp_path)][:1] == ["guess-scored"]


def test_a_typed_enrol_asks_that_seat_and_replaces_its_voice(tmp_path: Path) -> None:
    loop, turns, speaker, _ = make(tmp_path)
    enrol_both(loop, turns)
    turns.asking, turns.queue = None, []
    loop.submit_text("enrol 2")
    loop.tick(30.0)
    assert speaker.spoken[-1] == "Player 2, say: I'm ready to play."
    say(loop, turns, "raw:i'm ready to play", 13, 40.0, 1.2)     # Ben's voice, as he sounds today
    assert speaker.spoken[-1] == "Thanks, Player 2." and len(turns.prints.seats[2]) == 1
    assert np.allclose(turns.prints.seats[2][0], VOICE[13])
    loop.submit_text("enrol 7")
    loop.tick(45.0)
    assert speaker.spoken[-1] == "There is no seat 7 to enrol."


def test_typed_commands_are_not_checked_and_log_no_heard_seat(tmp_path: Path) -> None:
    loop, turns, _, _ = make(tmp_path)
    enrol_both(loop, turns)
    turns.asking, turns.queue = None, []
    loop.submit_text(SEND)
    loop.tick(40.0)
    scored = [e for e in events(tmp_path) if e["type"] == "guess-scored"]
    assert len(scored) == 1 and "heard" not in scored[0]


def test_captions_name_a_sure_speaker(tmp_path: Path) -> None:
    loop, turns, _, captions = make(tmp_path)
    enrol_both(loop, turns)
    turns.asking, turns.queue = None, []
    say(loop, turns, SEND, 1, 40.0)
    assert captions.heard_lines[-1] == f"Player 1: {SEND}"


def test_a_resumed_game_keeps_its_voices_and_asks_only_the_missing(tmp_path: Path) -> None:
    loop, turns, _, _ = make(tmp_path)
    enrol_both(loop, turns)
    loop.session.log.close()
    _open.clear()
    session, _, _ = Session.resume(tmp_path / "log.jsonl")
    _, turns2, speaker2, _ = make(tmp_path, session)
    assert turns2.prints.enrolled(1) and turns2.prints.enrolled(2)
    turns2.begin()
    assert speaker2.spoken[-1] == "Player 3, say: I'm ready to play."


def test_a_seat_screen_offers_learn_my_voice_only_with_voice_turns(tmp_path: Path) -> None:
    from facilitator.screens.controls import seat_controls

    loop, _, _, _ = make(tmp_path)
    control = next(c for c in seat_controls(loop.session, 2) if c.id == "enrol")
    assert control.template == "enrol 2" and control.label == "Learn my voice"
    plain = compass_session(tmp_path / "plain")
    _open.append(ListenLoop(plain, ScriptedRecognizer(), RecordingSpeaker(VoiceSettings())))
    assert all(c.id != "enrol" for c in seat_controls(plain, 2))


def test_two_voices_too_alike_are_named_at_enrollment_and_either_may_act_for_the_other(tmp_path: Path) -> None:
    loop, turns, speaker, _ = make(tmp_path)
    turns.begin()
    say(loop, turns, "raw:i'm ready to play", 1, 10.0, 1.2)
    say(loop, turns, "raw:i'm ready to play", 21, 20.0, 1.2)     # seat 2 enrols in a voice like seat 1's
    # as alike as seat 1's own: without an array that may be seat 1 speaking again, so asked again
    assert speaker.spoken[-1] == "That sounded like Player 1. Player 2, say: I'm ready to play."
    say(loop, turns, "raw:i'm ready to play", 21, 30.0, 1.2)     # the same voice again: kept, and named
    assert "I can't always tell Player 1's voice from Player 2's, so each of you may be taken for the other." in speaker.spoken
    assert turns.alike == {(1, 2)}
    turns.asking, turns.queue = None, []
    say(loop, turns, SEND, 21, 40.0)          # seat 2's voice saying the captain's (seat 1's) guess
    loop.tick(50.0)
    assert [e["type"] for e in events(tmp_path)][:1] == ["guess-scored"]   # taken, not refused


def test_with_phones_the_alike_seats_are_told_to_use_their_phones(tmp_path: Path) -> None:
    loop, turns, speaker, _ = make(tmp_path)
    loop.phones_serve = lambda: True
    turns.begin()
    say(loop, turns, "raw:i'm ready to play", 1, 10.0, 1.2)
    say(loop, turns, "raw:i'm ready to play", 21, 20.0, 1.2)
    say(loop, turns, "raw:i'm ready to play", 21, 30.0, 1.2)
    assert ("I can't tell Player 1's voice from Player 2's: hold your phone's talk button for your turns."
            in speaker.spoken)


def test_a_seat_holding_its_phone_is_not_asked_for_a_voiceprint(tmp_path: Path) -> None:
    loop, turns, speaker, _ = make(tmp_path)
    loop.phone_seats = lambda: frozenset({1, 3})
    turns.begin()
    assert speaker.spoken[-1].endswith("Player 2, say: I'm ready to play.")
    assert turns.queue == [4]


def test_an_embedding_with_no_direction_is_never_kept_as_a_seats_line(tmp_path: Path) -> None:
    loop, _, speaker, _ = make(tmp_path)

    class Broken:
        def embed(self, pcm: bytes) -> np.ndarray:
            return np.array([np.nan, 0.0, 1.0])

    from facilitator.speech.voices.voiceprints import Voiceprints

    turns = VoiceTurns(loop, Broken(), Voiceprints(None, loop.session.game_id, dimension=3))
    turns.begin()
    loop.hear(said("raw:i'm ready to play", 10.0, 1.2))
    assert not turns.prints.enrolled(1)
    assert speaker.spoken[-1] == "I cannot learn voices on this machine."
