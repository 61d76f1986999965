"""Two Windows by ear (issue 18): the catalogue can be heard, names are taken only when
clearly said, negations are refused, and announcements put the key line first."""

from __future__ import annotations

import pytest

from facilitator.games.two_windows import REFEREE, load_deck, match_name
from facilitator.grammar import load_grammar

NAMES = load_deck().names


# -- the catalogue, read aloud at any time ------------------------------------------------
def test_read_the_catalogue_names_first_then_one_entry_a_sentence(play) -> None:
    t = play(packets="1,8,13,4,17,10")
    reply = t.say("read the catalogue")
    assert reply.public[0] == ("The catalogue has 8 entries: Alder, Birch, Cedar, Dahlia, Elm, Fern, "
                               "Gorse and Hazel.")
    # one entry a sentence, each on "go on" (in Two Windows "more" reveals)
    assert [t.say("go on").public[0] for _ in range(8)] == [
        "Alder: round, small, striped, notched.", "Birch: round, small, plain, smooth.",
        "Cedar: square, small, striped, notched.", "Dahlia: round, large, plain, smooth.",
        "Elm: square, large, striped, notched.", "Fern: square, large, plain, notched.",
        "Gorse: round, small, striped, smooth.", "Hazel: round, small, plain, notched."]


def test_read_one_entry_and_which_entries_have_each_fact(play) -> None:
    t = play(packets="1,8,13,4,17,10")
    assert t.say("read entry hazel").public == ["Hazel: round, small, plain, notched."]
    assert t.say("read entry dalia").public == ["Dahlia: round, large, plain, smooth."]
    assert t.say("which entries have a striped surface").public == [
        "4 entries are striped: Alder, Cedar, Elm and Gorse."]
    expected = {
        "FORM ROUND": "5 entries are round: Alder, Birch, Dahlia, Gorse and Hazel.",
        "FORM SQUARE": "3 entries are square: Cedar, Elm and Fern.",
        "SIZE SMALL": "5 entries are small: Alder, Birch, Cedar, Gorse and Hazel.",
        "SIZE LARGE": "3 entries are large: Dahlia, Elm and Fern.",
        "SURFACE PLAIN": "4 entries are plain: Birch, Dahlia, Fern and Hazel.",
        "SURFACE STRIPED": "4 entries are striped: Alder, Cedar, Elm and Gorse.",
        "EDGE SMOOTH": "3 entries are smooth: Birch, Dahlia and Gorse.",
        "EDGE NOTCHED": "5 entries are notched: Alder, Cedar, Elm, Fern and Hazel.",
    }
    for fact, line in expected.items():
        field, value = fact.lower().split()
        assert t.say(f"which entries have a {value} {field}").public == [line], fact


def test_read_entry_oak_is_refused_plainly_oak_is_a_team(play) -> None:
    t = play(packets="1,8,13,4,17,10")
    reply = t.say("read entry oak")
    assert reply.public == [("oak is not in the catalogue. The names are Alder, Birch, Cedar, Dahlia, "
                            "Elm, Fern, Gorse and Hazel.")]
    assert [e["type"] for e in reply.logged] == ["command-rejected"]


def test_catalogue_queries_work_at_every_moment_and_change_and_log_nothing(play) -> None:
    t = play(packets="1,8,13,4,17,10")
    queries = ["read the catalogue", "read entry elm", "which entries are square"]
    for moment in ("before the reveal", "after the first reveal", "after more"):
        before = t.state
        for line in queries:
            reply = t.say(line)
            assert reply.logged == [] and reply.private == [] and reply.public, (moment, line)
        assert t.state == before
        if moment == "before the reveal":
            t.send_first()
        elif moment == "after the first reveal":
            t.say("more")


def test_practice_reads_its_own_catalogue(play) -> None:
    t = play(practice=True)
    assert t.say("read the catalogue").public[0] == "The catalogue has 4 entries: Acorn, Brook, Cloud and Drift."
    assert t.say("read entry brook").public == ["Brook: round, small, striped, notched."]


# -- names ----------------------------------------------------------------------------------
@pytest.mark.parametrize("line", ["final not birch", "final not hazel", "final never hazel",
                                  "our final answer is not hazel"])
def test_a_negated_final_is_refused_and_costs_nothing(play, line: str) -> None:
    t = play(packets="4,8,13,1,17,10")       # round 1's target is Birch
    t.send_first()
    before = t.state
    reply = t.say(line)
    assert t.state == before
    assert [e["type"] for e in reply.logged] == ["command-rejected"]
    assert reply.public == ["A final answer names the entry you choose, without not: say final and one name."]
    assert t.say("final birch").logged[0]["type"] == "answer-given"
    assert t.events("answer-given")[-1]["points"] == 2


@pytest.mark.parametrize(("heard", "suggested"), [("hazelnut", "Hazel"), ("helm", "Elm")])
def test_a_word_that_merely_contains_or_resembles_a_name_is_asked_back(heard: str, suggested: str) -> None:
    found = match_name(heard, NAMES)
    assert found.name is None and found.candidates == (suggested,)


@pytest.mark.parametrize("heard", ["acorn", "xyzzy"])
def test_far_off_words_get_no_suggestion(heard: str) -> None:
    found = match_name(heard, NAMES)
    assert found.name is None and found.candidates == ()


def test_hazelnut_is_not_scored_as_hazel(play) -> None:
    t = play(packets="1,8,13,4,17,10")
    t.send_first()
    reply = t.say("final hazelnut")
    assert reply.public == ["Did you mean Hazel? Say final and the name again."]
    assert t.events("answer-given") == []
    assert t.say("final xyzzy").public == [
        "xyzzy is not in the catalogue. The names are Alder, Birch, Cedar, Dahlia, Elm, Fern, Gorse, Hazel."]


# -- rules, help, status and round changes ----------------------------------------------------
def test_practice_rules_say_the_practice_length_not_six_rounds(play) -> None:
    table = play(practice=True)
    practice = " ".join(table.say("read the rules").public[:1] + [table.say("go on").public[0] for _ in range(4)])
    assert "Six rounds" not in practice and "12 points" not in practice
    assert practice.endswith("This practice is one round on four entries, Acorn, Brook, Cloud and Drift, "
                             "2 points at most.")
    full = play(packets="1,8,13,4,17,10")
    full.say("read the rules")
    assert [full.say("go on").public[0] for _ in range(4)][-1] == "Six rounds, 12 points at most."


def test_help_says_what_fits_this_moment_first(play) -> None:
    t = play(packets="1,8,13,4,17,10")
    assert t.say("help").public[0] == ("Informants, lock a first fact: report a or report b, "
                                       "then a fact from your report.")
    t.send_first()
    assert t.say("help").public[0] == "Oak, say final and a name, like final hazel, or say more."
    t.say("more")
    assert t.say("help").public[0] == "Oak, say final and a name, like final hazel."
    t.say("help")
    assert t.say("go on").public[-1].startswith("Any time: read the catalogue")


def test_status_is_one_sentence(play) -> None:
    t = play(packets="1,8,13,4,17,10")
    for step in ("start", "first", "more"):
        status = t.say("status").public
        assert len(status) == 1 and status[0].count(".") == 1 and status[0].endswith("."), status
        if step == "start":
            t.send_first()
        elif step == "first":
            t.say("more")


def test_a_round_change_says_the_verdict_then_who_decodes_first(play) -> None:
    t = play(packets="1,8,13,4,17,10")
    t.send_first()
    reply = t.say("final alder")
    assert reply.public == [
        "Right, Alder: 2 points, 2 of 12.",
        "Report A held form round and size small; report B held surface striped and edge notched.",
        "Round 2 of 6: Pine decodes, Player 2 speaking; report A: Reed, Player 3; report B: Oak, Player 1.",
    ]
    t.send_first()
    assert t.say("final " + t.wrong_name()).public[0] == "Not Alder: it was Elm; no points, 2 of 12."


# -- usage: the right form of every command -------------------------------------------------------
def test_every_two_windows_intent_has_a_one_sentence_usage() -> None:
    grammar = load_grammar("two-windows")
    game_intents = set(grammar.intents) - grammar.common_intents
    assert {"final", "final not", "read catalogue", "read entry", "which entries"} <= game_intents
    for intent in game_intents:
        usage = grammar.responses["usage-" + intent.replace(" ", "-")]
        assert usage.endswith(".") and usage.count(". ") == 0 and len(usage.split()) <= 20, intent
    assert set(REFEREE.queries) - grammar.common_intents <= game_intents
