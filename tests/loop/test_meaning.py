"""Meaning beside the templates, on the loop with the fakes (docs/voice-loop.md, "Understood by
meaning"): a command found by meaning in words no form holds is asked ("Did you mean ...?"),
applied only on yes (said, typed or tapped on the phone of the seat that said it), never
held or applied as heard; a voice control is never taken from a line heard unsure or heard as
something else; a closed-set phrase the free words contradict is not applied as sure.
"""

from __future__ import annotations

from pathlib import Path

from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    ScriptedRecognizer,
    TwoStageRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    said,
)
from loop.phone_table import logged, make, phone, told

from facilitator.session import Session
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState

MEANT = "Did you mean: send east west north south?"
#: a guess in words no form of the grammar holds (nor any tuning line)
GUESS = "free:okay everyone agreed we go east west north south"


def test_a_command_found_by_meaning_is_asked_and_never_applied_unanswered(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.hear(said("=>" + GUESS, 1.0))
    assert speaker.spoken == [MEANT] and loop.state is LoopState.CONFIRMING
    assert logged(tmp_path) == []
    loop.tick(40.0)                                   # no answer: nothing applied, nothing logged
    assert loop.state is LoopState.LISTENING and logged(tmp_path) == []
    assert speaker.spoken == [MEANT]                  # a light question: it closes quietly


def test_yes_applies_what_meaning_found_and_no_drops_it(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.hear(said("=>" + GUESS, 1.0))
    loop.hear(said("no", 5.0))
    assert speaker.spoken == [MEANT, "Cancelled."] and logged(tmp_path) == []
    loop.hear(said("=>free:how many possibilities have we got left", 9.0))
    assert speaker.spoken[-1] == "Did you mean: how many candidates?"
    loop.hear(said("yes", 13.0))
    assert speaker.spoken[-1] == "24 candidates remain."
    assert logged(tmp_path) == []                     # a query logs nothing, asked or not


def test_meaning_is_never_held_even_when_the_closed_set_is_sure(tmp_path: Path) -> None:
    """A phone's line (addressed) and a guess that would be echoed and applied if the grammar had
    heard it sure: found by meaning, it is asked, and the phone's Yes applies it."""
    loop, _speaker, answered = make(tmp_path, TwoStageRecognizer())
    phone(loop, 1, "=>" + GUESS, 1.0, 3.0)
    assert loop.state is LoopState.CONFIRMING and loop.asking_seat() == 1
    assert told(answered, 1) == [MEANT]
    loop.seat_answer(1, True)
    loop.tick(4.0)
    assert [t for t, _ in logged(tmp_path)][:1] == ["guess-scored"]


def test_table_talk_near_a_command_is_asked_at_most_once(tmp_path: Path) -> None:
    """From the table's microphone, unaddressed: the same near line after a "no" is left alone."""
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.hear(said("=>" + GUESS, 1.0))
    loop.hear(said("no", 5.0))
    loop.hear(said("=>" + GUESS, 9.0))
    loop.tick(30.0)
    assert speaker.spoken == [MEANT, "Cancelled."] and logged(tmp_path) == []


def test_a_typed_line_found_by_meaning_is_asked_and_applied_on_a_typed_yes(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.submit_text("right gang we are going east west north south on this one")
    loop.tick(1.0)
    assert speaker.spoken == [MEANT]
    assert [t for t, _ in logged(tmp_path)] == ["command-rejected"]   # the line itself changed nothing
    loop.submit_text("yes")
    loop.tick(2.0)
    assert [t for t, _ in logged(tmp_path)][:2] == ["command-rejected", "guess-scored"]


# -- voice controls ----------------------------------------------------------------------
def _volume(loop: ListenLoop) -> float:
    return loop.voice.volume


def test_a_voice_control_the_free_words_do_not_say_is_not_applied(tmp_path: Path) -> None:
    """"okay so submit south west east north" decoded to "softer" by the closed grammar (sure):
    the free words say no such thing, so the voice stays as it was."""
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    before = _volume(loop)
    loop.hear(said("softer=>softer|free:okay so submit south west east north", 1.0))
    loop.hear(said("slower=>slower|free:um not this time", 5.0))
    loop.tick(30.0)
    assert _volume(loop) == before and loop.voice.rate_wpm == VoiceSettings().rate_wpm
    assert speaker.spoken == []


def test_a_voice_control_the_free_words_say_is_applied(tmp_path: Path) -> None:
    loop, _speaker, _ = make(tmp_path, TwoStageRecognizer())
    before = _volume(loop)
    loop.hear(said("softer=>softer|free:softer please", 1.0))
    assert _volume(loop) < before


def test_a_voice_control_heard_unsure_is_never_applied_and_asked_when_addressed(tmp_path: Path) -> None:
    loop, speaker, answered = make(tmp_path, ScriptedRecognizer())   # the light mode: never sure
    before = _volume(loop)
    loop.hear(said("unsure:louder", 1.0))
    assert _volume(loop) == before and speaker.spoken == []
    phone(loop, 2, "unsure:louder", 5.0, 6.0)
    assert _volume(loop) == before and told(answered, 2) == ["Did you ask louder?"]
    loop.seat_answer(2, True)
    loop.tick(7.0)
    assert _volume(loop) > before


def test_a_phrase_the_free_words_contradict_is_not_applied_as_heard(tmp_path: Path) -> None:
    """Clover's free move: a sure "place card two top right" is applied at once; with the free
    words saying card one it is not: card one is echoed (heard unsure) and placed when its
    window closes, and card two never moves."""
    session, _ = Session.start("clover", seed=2, players=3, log_path=tmp_path / "log.jsonl",
                               private_path=tmp_path / "private.jsonl")
    for seat in (1, 2, 3):
        for zone, clue in zip(("top", "right", "bottom", "left"), ("apple", "river", "stone", "cloud")):
            session.handle(f"clue {seat} {zone} {clue}")
    assert "place" in session.legal_intents()
    voice = VoiceSettings()
    speaker = RecordingSpeaker(voice)
    loop = ListenLoop(session, TwoStageRecognizer(), speaker, voice, CaptionLog(),
                      LoopSettings(earcon_seconds=0.0, implicit_window_seconds=3.0))
    OPENED.append(loop)
    loop.hear(said("place card two top right=>place card two top right|free:um card one goes top right", 40.0))
    loop.tick(80.0)
    events = [e for e in _events(tmp_path) if e["type"] == "card-placed"]
    assert speaker.spoken[:1] == ["Place card one top right."]   # the free words' command, echoed
    assert [e["card"] for e in events] == [1], events


def _events(tmp_path: Path) -> list[dict[str, object]]:
    from support import read_jsonl

    return read_jsonl(tmp_path / "log.jsonl")



# -- answers in other words ----------------------------------------------------------------
def test_a_no_in_other_words_drops_the_question_and_a_yes_in_other_words_is_asked_plainly(
        tmp_path: Path) -> None:
    """A question's no, cancel or repeat found by meaning changes nothing in the game, so it is
    taken; a yes found by meaning would apply a command on words no form holds: the table is
    asked for a plain yes or no."""
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.hear(said("=>unsure:send north east south west", 1.0))
    assert speaker.spoken == ["Send north east south west. Is that right?"]
    loop.hear(said("=>free:nah mate that's not what i wanted", 5.0))
    assert speaker.spoken[-1] == "Cancelled." and logged(tmp_path) == []
    loop.hear(said("=>unsure:send north east south west", 9.0))
    loop.hear(said("=>free:yeah go for it champ", 13.0))
    assert speaker.spoken[-1] == "Please say yes or no." and logged(tmp_path) == []
    loop.hear(said("yes", 20.0))
    assert [t for t, _ in logged(tmp_path)][:1] == ["guess-scored"]


def test_a_typed_no_in_other_words_drops_what_meaning_asked(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, TwoStageRecognizer())
    loop.submit_text("right gang we are going east west north south on this one")
    loop.tick(1.0)
    loop.submit_text("nah mate")
    loop.tick(2.0)
    assert speaker.spoken == [MEANT, "Cancelled."]
    assert [t for t, _ in logged(tmp_path)] == ["command-rejected"]


def test_the_light_mode_leaves_the_meaning_stage_unloaded_at_start(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The light mode hears no free words, so its loop does not train or read back the meaning
    model when it starts (on a Pi 4 that memory is the board's); Whisper beside it does."""
    from facilitator.speech.engines.hybrid import HybridRecognizer
    from facilitator.speech.loop import listen

    warmed: list[object] = []
    monkeypatch.setattr(listen, "warm", warmed.append)
    light = HybridRecognizer("off")
    assert not light.transcribes and HybridRecognizer("always", whisper=object()).transcribes
    loop, _speaker, _ = make(tmp_path, light)
    loop.start()
    assert warmed == []
    loop, _speaker, _ = make(tmp_path / "both", HybridRecognizer("always", whisper=object()))
    loop.start()
    assert len(warmed) == 1
