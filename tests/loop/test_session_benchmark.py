"""The table-session benchmark's own rules: levels, how a session's trace is scored
(``benchmarks/session/score.py``), and that a short session runs through the real
loop and is scored.

The scoring rules are stated on hand-made traces, one per rule, and checked on a
trace recorded from a real run (``tests/audio/sessions/traces/``): what the
players said when, what the loop executed because of which utterance, and what
it said.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.session import room, score, table
from facilitator.speech.base import SAMPLE_RATE

TRACES = Path(__file__).resolve().parent.parent / "audio" / "sessions" / "traces"


def _tone(seconds: float, amplitude: float) -> np.ndarray:
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    return amplitude * np.sin(2 * np.pi * 220 * t)


def test_level_sets_the_speech_active_power() -> None:
    x = np.concatenate([np.zeros(8000), _tone(1.0, 1000.0), np.zeros(8000)])
    out = room.level(x, -26.0)
    assert 10 * np.log10(room.active_power(out) / 32768.0**2) == pytest.approx(-26.0, abs=0.1)


def test_reverb_keeps_the_direct_sound_and_adds_a_tail() -> None:
    ir = room.impulse_response(rt60=0.35)
    assert ir[0] == 1.0 and len(ir) > 0.3 * SAMPLE_RATE
    click = np.zeros(1000)
    click[0] = 1.0
    wet = room.reverb(click, ir)
    assert wet[0] == pytest.approx(1.0) and np.abs(wet[2000:4000]).max() > 0


# -- hand-made traces ---------------------------------------------------------------

def line(kind: str, start: float, end: float, command: int = -1, meant: str = "", attempt: int = 0,
         text: str = "") -> dict[str, Any]:
    return {"kind": kind, "text": text or meant or kind, "voice": "v", "start": start, "end": end,
            "command": command, "meant": meant, "attempt": attempt}


def applied(at: float, canonical: str, cause: list[float] | None, *, accepted: bool = True,
            query: bool = False, how: str = "applied") -> dict[str, Any]:
    return {"at": at, "canonical": canonical, "intent": canonical.split()[0], "cause": cause,
            "accepted": accepted, "query": query, "how": how}


def sound(at: float, text: str, cause: list[float] | None = None, about: list[float] | None = None) -> dict[str, Any]:
    return {"at": at, "text": text, "cause": cause, "about": about}


def trace(said: list[dict[str, Any]], commands: list[str], executed: list[dict[str, Any]],
          sounds: list[dict[str, Any]] | None = None, ended_at: float = 60.0, over: bool = False,
          segments: list[list[float]] | None = None) -> dict[str, Any]:
    return {"said": said, "commands": [{"canonical": c, "text": c} for c in commands],
            "executed": executed, "sounds": sounds or [], "ended_at": ended_at, "over": over,
            "segments": segments if segments is not None else [[u["start"] - 0.1, u["end"] + 0.3] for u in said],
            "control_texts": ["Louder, like this."], "control_intents": ["louder", "start listening"],
            "say_again": "Say again?"}


SEND = "send north east south west"


def test_a_released_hold_is_credited_to_the_line_it_was_heard_in_not_to_the_last_line_heard() -> None:
    # "send ..." is echoed and held; a chatter line is heard; then the window closes by
    # itself and the loop applies the command heard in the player's line
    said = [line("command", 1.0, 2.5, 0, SEND, 1), line("chatter", 5.0, 6.0, text="send it over")]
    got = score.score(trace(said, [SEND], [applied(7.5, SEND, [0.9, 2.8])],
                            [sound(3.0, "Send north east south west.", [0.9, 2.8], [0.9, 2.8])]))
    assert [(c.understood_at, c.applied) for c in got.commands] == [(1, 1)]
    assert (got.wrong_actions, got.chatter_reached) == (0, 0)
    # the same application charged to the last line heard is what the old scorer did:
    # a wrong action from chatter and a command never understood
    blamed = score.score(trace(said, [SEND], [applied(7.5, SEND, [4.9, 6.3])]))
    assert [c.understood_at for c in blamed.commands] == [0]
    assert (blamed.wrong_chatter, blamed.chatter_reached) == (1, 1)


def test_a_game_ending_command_is_credited() -> None:
    # "finish the route" -> "... Is that right?" -> "yes" -> game over: nothing after the
    # players' last line ran, the trace holds the application
    said = [line("command", 1.0, 2.0, 0, "finish", 1, "finish the route"), line("answer", 4.0, 4.4, 0, "yes", 1)]
    got = score.score(trace(said, ["finish"], [applied(4.9, "finish", [0.9, 2.3])],
                            [sound(2.5, "Finish. Is that right?", [0.9, 2.3], [0.9, 2.3])],
                            ended_at=5.0, over=True))
    assert [(c.canonical, c.tries, c.understood_at) for c in got.commands] == [("finish", 1, 1)]


def test_a_command_the_game_ended_before_is_not_counted_as_said() -> None:
    said = [line("command", 1.0, 2.0, 0, "finish", 1), line("command", 5.5, 6.5, 1, "status", 1)]
    # the game ended while the second command was being said: no segment of it was cut
    got = score.score(trace(said, ["finish", "status"], [applied(4.0, "finish", [0.9, 2.3])],
                            ended_at=5.9, over=True, segments=[[0.9, 2.3]]))
    assert [c.canonical for c in got.commands] == ["finish"]
    # a line that ended in time to be heard is said, heard or not
    later = score.score(trace(said, ["finish", "status"], [applied(4.0, "finish", [0.9, 2.3])],
                              ended_at=8.0, over=True, segments=[[0.9, 2.3]]))
    assert [c.canonical for c in later.commands] == ["finish", "status"]
    # and so is one the endpointer cut, though the run stopped right after it
    cut = score.score(trace(said, ["finish", "status"], [applied(4.0, "finish", [0.9, 2.3])],
                            ended_at=6.6, over=True, segments=[[0.9, 2.3], [5.4, 6.6]]))
    assert [c.canonical for c in cut.commands] == ["finish", "status"]


def test_a_repeat_inside_the_undo_window_is_counted_once() -> None:
    # the player heard only the echo and said it again: the loop applied the held command
    # once, heard in the first try
    said = [line("command", 1.0, 2.5, 0, SEND, 1), line("command", 4.2, 5.8, 0, SEND, 2)]
    once = score.score(trace(said, [SEND], [applied(6.2, SEND, [0.9, 2.8])]))
    assert [(c.tries, c.understood_at, c.applied) for c in once.commands] == [(2, 1, 1)]
    assert once.applied_twice == 0 and once.wrong_actions == 0
    # applied for both tries: counted as applied twice, never as a wrong action
    twice = score.score(trace(said, [SEND], [applied(3.9, SEND, [0.9, 2.8]), applied(6.2, SEND, [4.1, 6.1])]))
    assert [(c.understood_at, c.applied) for c in twice.commands] == [(1, 2)]
    assert twice.applied_twice == 1 and twice.wrong_actions == 0


def test_wrong_actions_are_counted_by_where_they_came_from() -> None:
    said = [line("chatter", 1.0, 2.0, text="we could send them north"),
            line("command", 4.0, 5.0, 0, "final oak", 1),
            line("chatter", 8.0, 9.0, text="what is the score"),
            line("chatter", 11.0, 12.0, text="play the moon")]
    executed = [
        applied(2.5, "send north east south west", [0.9, 2.2]),   # a move from chatter
        applied(5.5, "final pine", [3.9, 5.2]),                   # the player meant final oak
        applied(9.5, "status", [7.9, 9.2], accepted=False, query=True),   # answered, changes nothing
        applied(12.5, "play moon", [10.9, 12.2], accepted=False),  # refused by the rules
        applied(15.0, "play sun", [14.0, 14.8]),                   # heard in no player's line
        applied(16.0, "help", None, how="internal"),               # the loop's own hint
    ]
    got = score.score(trace(said, ["final oak"], executed))
    assert (got.wrong_chatter, got.wrong_misheard) == (2, 1)
    assert got.chatter_reached == 3   # the move, the answered query and the refusal
    assert [c.understood_at for c in got.commands] == [0]


def test_a_question_or_echo_about_chatter_is_chatter_reaching_the_referee() -> None:
    said = [line("chatter", 1.0, 2.0, text="replace it"), line("answer", 3.5, 3.8, meant="no"),
            line("chatter", 6.0, 7.0, text="louder please"), line("chatter", 9.0, 10.0, text="what did he say"),
            line("chatter", 12.0, 13.0, text="hmm")]
    sounds = [sound(2.3, "Replace packet. Is that right?", [0.9, 2.2], [0.9, 2.2]),
              sound(4.2, "Cancelled.", [3.4, 4.0]),
              sound(7.3, "Louder, like this.", [5.9, 7.2]),
              sound(10.3, "Packet 7 replaces packet 10.", [8.9, 10.2]),    # a repeat answered
              sound(13.3, "Say again?", [11.9, 13.2]),                        # counted on its own
              sound(13.9, "No answer, so cancelled.", None)]                  # time passed: nobody's
    got = score.score(trace(said, [], [], sounds))
    assert got.chatter_reached == 3
    assert got.say_again_chatter == 1
    assert (got.wrong_chatter, got.wrong_misheard) == (1, 0)   # the control obeyed; the question took nothing


def test_a_control_a_player_asked_for_is_not_a_wrong_action() -> None:
    said = [line("answer", 1.0, 2.0, meant="louder")]
    got = score.score(trace(said, [], [], [sound(2.3, "Louder, like this.", [0.9, 2.2])]))
    assert got.wrong_actions == 0


# -- a recorded run ---------------------------------------------------------------------

def recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((TRACES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def last_heard_before(t: dict[str, Any], at: float) -> list[float]:
    """The old scorer's attribution: the segment heard last before the application."""
    return max((s for s in t["segments"] if s[1] <= at + 1e-6), key=lambda s: s[1])


def test_a_recorded_compass_code_voyage_is_scored_by_the_hearing_that_was_applied() -> None:
    # a real run (quiet room, held-out voices, both engines): every send is echoed and
    # held; the players say it again inside the window; the voyage ends on the last send
    t = recorded("compass-code-quiet")
    got = score.score(t)
    said = t["said"]
    assert t["over"] and t["mode"] == "always"
    assert [(c.canonical, c.understood_at) for c in got.commands] == [
        ("send nesw", 1), ("send ewns", 1), ("send snwe", 1), ("send nesw", 1), ("send nwse", 1),
        ("status", 1), ("send enws", 1)]   # the last one ended the game, and is credited
    # one repeat reached the loop after its window had closed: a second guess, counted once as such
    assert got.applied_twice == 1 and [c.applied for c in got.commands].count(2) == 1
    assert (got.wrong_chatter, got.wrong_misheard, got.chatter_reached) == (0, 0, 0)
    # what the old rule would have blamed: applications made after a chatter line, or
    # after the assistant's own echo, were heard in a player's command
    blamed = [score.line_of(last_heard_before(t, d["at"]), said) for d in t["executed"] if d["how"] != "internal"]
    assert None in blamed
    assert any(k is not None and said[k]["kind"] == "chatter" for k in blamed)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_another_seats_line_applied_is_a_wrong_seat_and_a_refused_own_line_is_counted() -> None:
    """Array mode: an intruder's role command applied is a wrong-seat action (not a
    mishearing); a refusal met by a player's own command is the right seat refused; a
    refusal of the intruder is what should happen and counts neither."""
    said = [line("intruder", 1.0, 2.0, 0, SEND, 1),
            line("command", 4.0, 5.0, 0, SEND, 1),
            line("command", 8.0, 9.0, 0, SEND, 2),
            line("intruder", 12.0, 13.0, 1, "send south west north east", 1)]
    executed = [applied(9.5, SEND, [7.9, 9.2]),
                applied(13.5, "send south west north east", [11.9, 13.2])]
    sounds = [sound(2.3, "That is Ann's guess to send.", cause=[0.9, 2.2]),
              sound(5.3, "That is Ann's guess to send.", cause=[3.9, 5.2])]
    got_trace = trace(said, [SEND, "send south west north east"], executed, sounds)
    got_trace["refusal_texts"] = ["That is Ann's guess to send.", "That is Ben's guess to send."]
    got = score.score(got_trace)
    assert (got.intruder_lines, got.wrong_seat, got.right_seat_refused) == (2, 1, 1)
    assert got.wrong_misheard == 0
    assert [c.understood_at for c in got.commands] == [2]


def test_a_question_s_yes_is_heard_when_the_command_is_applied_while_hearing_it() -> None:
    """A player's "yes" to a question counts as heard when the loop applied the command while
    hearing that line; a question by name is counted by the line it asks about; a try said
    after the turn moved on and refused is a late refusal, not the right seat refused."""
    said = [line("command", 1.0, 2.0, 0, SEND, 1),
            line("answer", 4.0, 4.4, 0, "yes", 1),
            line("answer", 6.0, 6.4, 0, "yes", 1),
            line("intruder", 10.0, 11.0, 1, "send south west north east", 1),
            line("answer", 13.0, 13.4, 1, "no", 1),
            {**line("command", 20.0, 21.0, 0, SEND, 2), "may_act": False}]
    executed = [{**applied(6.5, SEND, [0.9, 2.2]), "heard_in": [5.9, 6.6]}]
    sounds = [sound(2.3, "Send north east south west. Is that right?", cause=[0.9, 2.2], about=[0.9, 2.2]),
              sound(4.6, "Please say yes or no.", cause=[3.9, 4.5], about=[0.9, 2.2]),
              sound(11.3, "Ann, was that you: send south west north east?", cause=[9.9, 11.2], about=[9.9, 11.2]),
              sound(21.3, "That is Ben's guess to send.", cause=[19.9, 21.2])]
    got_trace = trace(said, [SEND, "send south west north east"], executed, sounds)
    got_trace["refusal_texts"] = ["That is Ann's guess to send.", "That is Ben's guess to send."]
    got_trace["by_name_texts"] = ["Ann, was that you: ", "Ben, was that you: "]
    got = score.score(got_trace)
    assert (got.yes_said, got.yes_heard) == (2, 1)
    assert (got.by_name_right, got.by_name_intruder) == (0, 1)
    assert (got.right_seat_refused, got.late_refused) == (0, 1)


@pytest.mark.slow
def test_a_short_session_at_a_microphone_array_enrols_every_seat_by_where_it_sits() -> None:
    """The array mode through the real loop on a simulated room: the referee asks each
    seat by name, every seat's line is taken, and the bearing learned for each seat is
    where that seat sits (the room's true bearing, within 20 degrees)."""
    pytest.importorskip("pyroomacoustics")
    from benchmarks.corpus import CHATTER
    from benchmarks.session.array_room import Table as Room
    from facilitator.speech.audio.endpoint import Endpointer
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer
    from facilitator.speech.voices.direction import GEOMETRIES, apart

    seats = ("espeak:en-us", "espeak:en-gb", "espeak:en-us+f3")
    result = table.play("compass-code", "quiet", None, "tuning", seats, 0.5, 29, PocketsphinxRecognizer(),
                        lambda loop: Endpointer(complete=loop.complete), chatter=CHATTER, mode="array",
                        engines="light")
    said = [s["text"] for s in result.trace["sounds"]]
    assert any("Thanks, everyone" in text for text in said), result.transcript
    enrolled = [u for u in result.trace["said"] if u["kind"] == "enroll"]
    assert len(enrolled) >= len(seats)
    assert result.commands and any(c.understood_at for c in result.commands), result.transcript
    bearings = result.trace["bearings"]
    truth = Room(GEOMETRIES["respeaker-4mic-hat"], seats=len(seats), seed=29)
    assert sorted(bearings) == ["1", "2", "3"]
    for seat, degrees in bearings.items():
        assert apart(degrees, truth.seat_bearing(int(seat))) <= 20.0, (seat, degrees, truth.seat_bearing(int(seat)))
    assert result.trace["mode"] == "array"


def test_a_short_push_to_talk_session_in_background_talk_is_played_and_scored() -> None:
    from benchmarks.corpus import CHATTER
    from facilitator.speech.audio.endpoint import Endpointer
    from facilitator.speech.engines.pocketsphinx_engine import PocketsphinxRecognizer

    result = table.play("two-windows", "talk-20", 20.0, "tuning", ("espeak:en-us", "espeak:en-gb", "espeak:en-us+f3"),
                        0.5, 23, PocketsphinxRecognizer(), lambda loop: Endpointer(complete=loop.complete),
                        chatter=CHATTER, mode="ptt", engines="light")
    assert result.commands and result.stream_seconds >= 30
    assert all(0 <= c.understood_at <= c.tries <= table.TRIES for c in result.commands)
    assert any(c.understood_at for c in result.commands), result.transcript
    assert result.capped_segments == 0   # every utterance ended before the cap, talk or not
    assert result.latencies and result.peak_rss_mb > 0
    # the trace is plain JSON and scores again to the same figures
    again = score.score(json.loads(json.dumps(result.trace)))
    assert [c.understood_at for c in again.commands] == [c.understood_at for c in result.commands]
    assert result.trace["mode"] == "ptt"


def test_the_table_has_a_row_per_condition_voices_mode_and_engines() -> None:
    from benchmarks.session import run

    def result(condition: str, mode: str, engines: str, understood: list[int]) -> table.Result:
        r = table.Result(game="clover", condition=condition, voices="held-out", mode=mode, engines=engines,
                         stream_seconds=60.0)
        r.commands = [score.CommandTry("pass", "pass", tries=2, understood_at=u) for u in understood]
        r.wrong_misheard = 1
        return r

    rows = run.summarize([result("quiet", "always", "both", [1, 2]), result("quiet", "ptt", "both", [0, 1]),
                          result("quiet", "always", "light", [1, 0]), result("talk-10", "ptt", "both", [2, 2])],
                         ("quiet", "talk-10"), ("held-out",), ("always", "ptt"), ("both", "light"))
    assert rows[0].startswith("| condition | voices | mode | engines | commands said |")
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]
    assert [c[:4] for c in cells] == [["quiet", "held-out", "always", "both"], ["quiet", "held-out", "always", "light"],
                                      ["quiet", "held-out", "ptt", "both"], ["talk-10", "held-out", "ptt", "both"]]
    assert [c[6] for c in cells] == ["100% (2)", "50% (1)", "50% (1)", "100% (2)"]   # within two tries
    assert cells[0][9] == "1 (50.0)"   # wrong actions from mishearing, and per 100 commands
    assert all(len(c) == len(run.COLUMNS) for c in cells)


def test_rescoring_reads_the_traces_a_run_wrote(tmp_path: Path) -> None:
    from benchmarks.session import run

    t = recorded("compass-code-quiet")
    (tmp_path / "compass-code.trace.json").write_text(json.dumps({**t, "peak_rss_mb": 300.0}), encoding="utf-8")
    [again] = run.rescored([str(tmp_path)])
    assert (again.game, again.mode, again.engines, again.peak_rss_mb) == ("compass-code", "always", "both", 300.0)
    assert sum(1 for c in again.commands if c.understood_at == 1) == 7 and again.applied_twice == 1


def test_a_runs_table_goes_to_the_results_and_never_to_the_readme(tmp_path: Path) -> None:
    """The README is for players and hosts (issue 49): a run rewrites the table between
    the markers of benchmarks/RESULTS.md and leaves the README as it was."""
    from benchmarks.session import run

    readme = "# facilitator\n\n## How well it hears a table\n\nThe headline, in words.\n"
    (tmp_path / "README.md").write_text(readme, encoding="utf-8")
    (tmp_path / "benchmarks").mkdir()
    results = tmp_path / "benchmarks" / "RESULTS.md"
    results.write_text(f"# Results\n\n## Table sessions\n\n{run.START}\nthe old table\n{run.END}\n\n## Other\n",
                       encoding="utf-8")
    assert run.write_table("| the new table |", root=tmp_path) == results
    text = results.read_text(encoding="utf-8")
    assert f"{run.START}\n| the new table |\n{run.END}" in text and "the old table" not in text
    assert text.endswith("## Other\n")
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == readme
    assert run.START not in (run.ROOT / "README.md").read_text(encoding="utf-8")   # nor markers for one


def test_the_table_audio_always_moves_on_when_asked_for_a_later_time() -> None:
    # a player waiting for a start a fraction of a sample ahead once spun for ever
    audio = table.TableAudio(np.zeros(SAMPLE_RATE * 2, dtype=np.int16), room.impulse_response())
    list(audio.until(1.0))
    before = audio.t
    frames = list(audio.until(before + 1e-5))
    assert len(frames) == 1 and audio.t > before
    assert list(audio.until(audio.t)) == []


def test_the_scripted_clover_table_writes_another_clue_when_one_is_refused(tmp_path: Path) -> None:
    from benchmarks.session import players
    from facilitator.session import Session

    # seed 311: Player 3's "lantern3" holds one of their own keywords (lantern) and is refused
    session, _ = Session.start("clover", players=4, seed=311, log_path=tmp_path / "log.jsonl")
    try:
        typed, reply = players.type_opening("clover", session)
    finally:
        session.log.close()
    assert len(typed) == 16 and "clue 3 left biscuit3" in typed and "clue 3 left lantern3" not in typed
    assert reply is not None and "4 of 4 ready" in reply.public[0]


def test_natural_phrasing_says_the_forms_a_table_uses_and_keeps_the_command_meant() -> None:
    import random

    from benchmarks.session import natural

    def forms(game: str, phrase: str) -> set[str]:
        rng, phrasing = random.Random(3), natural.load(game)
        bare = natural.Phrasing(phrasing.rules, (), (), 0.0, 0.0, phrasing.answers)   # no filler words
        return {bare.say(phrase, rng) for _ in range(200)}

    assert {"let's send north east south west", "north east south west"} <= forms(
        "compass-code", "send north east south west")
    assert "is west third" in forms("compass-code", "is west in position three")
    assert "is north first" in forms("compass-code", "bearing check north position one")
    assert {"I'll pass", "skip"} <= forms("lantern-links", "pass my turn")
    assert "I'll play bravo" in forms("lantern-links", "play bravo")
    assert "put card one in the top left" in forms("clover", "place card one at the top left")
    assert "spin card one" in forms("clover", "turn card one")
    assert "lock it in" in forms("clover", "commit")
    assert "pardon" in forms("clover", "repeat that")                       # the common rules too
    assert forms("clover", "read board") == {"read board"}                  # no rule: said as it is
    rng = random.Random(1)
    answers = {natural.load("clover").answer("yes", rng) for _ in range(100)}
    assert "yep" in answers and "no" not in answers
    # filler words come now and then, around the form
    said = {natural.load("lantern-links").say("pass", random.Random(k)) for k in range(200)}
    assert any(s.startswith(("okay ", "um ")) for s in said) and any(s.endswith(" please") for s in said)


def test_a_phrasing_rules_file_that_cannot_be_used_says_which_rule(tmp_path: Path) -> None:
    from benchmarks.session import natural

    bad = tmp_path / "natural.toml"
    bad.write_text('[[clover]]\nmatch = "^(turn"\nforms = ["spin"]\n', encoding="utf-8")
    with pytest.raises(natural.PhrasingError, match=r"\[\[clover\]\] number 1: match is not a regular"):
        natural.load("clover", bad)
    bad.write_text('[[clover]]\nmatch = "^turn$"\n', encoding="utf-8")
    with pytest.raises(natural.PhrasingError, match="needs a match and a list of forms"):
        natural.load("clover", bad)


def test_each_voice_gets_its_within_two_tries_and_the_worst_voice_is_named() -> None:
    from benchmarks.session import run

    r = table.Result(game="clover", condition="quiet", voices="held-out", stream_seconds=60.0)
    r.commands = [score.CommandTry("pass", "pass", tries=2, understood_at=u, voice=v) for u, v in
                  ((1, "flite:kal"), (2, "flite:kal"), (0, "festival:kal_diphone"), (1, "festival:kal_diphone"),
                   (3, "flite:slt"), (1, "flite:slt"), (1, "flite:slt"), (1, "flite:slt"))]
    lines = run.voice_table([r], {"held-out": ("flite:kal", "festival:kal_diphone", "flite:slt", "piper:joe")})
    assert "| flite:kal | flite | held-out | 2 | 100% (2) |" in lines
    assert "| festival:kal_diphone | festival | held-out | 2 | 50% (1) |" in lines
    assert "| flite:slt | flite | held-out | 4 | 75% (3) |" in lines
    assert not any("piper" in line for line in lines)                     # said nothing: no row
    assert lines[-1] == "Worst held-out voice: festival:kal_diphone, 50% within two tries."


def test_a_voice_pool_larger_than_a_table_is_played_in_full_tables() -> None:
    from benchmarks.session import run

    pool = ("a", "b", "c", "d", "e", "f")
    assert run.tables(pool[:3]) == [pool[:3]]
    assert run.tables(pool) == [("a", "b", "c", "d"), ("e", "f", "a", "b")]
    assert {v for group in run.tables(pool) for v in group} == set(pool)   # every voice plays
