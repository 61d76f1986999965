"""Phrasing as people use it (docs/speech.md, "Natural phrasing"): skip words, contractions,
synonyms, answer-only and bare forms, as data in grammars/ feeding the parser and the JSGF.

tests/phrasing_golden.tsv holds a golden line for every form of every game's grammar; table
talk that uses the games' words must give no command.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from facilitator.command import Command, NotRecognized
from facilitator.errors import GrammarError
from facilitator.games import find_game
from facilitator.grammar import Grammar, load_grammar
from facilitator.speech.engines.grammar_build import recognition_grammar

HERE = Path(__file__).parent
ROOT = HERE.parent
GAMES = ("compass-code", "two-windows", "lantern-links", "clover")
#: the answers to an open question (the listen loop's CONFIRM_INTENTS)
ANSWERS = frozenset({"yes", "no", "cancel", "repeat"})


def _golden() -> list[tuple[str, str, str, str]]:
    rows = []
    for raw in (HERE / "phrasing_golden.tsv").read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            game, state, line, canonical = raw.split("\t")
            rows.append((game, state, line, canonical))
    return rows


GOLDEN = _golden()


def _match(grammar: Grammar, game: str, state: str, line: str) -> tuple[object, Command] | None:
    lists = find_game(game).recognition_lists() or None
    if state == "any":
        return grammar.match(line, lists=lists)
    if state == "question":
        return grammar.match(line, lists=lists, intents=ANSWERS, answers=True)
    intents = set(state.split(",")) | grammar.common_intents
    return grammar.match(line, lists=lists, intents=intents)


@pytest.mark.parametrize("game, state, line, canonical", GOLDEN, ids=[f"{g}:{li}" for g, _, li, _ in GOLDEN])
def test_golden_line(game: str, state: str, line: str, canonical: str) -> None:
    found = _match(load_grammar(game), game, state, line)
    assert found is not None, line
    assert found[1].canonical == canonical


@pytest.mark.parametrize("game", GAMES)
def test_every_form_has_its_golden_line(game: str) -> None:
    grammar = load_grammar(game)
    matched = set()
    for g, state, line, _ in GOLDEN:
        if g == game and (found := _match(grammar, game, state, line)) is not None:
            matched.add(id(found[0]))
    # a common form is covered by the Compass Code lines (the same common.toml)
    common = load_grammar("compass-code").common_intents if game != "compass-code" else set()
    missing = [f.source for f in grammar.forms if id(f) not in matched and f.intent not in common]
    assert not missing, missing


def test_over_match_every_game_grammar_keeps_the_golden_lines() -> None:
    """With all games' grammars loaded, each golden line of a game-wide state still wins for its command."""
    everything = load_grammar(None)
    lists: dict[str, dict[str, list[str]]] = {}
    for game in GAMES:
        for name, values in (find_game(game).recognition_lists() or {}).items():
            lists.setdefault(name, {}).update({v: list(p) for v, p in values.items()})
    for game, state, line, canonical in GOLDEN:
        if state != "any" or line.split()[0] == "more":
            continue   # "more" is Two Windows' own command there and paging elsewhere
        got = everything.parse(line, lists=lists)
        assert isinstance(got, Command), line
        assert got.canonical == canonical, line


# Table talk that uses the games' words: typed in the widest state, no command.
TABLE_TALK = [
    "how many crisps are left", "quit it you two", "read the room", "pass the salt",
    "I think it's west", "pass the crisps please", "is it my turn", "north is where the kitchen is",
    "send me the photos", "the east side of town", "how many are coming tonight", "check your messages",
    "third time lucky", "that was a lucky guess", "more wine anyone", "which one is yours",
    "the birch outside is huge", "my final answer to that is no way", "swap seats with me",
    "skip this song", "play some music", "play nice", "finish your plate", "hands up who wants tea",
    "rewind the tape", "the hotel was lovely", "turn the music down", "put the kettle on",
    "commit to the bit", "flip a coin for it", "spin the bottle", "lock the door", "card six is missing",
    "top left of the fridge", "okay", "sure", "yep", "that's right", "so", "please", "let's",
    "okay so", "can you", "i'll", "right", "go ahead", "not that",
]


@pytest.mark.parametrize("line", TABLE_TALK)
def test_table_talk_gives_no_command(line: str) -> None:
    for game in GAMES:
        got = load_grammar(game).parse(line, lists=find_game(game).recognition_lists() or None)
        assert isinstance(got, NotRecognized), (game, line, got)


@pytest.mark.parametrize("line", ["yep", "sure", "okay", "that's right", "yes that's right", "go ahead"])
def test_answer_only_forms_answer_an_open_question_only(line: str) -> None:
    grammar = load_grammar("compass-code")
    assert isinstance(grammar.parse(line), NotRecognized)
    assert isinstance(grammar.parse(line, intents=ANSWERS), NotRecognized)
    answer = grammar.parse(line, intents=ANSWERS, answers=True)
    assert isinstance(answer, Command) and answer.canonical == "yes"


def test_answer_only_forms_are_in_the_answer_grammar_only() -> None:
    grammar = load_grammar("compass-code")
    plain = recognition_grammar(grammar, intents=ANSWERS)
    asked = recognition_grammar(grammar, intents=ANSWERS, answers=True)
    assert "yep" not in plain.phrases and "yep" in asked.phrases
    assert "yep" not in plain.jsgf and "yep" in asked.jsgf
    assert asked.commands["that's right"] == "yes"
    assert grammar.render("yes") == "yes"   # the echo never says an answer-only form


def test_skip_words_stand_around_commands_in_the_spoken_grammar(tmp_path: Path) -> None:
    directory = _copy_grammars(tmp_path)
    path = directory / "common.toml"
    path.write_text(path.read_text().replace('spoken_lead = []', 'spoken_lead = ["okay", "let\'s"]', 1)
                    .replace('spoken_trail = []', 'spoken_trail = ["please"]', 1))
    grammar = load_grammar("compass-code", directory)
    built = recognition_grammar(grammar, intents={"send"})
    assert "public <command> = [ <skip_lead> ] <commands> [ <skip_trail> ];" in built.jsgf
    assert "<skip_lead> = okay | let's;" in built.jsgf
    # never in the phrase list (Vosk, Whisper's candidates): one phrase per way to say it
    assert not any(p.startswith(("okay ", "let's ")) for p in built.phrases)
    # the phrase -> command map reads a decoded phrase with its skip words
    assert built.commands["let's send north east south west please"] == "send NESW"
    assert "let's" in grammar.vocabulary()


def test_the_shipped_spoken_grammar_has_no_skip_words() -> None:
    """Measured on the golden clips: skip words in the JSGF cost commands in babble (docs/speech.md)."""
    built = recognition_grammar(load_grammar("compass-code"), intents={"send"})
    assert "skip_lead" not in built.jsgf and "public <command> = ( send" in built.jsgf
    assert built.commands["let's send north east south west please"] == "send NESW"


def test_loose_forms_are_parsed_but_never_decoded() -> None:
    grammar = load_grammar("two-windows")
    lists = find_game("two-windows").recognition_lists()
    got = grammar.parse("we go with cloud", typed=False, lists=lists)
    assert isinstance(got, Command) and got.canonical == "final Cloud"
    built = recognition_grammar(grammar, lists=lists)
    assert "go with" not in built.jsgf and "we go with cloud" not in built.phrases
    assert "go" not in grammar.vocabulary(lists=lists) or "go with" not in " ".join(built.phrases)


def test_skip_words_are_never_the_whole_command() -> None:
    grammar = load_grammar("compass-code")
    assert isinstance(grammar.parse("please"), NotRecognized)
    assert isinstance(grammar.parse("okay then"), NotRecognized)
    assert grammar.parse("okay so um let's send north east south west now please").canonical == "send NESW"  # type: ignore[union-attr]


def test_a_line_that_parses_as_it_is_keeps_its_words() -> None:
    """A free-text slot is not cut by the skip words or uncontracted: the typed clue stays as written."""
    got = load_grammar("clover").parse("clue 1 top it's raining okay")
    assert isinstance(got, Command) and got.canonical == "clue 1 top it's raining okay"


def test_contractions_read_either_way() -> None:
    grammar = load_grammar("lantern-links")
    for line in ["what's in my hand", "what is in my hand"]:
        assert grammar.parse(line).canonical == "hands"  # type: ignore[union-attr]
    assert load_grammar("compass-code").parse("what is the score").canonical == "status"  # type: ignore[union-attr]
    assert load_grammar("compass-code").parse("we'll pass") is not None


def test_bare_route_is_a_guess_only_when_a_guess_is_legal() -> None:
    grammar = load_grammar("compass-code")
    assert grammar.parse("north east south west", intents={"send"}).canonical == "send NESW"  # type: ignore[union-attr]
    assert isinstance(grammar.parse("north east south west", intents={"feedback", "candidates"}), NotRecognized)
    captain = recognition_grammar(grammar, intents={"send"})
    keeper = recognition_grammar(grammar, intents={"feedback"})
    assert "north east south west" in captain.phrases and "north east south west" not in keeper.phrases


def _copy_grammars(tmp_path: Path) -> Path:
    directory = tmp_path / "grammars"
    shutil.copytree(ROOT / "grammars", directory)
    return directory


def test_expansion_rules_and_their_errors(tmp_path: Path) -> None:
    directory = _copy_grammars(tmp_path)
    path = directory / "compass-code.toml"
    path.write_text(path.read_text().replace('"our guess is <route>"', '"our guess is <nowhere>"', 1))
    with pytest.raises(GrammarError, match="unknown expansion rule <nowhere>"):
        load_grammar("compass-code", directory)


def test_answer_only_forms_stay_out_of_every_game_grammar() -> None:
    everything = load_grammar(None)
    assert isinstance(everything.parse("yep"), NotRecognized)
    assert "yep" not in recognition_grammar(everything).phrases


def test_nothing_is_said_after_more_in_the_decoding_grammars() -> None:
    """Two Windows' reveal: "more cake please" was heard as "more please" by both engines
    and applied (phrasing benchmark, tuning half).  The decoding grammars hold no phrase
    with words after "more"; typed, "more please" is still the reveal."""
    grammar = load_grammar("two-windows")
    lists = find_game("two-windows").recognition_lists() or None
    spoken = recognition_grammar(grammar, lists=lists).phrases
    after_more = [p for p in spoken if p.split()[0] == "more" and len(p.split()) > 1]
    assert after_more == []
    assert "more" in spoken
    typed = grammar.parse("more please", lists=lists)
    assert isinstance(typed, Command) and typed.canonical == "more"
