"""Two Windows by voice through the real listen loop (scripted recognizer, recording
speaker): informants read their written slips aloud, unconfirmed; the decoder's
final is asked and applied only on "yes"; more, heard unsure, too (heard sure it is
echoed with an undo window: tests/loop/test_conversation.py)."""

from __future__ import annotations

from pathlib import Path

from loop.loop_fakes import CaptionLog, RecordingSpeaker, ScriptedRecognizer, said
from support import read_jsonl

from facilitator.games.two_windows import REFEREE
from facilitator.session import Session
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState


def _loop(tmp_path: Path, **options: object) -> tuple[ListenLoop, RecordingSpeaker]:
    session, _ = Session.start("two-windows", seed=2, options=REFEREE.parse_options(options),
                               log_path=tmp_path / "log.jsonl", private_path=tmp_path / "private.jsonl")
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    loop = ListenLoop(session, ScriptedRecognizer(), speaker, voice, CaptionLog(),
                      LoopSettings(earcon_seconds=0.0))
    return loop, speaker


def _types(tmp_path: Path) -> list[str]:
    return [e["type"] for e in read_jsonl(tmp_path / "log.jsonl")]


def test_worked_example_by_voice(tmp_path: Path) -> None:
    loop, speaker = _loop(tmp_path, practice=True)
    try:
        loop.hear(said("report a form round", 10.0))
        loop.hear(said("report b surface striped", 20.0))
        assert speaker.spoken == [
            "Report A's slip is locked.", "Report B's slip is locked.",
            "Report A sends form round; report B sends surface striped. Oak, final or more?"]
        loop.hear(said("final brook", 40.0))
        assert speaker.spoken[-1] == "Final brook. Is that right?"
        assert loop.state is LoopState.CONFIRMING and "answer-given" not in _types(tmp_path)
        loop.hear(said("yes", 50.0))
        assert speaker.spoken[-3:] == [
            "Right, Brook: 2 points, 2 of 2.",
            ("Report A held form round and size small; report B held surface "
            "striped and edge notched."),
            "Practice over: 2 of 2 points."]
        assert loop.state is LoopState.DONE
        private = read_jsonl(tmp_path / "private.jsonl")
        assert {p["audience"] for p in private} == {"a", "b"}
        assert not any(p["text"] in speaker.spoken for p in private)
    finally:
        loop.session.log.close()


def test_more_is_confirmed_and_no_cancels_it(tmp_path: Path) -> None:
    loop, speaker = _loop(tmp_path, packets="1,8,13,4,17,10")
    try:
        loop.hear(said("report a form round", 30.0))
        loop.hear(said("report b edge notched", 40.0))
        loop.hear(said("unsure:more", 60.0))
        assert speaker.spoken[-1] == "More. Is that right?"
        loop.hear(said("no", 70.0))
        assert speaker.spoken[-1] == "Cancelled." and _types(tmp_path).count("transmission-revealed") == 1
        loop.hear(said("unsure:more", 80.0))
        loop.hear(said("yes", 90.0))
        assert speaker.spoken[-1] == ("Report A adds size small; report B adds surface "
                                      "striped. Oak, your final answer.")
        loop.hear(said("final gorse", 110.0))
        loop.hear(said("yes", 120.0))
        answer = [e for e in read_jsonl(tmp_path / "log.jsonl") if e["type"] == "answer-given"]
        assert [(a["stage"], a["name"], a["correct"], a["points"]) for a in answer] == [(2, "Gorse", False, 0)]
    finally:
        loop.session.log.close()


def test_phrases_not_legal_now_are_not_heard_and_a_wrong_fact_is_refused(tmp_path: Path) -> None:
    loop, speaker = _loop(tmp_path, packets="1,8,13,4,17,10")
    try:
        loop.hear(said("final alder", 30.0))          # narrowed away before the reveal: chatter
        assert speaker.spoken == [] and loop.chatter == 1
        loop.hear(said("report a size large", 40.0))  # on the grammar, not on report A
        assert speaker.spoken[-1] == "Report A cannot send that. Send one of the two facts on your report."
        assert _types(tmp_path)[-2:] == ["report-dealt", "command-rejected"]   # the unheard phrase logs nothing
    finally:
        loop.session.log.close()
