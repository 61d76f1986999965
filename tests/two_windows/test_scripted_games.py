"""Scripted Two Windows games through the real session: every rule of a round.

Packets 1,8,13,4,17,10 (the issue's example order).  Packet 1's target is Alder:
report A holds FORM ROUND and SIZE SMALL, report B SURFACE STRIPED and EDGE
NOTCHED.  FORM ROUND with SURFACE STRIPED leaves Alder and Gorse.
"""

from __future__ import annotations

import pytest

from facilitator.games.two_windows import REFEREE

PACKETS = "1,8,13,4,17,10"


@pytest.fixture
def game(play):
    return lambda **kw: play(packets=PACKETS, **kw)


def test_first_stage_hit_scores_two_and_starts_the_next_round(game, play) -> None:
    t = game()
    t.send_first()
    assert t.events("transmission-revealed")[-1] | {"seq": 0} == {
        "type": "transmission-revealed", "seq": 0, "audience": "public", "round": 1, "stage": 1,
        "a": "FORM ROUND", "b": "SURFACE STRIPED"}
    assert t.candidates() == ["Alder", "Gorse"]
    t.say("final alder")
    answer = t.events("answer-given")[-1]
    assert (answer["stage"], answer["name"], answer["correct"], answer["points"]) == (1, "Alder", True, 2)
    assert "Right, Alder: 2 points, 2 of 12." in t.public
    nxt = t.events("round-started")[-1]
    assert (nxt["round"], nxt["packet"], nxt["decoder"], nxt["a"], nxt["b"]) == (2, 8, "Pine", "Reed", "Oak")
    assert t.state.points == 2 and t.state.stage == 0


def test_wrong_first_stage_final_scores_nothing_and_ends_the_round(game, play) -> None:
    t = game()
    t.send_first()
    t.say("final gorse")
    answer = t.events("answer-given")[-1]
    assert (answer["correct"], answer["points"]) == (False, 0)
    ended = t.events("round-ended")[-1]
    assert ended["target"] == "Alder" and ended["points"] == 0
    assert t.events("round-started")[-1]["round"] == 2          # no second stage for a wrong final
    assert "more" not in REFEREE.legal_intents(t.state)


def test_more_reveals_both_remaining_facts_then_a_hit_scores_one(game, play) -> None:
    t = game()
    t.send_first(a=1, b=0)                                        # SIZE SMALL + SURFACE STRIPED
    t.say("more")
    second = t.events("transmission-revealed")[-1]
    assert (second["stage"], second["a"], second["b"]) == (2, "FORM ROUND", "EDGE NOTCHED")
    assert t.candidates() == ["Alder"]
    assert REFEREE.legal_intents(t.state) >= {"final"} and "more" not in REFEREE.legal_intents(t.state)
    t.say("final alder")
    answer = t.events("answer-given")[-1]
    assert (answer["stage"], answer["correct"], answer["points"]) == (2, True, 1)
    assert "Right, Alder: 1 point, 1 of 12." in t.public


def test_more_then_a_miss_scores_nothing(game, play) -> None:
    t = game()
    t.send_first()
    t.say("more")
    t.say("final cedar")
    answer = t.events("answer-given")[-1]
    assert (answer["stage"], answer["correct"], answer["points"]) == (2, False, 0)
    assert t.state.points == 0 and t.state.round == 2


def test_a_fact_not_on_the_report_is_refused_and_costs_nothing(game, play) -> None:
    t = game()
    before = t.state
    reply = t.say("a sends form square")
    assert [e["type"] for e in reply.logged] == ["command-rejected"]
    assert reply.public == ["Report A cannot send that. Send one of the two facts on your report."]
    assert t.state == before
    t.say("a sends form round")
    assert [e["type"] for e in t.say("a sends size small").logged] == ["command-rejected"]
    assert t.public[-1] == "Report A's slip is already locked."
    assert t.state.locked_a == "FORM ROUND"


def test_order_of_a_round_is_enforced(game, play) -> None:
    t = game()
    for line, key in (("more", "Both informants lock their first facts first."),
                      ("final alder", "Both informants lock their first facts first.")):
        reply = t.say(line)
        assert reply.public == [key] and reply.logged[0]["type"] == "command-rejected"
    t.send_first()
    assert t.say("b sends edge notched").public[0].startswith("The first slips are already revealed")
    t.say("more")
    assert t.say("more").public[0].startswith("Both remaining facts are already revealed")
    assert t.state.stage == 2 and len(t.events("transmission-revealed")) == 2


def test_reports_stay_private_until_the_round_is_scored(game, play) -> None:
    t = game()
    assert {p["audience"] for p in t.private} == {"a", "b"}
    assert t.report("a") == ["FORM ROUND", "SIZE SMALL"] and t.report("b") == ["SURFACE STRIPED", "EDGE NOTCHED"]
    t.say("a sends size small")
    locked = [p for p in t.private if p["type"] == "fact-locked"]
    assert locked[-1]["audience"] == "a" and locked[-1]["text"] == "Your slip is locked: SIZE SMALL."
    said = " ".join(t.public).lower()
    for fact in ("size small", "form round", "surface striped", "edge notched", "alder"):
        assert fact not in said
    t.say("b sends edge notched")
    said = " ".join(t.public).lower()
    assert "size small" in said and "edge notched" in said and "form round" not in said
    t.say("final alder")
    assert t.public[-2] == ("Report A held form round and size small; "
                            "report B held surface striped and edge notched.")


def test_misspelled_names_reach_the_catalogue_entry_in_a_query(game, play) -> None:
    """Reading an entry changes nothing, so a slip of spelling or sound still finds it
    (a final answer does not: below)."""
    t = play(packets="9,15,1,2,3,4")
    for line in ("read entry dalia", "read entry DAYLIA"):
        reply = t.say(line)
        assert reply.public[0].startswith("Dahlia: "), line
        assert reply.logged == []


def test_a_typed_final_answer_is_taken_on_its_spelling_alone(game, play) -> None:
    """A final answer cannot be taken back and a typed one is not confirmed: a misspelled
    or garbled name is asked back with its close candidates, never scored as one."""
    t = play(packets="12,15,1,2,3,4")                          # Hazel
    t.send_first()
    before = t.state
    for line in ("final dalia", "final hazle", "final ayze'l"):
        reply = t.say(line)
        assert [e["type"] for e in reply.logged] == ["command-rejected"], line
        assert reply.public[0].endswith("Say final and the name again."), line
        assert t.state == before and t.events("answer-given") == []
    assert t.say("final ayze`l").public[0].startswith("I can't take the character `")
    assert t.state == before
    t.say("final HAZEL")                                        # its spelling, in any case
    assert t.events("answer-given")[-1]["name"] == "Hazel"


def test_an_unclear_name_is_asked_back_and_costs_nothing(game, play) -> None:
    t = game()
    t.send_first()
    before = t.state
    reply = t.say("final eddar")
    assert reply.public == ["Which one: Alder or Cedar? Say final and the name again."]
    assert [e["type"] for e in reply.logged] == ["command-rejected"]
    assert t.state == before
    reply = t.say("final hazard")
    assert reply.public == ["Did you mean Hazel? Say final and the name again."]
    assert t.state == before
    reply = t.say("final oak")
    assert reply.public == [("oak is not in the catalogue. The names are Alder, Birch, Cedar, Dahlia, "
                            "Elm, Fern, Gorse, Hazel.")]
    assert t.state == before
    t.say("final alder")
    assert t.events("answer-given")[-1]["points"] == 2


def test_six_rounds_total_out_of_twelve(game, play) -> None:
    t = game(players=4)
    plan = ["hit", "more-hit", "miss", "more-miss", "hit", "hit"]
    for step in plan:
        t.send_first()
        if step.startswith("more"):
            t.say("more")
        t.say("final " + (t.target() if step.endswith("hit") else t.wrong_name()))
    assert [e["packet"] for e in t.events("round-started")] == [1, 8, 13, 4, 17, 10]
    assert [e["points"] for e in t.events("answer-given")] == [2, 1, 0, 0, 2, 2]
    assert t.events("game-ended")[-1] | {"seq": 0} == {
        "type": "game-ended", "seq": 0, "audience": "public", "points": 7, "possible": 12}
    assert t.public[-1] == "Game over: 7 of 12 points."
    assert t.session.over and REFEREE.legal_intents(t.state) == set()


def test_replace_packet_before_the_first_reveal_only(game, play) -> None:
    t = game()
    t.say("a sends form round")
    reply = t.say("replace packet")
    replaced = t.events("packet-replaced")[-1]
    assert replaced["old"] == 1 and replaced["new"] not in (1, 8, 13, 4, 17, 10)
    assert t.state.packet == replaced["new"] and t.state.locked_a is None
    assert [p["audience"] for p in reply.private] == ["a", "b"]
    assert reply.public == [f"Packet {replaced['new']} replaces packet 1; informants, read your new reports."]
    t.send_first()
    reply = t.say("replace packet")
    assert reply.public == ["A packet can only be replaced before its first reveal."]
    t.say("final " + t.target())
    assert t.events("round-ended")[-1]["packet"] == replaced["new"]
    assert t.events("round-started")[-1]["packet"] == 8


def test_practice_round_has_no_spare_packet(game, play) -> None:
    t = play(practice=True)
    assert t.say("replace packet").public == ["The practice round has no other packet."]
    assert "replace packet" not in REFEREE.legal_intents(t.state)


@pytest.mark.parametrize("line", ["", "   ", "a sends", "final", "sends form round", "b sends form",
                                  "zzz", "a sends form round blue now"])
def test_malformed_lines_change_nothing(line: str, game) -> None:
    t = game()
    before = t.state
    reply = t.say(line)
    assert t.state == before
    assert all(e["type"] == "command-rejected" for e in reply.logged)


def test_status_and_help_answer_without_logging(game, play) -> None:
    t = game()
    reply = t.say("status")
    assert reply.logged == []
    assert reply.public == ["Round 1 of 6, Oak decodes: waiting for report A and report B; score 0 of 12."]
    t.send_first()
    assert t.say("status").public == [("Round 1 of 6, Oak decodes: A sent form round, B sent surface striped; "
                                      "final or more; score 0 of 12.")]
    assert t.say("help").logged == []
