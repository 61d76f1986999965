"""The conversation around the rules, with small fakes (times in stream seconds).

The recording speaker takes 2 s a sentence, earcons take no time, the deaf window
after the assistant's sound is 0.3 s and the undo window after an implicit echo
3 s.  The scripted recognizer is sure of what it hears unless told ``unsure:``.
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
    said_after,
)
from support import read_jsonl

from facilitator.grammar import load_grammar
from facilitator.session import Session
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, LoopState, Tick

SEND = "send north east south west"           # route NESW; leg 1 hides ESNW: 1 anchor, 2 steps
ECHO = "Send north east south west."
ASK = "Send north east south west. Is that right?"
SCORED = ["North east south west: 1 anchor, 2 clockwise steps.", "Guess 2 of 4: Player 2 is captain."]

_open = OPENED


def make(tmp_path: Path, **settings: object) -> tuple[ListenLoop, RecordingSpeaker]:
    voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    speaker = RecordingSpeaker(voice)
    loop = ListenLoop(compass_session(tmp_path), ScriptedRecognizer(), speaker, voice, CaptionLog(),
                      LoopSettings(**{"earcon_seconds": 0.0, "implicit_window_seconds": 3.0,
                                      **settings}))  # type: ignore[arg-type]
    _open.append(loop)
    return loop, speaker


def logged(tmp_path: Path) -> list[str]:
    """Event types after the opening ones (game-started, leg-started, captain-named)."""
    return [e["type"] for e in read_jsonl(tmp_path / "log.jsonl")][3:]


# -- confirm only when it matters ---------------------------------------------------
def test_a_sure_guess_is_echoed_and_applied_when_the_undo_window_closes(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said(SEND, 1.0))                 # echo 2.0-4.0, deaf until 4.3, window until 7.3
    assert speaker.spoken == [ECHO] and loop.state is LoopState.HOLDING
    loop.tick(7.0)
    assert logged(tmp_path) == []              # nothing applied or logged inside the window
    loop.tick(7.4)
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert speaker.spoken == [ECHO, *SCORED] and loop.state is LoopState.LISTENING
    assert (loop.asked, loop.held) == (0, 1)


@pytest.mark.parametrize("answer", ["undo that", "no", "cancel"])
def test_undo_in_the_window_takes_the_guess_back_and_logs_nothing(tmp_path: Path, answer: str) -> None:
    loop, speaker = make(tmp_path)
    loop.run([said(SEND, 1.0), said(answer, 5.0), Tick(30.0)])
    assert speaker.spoken == [ECHO, "Cancelled."]
    assert logged(tmp_path) == [] and loop.session.state.guess == 1 and loop.undone == 1


def test_yes_in_the_window_applies_at_once(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said(SEND, 1.0))
    loop.hear(said("yes", 4.5))
    assert logged(tmp_path) == ["guess-scored", "captain-named"] and speaker.spoken == [ECHO, *SCORED]


def test_another_command_in_the_window_applies_the_held_one_first(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said(SEND, 1.0))
    loop.hear(said("how many candidates", 4.5))
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert speaker.spoken == [ECHO, *SCORED, speaker.spoken[-1]]
    assert speaker.spoken[-1].endswith("candidates remain.") and not speaker.spoken[-1].startswith("24")


@pytest.mark.parametrize("again", [SEND, "unsure:" + SEND, "hey referee " + SEND])
def test_the_same_command_said_again_in_its_window_is_applied_once(tmp_path: Path, again: str) -> None:
    """A player who hears nothing applied yet says the guess again: that confirms it."""
    loop, speaker = make(tmp_path)
    loop.run([said(SEND, 1.0), said(again, 4.5), Tick(9.0), Tick(30.0)])
    assert logged(tmp_path) == ["guess-scored", "captain-named"]   # one guess, not two
    assert loop.session.state.guess == 2 and loop.repeated == 1
    assert speaker.spoken == [ECHO, *SCORED]                        # applied at once, no second echo


def test_another_guess_in_the_window_replaces_the_held_one(tmp_path: Path) -> None:
    """A different route said inside the window is the player's correction: the held guess is
    dropped unapplied and the new one is echoed in its place."""
    loop, speaker = make(tmp_path)
    loop.run([said(SEND, 1.0), said("send west south east north", 4.5), Tick(30.0)])
    assert speaker.spoken[:2] == [ECHO, "Send west south east north."]
    scored = [e for e in read_jsonl(tmp_path / "log.jsonl") if e["type"] == "guess-scored"]
    assert [e["route"] for e in scored] == ["WSEN"] and loop.corrected == 1


def test_a_correction_the_rules_refuse_keeps_the_held_guess(tmp_path: Path) -> None:
    loop, _speaker = make(tmp_path)
    loop.run([said(SEND, 1.0), said("send north north south west", 4.5), Tick(30.0)])
    scored = [e for e in read_jsonl(tmp_path / "log.jsonl") if e["type"] == "guess-scored"]
    assert [e["route"] for e in scored] == ["NESW"] and loop.corrected == 0


def test_a_repeat_begun_in_the_window_but_heard_after_it_closed_is_applied_once(tmp_path: Path) -> None:
    """The window closes while the player is still saying the guess again: the held guess is
    applied when it closes, and the repeat, heard a moment later, applies nothing more."""
    loop, speaker = make(tmp_path)            # echo 2.0-4.0, deaf until 4.3, window until 7.3
    loop.run([said(SEND, 1.0), said(SEND, 6.8, 1.5), Tick(30.0)])
    assert logged(tmp_path) == ["guess-scored", "captain-named"] and loop.repeated == 1
    assert speaker.spoken == [ECHO, *SCORED]


def test_the_same_guess_begun_after_the_window_closed_is_a_new_guess(tmp_path: Path) -> None:
    loop, _ = make(tmp_path)
    loop.run([said(SEND, 1.0), said(SEND, 12.0), Tick(40.0)])
    scored = [e for e in read_jsonl(tmp_path / "log.jsonl") if e["type"] == "guess-scored"]
    assert len(scored) == 2 and loop.repeated == 0


def test_chatter_in_the_window_changes_nothing(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.run([said(SEND, 1.0), said("raw:ha ha what a guess", 4.5), said("", 5.8)])
    # the input ended: the window closed with nothing taking the guess back
    assert speaker.spoken == [ECHO, *SCORED]
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


def test_an_unsure_guess_is_asked_and_applied_only_on_yes(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))
    assert speaker.spoken == [ASK] and loop.state is LoopState.CONFIRMING
    loop.tick(11.0)                            # the question does not close by itself early
    assert logged(tmp_path) == []
    loop.hear(said("yes", 11.5))
    assert logged(tmp_path) == ["guess-scored", "captain-named"] and (loop.asked, loop.held) == (1, 0)


def test_irreversible_commands_are_asked_even_when_heard_sure(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("quit", 1.0))
    assert speaker.spoken == ["Quit. Is that right?"] and loop.state is LoopState.CONFIRMING


def test_which_commands_cannot_be_taken_back_is_grammar_data() -> None:
    always = {game: load_grammar(game).always_confirmed for game in
              ("compass-code", "two-windows", "lantern-links", "clover")}
    assert {"new game", "quit"} <= always["compass-code"] and "feedback" in always["compass-code"]
    assert "final" in always["two-windows"] and "finish" in always["lantern-links"]
    assert "commit" in always["clover"]
    # a guess, a bearing check, a tile and a rewind are echoed and may be undone
    assert {"send", "check"} <= load_grammar("compass-code").confirmed - always["compass-code"]
    assert {"play", "pass", "rewind"} <= load_grammar("lantern-links").confirmed - always["lantern-links"]


# -- replies and prompts ---------------------------------------------------------
def test_a_quick_yes_that_merged_with_the_prompt_is_trimmed_and_kept(tmp_path: Path) -> None:
    loop, _speaker = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))     # the question from 2.0 to 4.0, deaf until 4.3
    # the endpointer joined the tail of the question's echo (3.5-4.3) and "yes" into one utterance
    loop.hear(said_after("yes", 3.5, echo_seconds=0.8, seconds=0.5))
    assert logged(tmp_path) == ["guess-scored", "captain-named"]
    assert loop.discarded == []


def test_a_reply_right_after_the_earcon_is_trimmed_and_kept(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path, wake_phrase=True, earcon_seconds=0.3)
    loop.hear(said("hey referee", 1.0))        # the listening earcon 2.0-2.3, deaf until 2.6
    loop.hear(said_after("how many candidates", 2.1, echo_seconds=0.5))
    assert speaker.spoken == ["24 candidates remain."]


def test_the_trimmed_part_is_all_that_is_decoded(tmp_path: Path) -> None:
    loop, _ = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))
    segment = said_after("yes", 3.5, echo_seconds=0.8, seconds=0.5)
    loop.hear(segment)
    assert loop.current is not None and loop.current.start == pytest.approx(4.3)
    assert loop.current.pcm == b"yes"


def test_wake_phrase_and_command_in_one_breath(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path, wake_phrase=True)
    loop.hear(said("hey referee how many candidates", 1.0))
    assert speaker.spoken == ["24 candidates remain."]
    loop.hear(said("hello facilitator " + SEND, 5.0))
    assert speaker.spoken[-1] == ECHO
    assert "hey referee " + SEND in loop.wake_grammar().phrases


def test_a_lost_reply_to_a_question_gets_a_sound_not_silence(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))     # deaf until 4.3
    loop.hear(said("yes", 3.9, 0.5))           # only 0.1 s of it after the deaf window
    assert loop.discarded[-1].reason == "half-duplex" and speaker.earcons[-1] == "not-understood"


def test_the_assistants_own_echo_is_dropped_silently(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))     # the question 2.0-4.0
    earcons = list(speaker.earcons)
    loop.hear(said("yes", 2.5, 1.5))           # inside the question: its own voice in the microphone
    assert loop.discarded[-1].reason == "half-duplex" and speaker.earcons == earcons


def test_while_a_question_is_open_anything_else_gets_please_say_yes_or_no(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))
    loop.hear(said("louder", 5.0))
    assert speaker.spoken == [ASK, "Please say yes or no."] and loop.state is LoopState.CONFIRMING
    assert loop.voice.volume == VoiceSettings().volume


def test_a_question_does_not_stay_open_for_ever_while_the_table_talks(tmp_path: Path) -> None:
    """Talk that is no answer gets "Please say yes or no." twice, then the question once
    more, saying it did not catch the answer; the next closes it saying what was cancelled
    (nothing applied).  (Updated for issue 40: it used to close silently on the third line,
    as if nothing had been said.)"""
    loop, speaker = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))                 # asked 2.0-4.0
    for t in (5.0, 9.0, 13.0, 17.0):
        loop.hear(said("raw:what did he say", t))
    assert speaker.spoken == [ASK, "Please say yes or no.", "Please say yes or no.",
                              "I didn't catch that. Send north east south west: yes or no?",
                              "I didn't catch the answer, so cancelled: send north east south west."]
    assert loop.state is LoopState.LISTENING and logged(tmp_path) == []


def test_a_query_answered_during_a_question_says_which_utterance_it_came_from(tmp_path: Path) -> None:
    loop, _ = make(tmp_path)
    seen = []
    execute = loop.session.execute

    def watched(command):  # type: ignore[no-untyped-def]
        seen.append((command.intent, loop.applying_from))
        return execute(command)

    loop.session.execute = watched  # type: ignore[method-assign]
    loop.hear(said("unsure:" + SEND, 1.0))
    question = said("how many candidates", 5.0)
    loop.hear(question)
    assert seen == [("candidates", question)]


def test_help_repeat_and_queries_are_answered_during_a_question_which_stays_open(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))
    loop.hear(said("what can i say", 5.0))
    assert speaker.spoken[-1] == "Say yes to do it, or no to cancel: Send north east south west."
    loop.hear(said("how many candidates", 9.0))
    assert speaker.spoken[-1] == "24 candidates remain."
    loop.hear(said("repeat", 13.0))
    assert speaker.spoken[-1] == ASK and loop.state is LoopState.CONFIRMING
    loop.hear(said("yes", 17.0))
    assert logged(tmp_path) == ["guess-scored", "captain-named"]


# -- silence to chatter ------------------------------------------------------------
def test_chatter_at_an_always_listening_table_is_met_with_silence(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.run([
        said("raw:pass the crisps please", 1.0),   # not a command at all
        said("", 3.0),                             # laughter: no words
        said("unsure:louder", 5.0),                # laughter heard, unsure, as "louder"
        said("unsure:faster", 7.0),                # "pass the crisps please" heard as "faster"
        said("unsure:status", 9.0),                # "hmm I think it's north" heard as "status"
        said("unsure:yes", 11.0),                  # "yeah" with nothing asked
        said("unsure:send north north south west", 13.0),   # an illegal route: not refused aloud
    ])
    assert speaker.spoken == [] and speaker.earcons == ["listening"]
    assert loop.voice == VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
    assert logged(tmp_path) == [] and loop.chatter == 7


def test_an_unsure_query_said_again_is_answered(tmp_path: Path) -> None:
    """A player who got silence says the question again: the second unsure hearing of the same
    query, soon after, is answered (the light mode's way to answer without the wake phrase)."""
    loop, speaker = make(tmp_path)
    loop.run([said("unsure:status", 1.0), said("unsure:status", 5.0), Tick(30.0)])
    assert speaker.spoken and speaker.spoken[0].startswith("Leg 1 of 3")
    assert loop.chatter == 1


@pytest.mark.parametrize("second", [("unsure:how many candidates", 5.0), ("unsure:status", 30.0)])
def test_another_query_or_the_same_one_much_later_is_still_chatter(tmp_path: Path,
                                                                   second: tuple[str, float]) -> None:
    loop, speaker = make(tmp_path)
    loop.run([said("unsure:status", 1.0), said(*second), Tick(60.0)])
    assert speaker.spoken == [] and loop.chatter == 2


def test_an_unsure_guess_said_twice_is_still_asked(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("unsure:" + SEND, 1.0))
    assert speaker.spoken == [ASK]


def test_an_unsure_game_command_never_reaches_the_referee_without_yes(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.run([said("unsure:" + SEND, 1.0), said("raw:no I was talking to Sam", 5.0)])
    assert logged(tmp_path) == []
    # the input ended after a reply that was no yes or no: closed, saying so (issue 40)
    assert speaker.spoken[0] == ASK
    assert speaker.spoken[-1] == "I didn't catch the answer, so cancelled: send north east south west."


def test_a_query_after_the_wake_phrase_is_answered_even_when_unsure(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("hey referee", 1.0))                  # on its own: the next utterance is addressed
    loop.hear(said("unsure:how many candidates", 3.0))
    assert speaker.spoken == ["24 candidates remain."]


def test_an_unsure_wake_phrase_in_one_breath_does_not_address_the_referee(tmp_path: Path) -> None:
    # chatter ("pass the crisps please") forced onto a wake phrase and a query
    loop, speaker = make(tmp_path)
    loop.hear(said("unsure:hello facilitator what is the score", 1.0))
    assert speaker.spoken == [] and loop.chatter == 1
    gated, gated_speaker = make(tmp_path / "gated" if (tmp_path / "gated").mkdir() is None else tmp_path,
                                wake_phrase=True)
    gated.hear(said("unsure:hello facilitator what is the score", 1.0))
    assert gated_speaker.spoken == [] and gated.state is LoopState.DORMANT
    # a game command in the same breath is asked, never applied
    gated.hear(said("unsure:hey referee " + SEND, 3.0))
    assert gated_speaker.spoken == [ASK]


# -- what can I say ------------------------------------------------------------------
def test_after_two_failures_in_a_row_the_right_form_is_offered_once(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path, wake_phrase=True)
    loop.hear(said("hey referee", 1.0))
    loop.hear(said("", 2.0))
    assert speaker.spoken == ["Say again?"]
    loop.hear(said("", 5.0))
    help_line = speaker.spoken[-1]
    assert speaker.spoken[-2:] == ["Say again?", help_line] and help_line.startswith("Player 1, as captain, say send")
    loop.hear(said("", 10.0))
    assert speaker.spoken[-1] == "Say again?"   # once


def test_a_refused_command_twice_in_a_row_gets_its_usage(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("send north north south west", 1.0))
    assert speaker.spoken == ["North north south west repeats north and misses east. Guess not used."]
    loop.hear(said("send east east south west", 5.0))
    assert len(speaker.spoken) == 3 and speaker.spoken[1].startswith("East east south west repeats east")
    assert speaker.spoken[2] == loop.session.usage_line("send")


@pytest.mark.parametrize(("line", "intent"), [("check W 5", "check"), ("send", "send"),
                                              ("candidates blue green", "candidates")])
def test_a_typed_line_that_starts_like_a_command_gets_its_usage(tmp_path: Path, line: str,
                                                                 intent: str) -> None:
    session = compass_session(tmp_path)
    try:
        reply = session.handle(line)
        assert reply.public == [session.usage_line(intent)] and reply.public != ["Say again?"]
        rejected = read_jsonl(tmp_path / "log.jsonl")[-1]
        assert (rejected["type"], rejected["reason"]) == ("command-rejected", "not understood")
        assert session.handle("blah blah").public == ["Say again?"]
    finally:
        session.log.close()


def test_a_usage_line_falls_back_when_a_game_has_none(tmp_path: Path) -> None:
    session = compass_session(tmp_path)
    try:
        session.phrases.responses.pop("usage-check", None)
        assert session.usage_line("check") == \
            "That is not how to say check. Say help to hear what you can say now."
    finally:
        session.log.close()


# -- paging ------------------------------------------------------------------------
ANSWER = ["Leg 1, guess 1 of 4.", "Player 1 is captain.", "24 candidates remain."]


def answer_in_three(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee's status answer becomes three sentences (the games' engineers chunk
    their long answers this way)."""
    monkeypatch.setattr(session.referee, "query", lambda state, command, phrases: list(ANSWER))


def test_a_long_answer_is_said_a_sentence_at_a_time_in_text_play(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    session = compass_session(tmp_path)
    answer_in_three(session, monkeypatch)
    try:
        assert session.handle("status").public == ["Leg 1, guess 1 of 4.", "Say go on for more."]
        assert session.handle("go on").public == ["Player 1 is captain."]
        assert session.handle("tell me more").public == ["24 candidates remain."]
        assert session.handle("go on").public == ["That is all."]
        assert session.handle("status").public == ["Leg 1, guess 1 of 4."]   # the cue is said once
    finally:
        session.log.close()


def test_paging_by_voice_is_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loop, speaker = make(tmp_path)
    answer_in_three(loop.session, monkeypatch)
    loop.run([said("status", 1.0), said("more", 8.0), said("go on", 12.0)])
    assert speaker.spoken == ["Leg 1, guess 1 of 4.", "Say go on for more.", "Player 1 is captain.",
                              "24 candidates remain."]
    assert logged(tmp_path) == []


def test_in_two_windows_more_stays_the_reveal_and_go_on_pages() -> None:
    grammar = load_grammar("two-windows")
    assert grammar.parse("more", typed=False).intent == "more"          # type: ignore[union-attr]
    assert grammar.parse("go on", typed=False).intent == "go on"        # type: ignore[union-attr]
    assert grammar.parse("tell me more", typed=False).intent == "go on"  # type: ignore[union-attr]


def test_a_command_that_cannot_be_taken_back_heard_unsure_is_asked_only_when_said_again(tmp_path: Path) -> None:
    loop, speaker = make(tmp_path)
    loop.hear(said("unsure:restart the leg", 1.0))     # chatter forced onto the grammar, perhaps
    assert speaker.spoken == [] and loop.state is LoopState.LISTENING
    loop.hear(said("unsure:restart the leg", 4.0))     # said again soon: a player means it
    assert speaker.spoken == ["Restart the leg. Is that right?"]
    loop.hear(said("no", 8.0, 0.5))
    assert logged(tmp_path) == []
