"""The listen loop with small fakes: confirmation, half duplex, repeat, controls, gating.

Times are stream seconds.  The recording speaker takes 2 s a sentence, earcons
take no time (except where a test says so) and the deaf window after speech is
0.3 s, so an utterance is heard only when it starts 0.3 s after the assistant's
last sentence ends.  Speech starts when the utterance that caused it ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from loop.loop_fakes import (
    OPENED,
    CaptionLog,
    RecordingSpeaker,
    ScriptedRecognizer,
    close_opened,  # noqa: F401  (an autouse fixture: imported, it runs here)
    compass_session,
    said,
)
from support import read_jsonl

from facilitator.errors import DeviceError
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState, Tick

PLAIN = "send north east south west"         # route NESW; leg 1's hidden route is ESNW
SEND = "unsure:" + PLAIN                     # heard unsure: asked "... Is that right?"
ECHO = "Send north east south west. Is that right?"


_open = OPENED


def make(tmp_path: Path, **settings: object) -> tuple[ListenLoop, RecordingSpeaker, CaptionLog]:
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    captions = CaptionLog()
    loop = ListenLoop(compass_session(tmp_path), ScriptedRecognizer(), speaker, voice, captions,
                      LoopSettings(**{"earcon_seconds": 0.0, **settings}))  # type: ignore[arg-type]
    _open.append(loop)
    return loop, speaker, captions


def logged(tmp_path: Path) -> list[str]:
    """Event types after the opening ones (game-started, leg-started, captain-named)."""
    return [e["type"] for e in read_jsonl(tmp_path / "log.jsonl")][3:]


def test_a_guess_is_echoed_and_applied_only_on_yes(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(SEND, 1.0))
    assert speaker.spoken == [ECHO]
    assert loop.state is LoopState.CONFIRMING and logged(tmp_path) == []
    loop.hear(said("yes", 5.0))
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    scored = read_jsonl(tmp_path / "log.jsonl")[3]
    assert scored["route"] == "NESW" and (scored["anchors"], scored["clockwise"]) == (1, 2)
    assert speaker.spoken[1:] == ["North east south west: 1 anchor, 2 clockwise steps.", "Guess 2 of 4: Player 2 is captain."]
    assert loop.state is LoopState.LISTENING


@pytest.mark.parametrize("answer", ["no", "cancel", "never mind"])
def test_no_or_cancel_drops_the_command_and_logs_nothing(tmp_path: Path, answer: str) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(SEND, 1.0))
    loop.hear(said(answer, 5.0))
    assert speaker.spoken == [ECHO, "Cancelled."]
    assert logged(tmp_path) == []
    assert loop.session.state.guess == 1 and loop.state is LoopState.LISTENING


def test_no_answer_within_the_timeout_cancels(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(SEND, 1.0))            # echo spoken 2.0-4.0, deaf until 4.3
    loop.tick(4.3 + 7.9)
    assert loop.state is LoopState.CONFIRMING
    loop.tick(4.3 + 8.1)
    assert speaker.spoken == [ECHO, "No answer, so cancelled: send north east south west."]
    assert loop.state is LoopState.LISTENING and logged(tmp_path) == []
    loop.hear(said("yes", 20.0))          # too late: no command is waiting any more
    assert logged(tmp_path) == ["command-rejected"]
    assert speaker.spoken[-1] == "There is nothing to confirm."


def test_a_late_yes_is_a_timeout_then_a_new_utterance(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.run([said(SEND, 1.0), said("unsure:is west in position four", 30.0)])
    assert speaker.spoken[:2] == [ECHO, "No answer, so cancelled: send north east south west."]
    assert speaker.spoken[2] == "Is west in position four. Is that right?"
    # the input ended with that question open: it times out too
    assert speaker.spoken[3:] == ["No answer, so cancelled: is west in position four."]
    assert logged(tmp_path) == []


def test_what_is_heard_while_the_assistant_speaks_is_discarded(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path)
    recognizer = loop.recognizer
    loop.hear(said(SEND, 1.0))            # echo from 2.0 to 4.0, deaf until 4.3
    loop.hear(said("yes", 3.0))           # during the echo (the speaker's own voice)
    loop.hear(said("yes", 4.1, 0.3))      # in the deaf window after it, too little beyond it
    assert [d.reason for d in loop.discarded] == ["half-duplex", "half-duplex"]
    assert recognizer.decoded == [PLAIN]  # never decoded
    assert logged(tmp_path) == [] and loop.state is LoopState.CONFIRMING
    assert loop.recognizer is recognizer and recognizer.decoded == [PLAIN]
    loop.hear(said("yes", 5.0))           # after the "not understood" sound for the lost one
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


def test_an_utterance_that_runs_into_the_speech_is_discarded(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path)
    loop.hear(said("status", 1.0))        # answered from 2.0 to 4.0
    loop.hear(said("help", 1.5, 1.0))     # started before, ends inside the answer
    assert [d.reason for d in loop.discarded] == ["half-duplex"]


def test_repeat_replays_the_last_announcement_and_logs_nothing(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.run([said(SEND, 1.0), said("yes", 5.0), said("repeat", 12.0), said("say that again", 18.0)])
    result = ["North east south west: 1 anchor, 2 clockwise steps.", "Guess 2 of 4: Player 2 is captain."]
    assert speaker.spoken == [ECHO, *result, *result, *result]
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


def test_repeat_while_confirming_asks_again(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(SEND, 1.0))
    loop.hear(said("repeat", 5.0))
    assert speaker.spoken == [ECHO, ECHO] and loop.state is LoopState.CONFIRMING
    loop.hear(said("yes", 9.0))
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


def test_nothing_heard_gets_the_earcon_and_say_again_unlogged_when_addressed(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("", 1.0))              # noise at an always-listening table: silence
    assert speaker.earcons == [] and speaker.spoken == []
    loop.hear(said("hey referee", 2.0))   # the wake phrase alone: the next utterance is addressed
    assert speaker.earcons[-1] == "listening"
    loop.hear(said("", 3.0))              # noise: the recognizer finds no words
    assert speaker.earcons[-1] == "not-understood" and speaker.spoken == ["Say again?"]
    assert logged(tmp_path) == []


def test_words_that_do_not_parse_are_a_logged_rejection(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("raw:send the boat north", 0.5))     # not addressed: chatter, silence
    assert speaker.spoken == [] and logged(tmp_path) == []
    loop.hear(said("raw:hey referee send the boat north", 1.0))
    assert speaker.earcons[-1] == "not-understood" and speaker.spoken == ["Say again?"]
    rejected = read_jsonl(tmp_path / "log.jsonl")[3]
    assert rejected["type"] == "command-rejected"
    assert (rejected["utterance"], rejected["reason"]) == ("send the boat north", "not understood")
    loop.hear(said("repeat", 5.0))        # "say again" is not the announcement to repeat
    assert speaker.spoken[-1] == "Nothing has been said yet."


def test_a_misheard_answer_asks_again_and_keeps_the_command_waiting(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said(SEND, 1.0))
    loop.hear(said("louder", 5.0))        # not an answer: the question's grammar lacks it
    assert speaker.spoken == [ECHO, "Please say yes or no."] and loop.state is LoopState.CONFIRMING
    loop.hear(said("yes", 9.0))
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


def test_an_illegal_guess_is_refused_at_once_not_echoed(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("send north north south west", 1.0))
    assert speaker.spoken == ["North north south west repeats north and misses east. Guess not used."]
    assert logged(tmp_path) == ["command-rejected"] and loop.state is LoopState.LISTENING


def test_queries_apply_at_once(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("how many candidates", 1.0))
    assert speaker.spoken == ["24 candidates remain."] and logged(tmp_path) == []


def test_the_grammar_is_narrowed_to_the_state(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path)
    recognizer = loop.recognizer
    loop.hear(said(SEND, 1.0))
    listening = recognizer.grammars[-1]
    assert PLAIN in listening.phrases and "yes" in listening.phrases
    assert not any("anchor" in p for p in listening.phrases)   # no keeper: no spoken totals
    loop.hear(said("yes", 5.0))
    confirming = recognizer.grammars[-1]
    assert set(confirming.phrases) >= {"yes", "no", "cancel", "repeat"}
    assert PLAIN not in confirming.phrases and "louder" not in confirming.phrases


def test_voice_controls_change_the_voice_and_log_nothing(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    volume, rate = loop.voice.volume, loop.voice.rate_wpm
    loop.run([said("louder", 1.0), said("slower", 5.0), said("softer", 9.0), said("softer", 13.0),
              said("faster", 17.0)])
    assert speaker.spoken == ["Louder, like this.", "Slower, like this.", "Softer, like this.",
                              "Softer, like this.", "Faster, like this."]
    step, rate_step = 10 ** (loop.settings.volume_step_db / 20), loop.settings.rate_step_wpm
    assert speaker.settings[0] == (pytest.approx(volume * step, abs=1e-3), rate)
    assert speaker.settings[1] == (pytest.approx(volume * step, abs=1e-3), rate - rate_step)
    assert speaker.settings[3][0] == pytest.approx(volume / step, abs=1e-3)
    assert speaker.settings[4][1] == rate
    assert logged(tmp_path) == []


def test_stop_listening_pauses_until_start_listening(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.hear(said("stop listening", 1.0))
    assert loop.state is LoopState.PAUSED
    loop.hear(said(SEND, 5.0))
    loop.hear(said("status", 8.0))
    assert speaker.spoken == ["I stop listening. Say start listening when you want me back."]
    assert [d.reason for d in loop.discarded] == ["paused", "paused"]
    loop.hear(said("start listening", 10.0))
    assert loop.state is LoopState.LISTENING and speaker.spoken[-1] == "I am listening."
    loop.hear(said(SEND, 14.0))
    assert speaker.spoken[-1] == ECHO and logged(tmp_path) == []


def test_wake_phrase_gates_commands(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, wake_phrase=True, armed_window_seconds=5.0)
    assert loop.state is LoopState.DORMANT
    loop.hear(said("status", 1.0))                      # table chatter that decodes as a command
    assert speaker.spoken == [] and [d.reason for d in loop.discarded] == ["not-armed"]
    loop.hear(said("hey referee", 3.0))
    assert speaker.earcons[-1] == "listening" and loop.state is LoopState.LISTENING
    loop.hear(said(SEND, 5.0))
    assert speaker.spoken == [ECHO]
    loop.hear(said("yes", 9.0))                         # the answer needs no wake phrase
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert loop.state is LoopState.DORMANT
    loop.hear(said("status", 20.0))                     # dormant again
    assert loop.discarded[-1].reason == "not-armed"
    loop.hear(said("hello facilitator", 22.0))
    loop.hear(said("status", 40.0))                     # after the window closed
    assert loop.discarded[-1].reason == "not-armed"
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


def test_push_to_talk_gates_commands(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path, push_to_talk=True, armed_window_seconds=3.0)
    loop.hear(said("status", 1.0))
    assert speaker.spoken == [] and loop.discarded[-1].reason == "not-armed"
    loop.press(4.0)
    loop.hear(said("status", 5.0, 3.0))                 # said while the button is held
    loop.release(8.5)
    # one answer: status's first sentence leads (the rest is paged or follows it)
    assert speaker.spoken[0] == "Leg 1 of 3, guess 1 of 4: Player 1 is captain."
    answered = len(speaker.spoken)
    loop.hear(said("help", 20.0))                       # one press, one command
    assert loop.discarded[-1].reason == "not-armed" and len(speaker.spoken) == answered
    loop.press(30.0)
    loop.release(30.1)                                  # a tap arms the next few seconds
    loop.hear(said("how many candidates", 31.0))
    assert speaker.spoken[-1] == "24 candidates remain."


def test_a_press_whose_line_was_heard_arms_nothing_after_release(tmp_path: Path) -> None:
    """The line said while the button was held was heard before the release: the next line
    (chatter by someone else) is not taken, and "Say again?" does not arm the loop either."""
    loop, speaker, _ = make(tmp_path, push_to_talk=True, armed_window_seconds=6.0)
    loop.press(0.8)
    loop.hear(said("status", 1.0))                      # heard while held (an early finish)
    loop.release(2.2)
    answered = len(speaker.spoken)
    loop.hear(said("help", 6.0))                        # within 6 s of the release, not pressed
    assert loop.discarded[-1].reason == "not-armed" and len(speaker.spoken) == answered
    loop.press(20.0)
    loop.hear(said("raw:blah blah", 20.2))              # pressed, not understood: "Say again?"
    loop.release(21.5)
    loop.hear(said("status", 23.0))                     # not pressed: not taken
    assert loop.discarded[-1].reason == "not-armed"


def test_the_loop_ends_with_the_game(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    script, t = [], 1.0
    for route in ("east south north west", "north east south west", "west south east north"):
        script += [said(f"send {route}", t), said("yes", t + 4.0)]
        t += 20.0
    script.append(said("status", t))                    # never heard: the game is over
    assert loop.run(script) is LoopState.DONE
    assert speaker.spoken[-1] == "The voyage is over: all 3 legs solved. A perfect voyage!"
    assert read_jsonl(tmp_path / "log.jsonl")[-1]["type"] == "voyage-ended"
    assert loop.recognizer.decoded[-1] == "yes"


def test_quit_is_confirmed_then_ends_the_loop(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    assert loop.run([said("quit", 1.0), said("yes", 5.0), said("status", 10.0)]) is LoopState.DONE
    assert speaker.spoken == ["Quit. Is that right?", "Goodbye."]


def test_typed_lines_apply_at_the_next_tick_unconfirmed(tmp_path: Path) -> None:
    loop, speaker, captions = make(tmp_path)
    loop.submit_text("send NESW")
    loop.run([Tick(0.5)])
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert captions.lines == speaker.spoken


def test_every_spoken_sentence_is_captioned(tmp_path: Path) -> None:
    loop, speaker, captions = make(tmp_path)
    loop.run([said(SEND, 1.0), said("yes", 5.0), said("louder", 12.0), said("", 17.0)])
    assert captions.lines == speaker.spoken and len(speaker.spoken) == 4
    assert captions.heard_lines == [PLAIN, "yes", "louder"]


def test_earcons_count_as_assistant_sound(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path, earcon_seconds=0.5)
    loop.hear(said(SEND, 1.0))            # earcon 2.0-2.5, echo 2.5-4.5, deaf until 4.8
    loop.hear(said("yes", 4.6, 0.3))      # too little of it after the deaf window
    assert loop.discarded[-1].reason == "half-duplex"
    loop.hear(said("yes", 6.0))           # after the "not understood" sound for the lost one
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


def test_repeat_after_a_cancel_replays_the_last_game_announcement(tmp_path: Path) -> None:
    loop, speaker, _ = make(tmp_path)
    loop.run([said("how many candidates", 1.0), said(SEND, 5.0), said("no", 9.0), said("repeat", 13.0)])
    assert speaker.spoken == ["24 candidates remain.", ECHO, "Cancelled.", "24 candidates remain."]


class BrokenSpeaker(RecordingSpeaker):
    """A sound card that vanishes after the first sentence."""

    def speak(self, text: str) -> float:
        if self.spoken:
            raise DeviceError("cannot play audio on device 3: device unavailable")
        return super().speak(text)


def test_a_speaker_that_fails_mid_game_leaves_captions_and_the_game_goes_on(tmp_path: Path) -> None:
    voice = VoiceSettings()
    warnings: list[str] = []
    captions = CaptionLog()
    loop = ListenLoop(compass_session(tmp_path), ScriptedRecognizer(), BrokenSpeaker(voice), voice,
                      captions, LoopSettings(earcon_seconds=0.0), warn=warnings.append)
    _open.append(loop)
    loop.run([said("status", 1.0), said(SEND, 10.0), said("yes", 20.0)])
    assert len(warnings) == 1 and "printed only" in warnings[0]
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert captions.lines[-2] == "North east south west: 1 anchor, 2 clockwise steps."


def test_early_endpointing_asks_about_the_grammar_of_the_next_utterance(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path)
    assert loop.complete(PLAIN.encode()) and not loop.complete(b"send north east")
    assert not loop.complete(b"hey referee")         # the command may follow in the same breath
    loop.hear(said(SEND, 1.0))                       # now a yes or no is expected
    assert loop.complete(b"yes") and not loop.complete(PLAIN.encode())


def test_no_early_endpointing_while_waiting_for_push_to_talk(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path, push_to_talk=True)
    assert not loop.complete(b"status")
    loop.press(0.0)
    assert loop.complete(b"status")


def test_the_wake_grammar_holds_the_commands_as_competitors(tmp_path: Path) -> None:
    loop, _, _ = make(tmp_path, wake_phrase=True)
    wake = loop.wake_grammar()
    assert set(loop.wake_phrases()) <= set(wake.phrases)
    assert PLAIN in wake.phrases and "yes please" in wake.phrases
    loop.hear(said("yes please", 1.0))          # decodes as itself: no wake, nothing done
    assert loop.state is LoopState.DORMANT and loop.discarded[-1].reason == "not-armed"
