"""The grammar engine: templates, lists, parsing, rendering and exports."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from facilitator.command import Command, NotRecognized
from facilitator.errors import GrammarError
from facilitator.grammar import load_grammar, normalize
from facilitator.template import TemplateSyntaxError, parse

ROOT = Path(__file__).resolve().parent.parent


def test_template_syntax_errors_are_reported() -> None:
    for bad in ["send (north | east", "send ]", "{Bad Slot}", "[", ""]:
        with pytest.raises(TemplateSyntaxError):
            parse(bad)


def test_normalize_keeps_words_hyphens_and_case() -> None:
    assert normalize("send north, east, south, west!") == "send north east south west"
    assert normalize("  Night-light  ") == "Night-light"
    assert normalize("what's -- in my hand?") == "what's in my hand"


def test_canonical_forms_parse_to_themselves() -> None:
    grammar = load_grammar("compass-code")
    for canonical in ["send NESW", "check W 3", "feedback 1 2", "candidates", "read candidates",
                      "yes", "no", "repeat", "cancel", "status", "help", "louder", "softer",
                      "slower", "faster", "stop listening", "start listening", "new game",
                      "resume", "quit"]:
        command = grammar.parse(canonical)
        assert isinstance(command, Command), canonical
        assert command.canonical.lower() == canonical.lower()


def test_every_spoken_phrase_parses_back_and_renders() -> None:
    grammar = load_grammar("compass-code")
    phrases = grammar.spoken_phrases()
    assert "send north east south west" in phrases
    for phrase in phrases:
        command = grammar.parse(phrase, typed=False)
        assert isinstance(command, Command), phrase
        rendered = grammar.render(command.canonical)
        assert rendered is not None
        again = grammar.parse(rendered, typed=False)
        assert isinstance(again, Command) and again.canonical == command.canonical


def test_typed_only_forms_are_not_spoken() -> None:
    grammar = load_grammar("compass-code")
    assert isinstance(grammar.parse("send N E S W", typed=False), NotRecognized)
    assert isinstance(grammar.parse("send NESW", typed=False), NotRecognized)
    assert grammar.parse("send N E S W").canonical == "send NESW"  # type: ignore[union-attr]
    assert "n" not in grammar.vocabulary()


def test_narrowing_to_legal_intents() -> None:
    grammar = load_grammar("compass-code")
    assert isinstance(grammar.parse("is west in position three", intents={"send"}), NotRecognized)
    assert grammar.parse("is west in position three", intents={"check"}).canonical == "check W 3"  # type: ignore[union-attr]


def test_jsgf_export_holds_only_spoken_forms() -> None:
    jsgf = load_grammar("compass-code").jsgf(intents={"send", "yes", "no"})
    assert jsgf.startswith("#JSGF V1.0;")
    assert "public <command>" in jsgf
    assert "north" in jsgf and "yes" in jsgf
    assert "clockwise" not in jsgf   # feedback was not asked for
    assert "NESW" not in jsgf and " n |" not in jsgf


def _copy_grammars(tmp_path: Path) -> Path:
    target = tmp_path / "grammars"
    shutil.copytree(ROOT / "grammars", target)
    return target


@pytest.mark.parametrize("mutation, where", [
    (lambda s: s.replace("[[commands]]\nintent = \"send\"", "[[commands]]\nintnet = \"send\"", 1), "commands"),
    (lambda s: s.replace("{direction:a}", "{directoin:a}", 1), "unknown list 'directoin'"),
    (lambda s: s.replace("send {direction:a} [then]", "send ({direction:a} [then]", 1), "missing ')'"),
    (lambda s: s + "\n[lists.broken\n", "not valid TOML"),
    (lambda s: s.replace('output = "send {a}{b}{c}{d}"', 'output = "send {a}{b}{c}"', 1), "output needs"),
])
def test_broken_grammar_files_name_file_entry_and_reason(tmp_path: Path, mutation, where: str) -> None:
    directory = _copy_grammars(tmp_path)
    path = directory / "compass-code.toml"
    path.write_text(mutation(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(GrammarError) as info:
        load_grammar("compass-code", directory)
    message = str(info.value)
    assert message.startswith("grammars/compass-code.toml")
    assert where in message


def test_missing_grammar_file(tmp_path: Path) -> None:
    directory = _copy_grammars(tmp_path)
    (directory / "common.toml").unlink()
    with pytest.raises(GrammarError, match="grammars/common.toml: file is missing"):
        load_grammar("compass-code", directory)


# Golden utterances -> canonical commands, as people type them or a recognizer produces them.
GOLDEN = {
    "send north east south west": "send NESW",
    "send N E S W": "send NESW",
    "send north, east, south, west": "send NESW",
    "Send North East South West.": "send NESW",
    "send NESW": "send NESW",
    "send n e s w": "send NESW",
    "send north then east then south then west": "send NESW",
    "we guess east south north west": "send ESNW",
    "is west in position three": "check W 3",
    "is W in position 3": "check W 3",
    "Is west in position three?": "check W 3",
    "is north at position one": "check N 1",
    "bearing check south 2": "check S 2",
    "one anchor, two clockwise steps": "feedback 1 2",
    "zero anchors and four clockwise steps": "feedback 0 4",
    "no anchors, four clockwise steps": "feedback 0 4",
    "2 anchors 1 clockwise step": "feedback 2 1",
    "four anchors": "feedback 4 0",
    "feedback 1 2": "feedback 1 2",
    "how many candidates": "candidates",
    "how many candidates are left": "candidates",
    "read the candidates": "read candidates",
    "read out the candidates": "read candidates",
    "repeat that": "repeat",
    "say that again": "repeat",
    "yes": "yes",
    "no": "no",
    "never mind": "cancel",
    "status": "status",
    "what can I say": "help",
}


@pytest.mark.parametrize("utterance, canonical", sorted(GOLDEN.items()))
def test_golden_utterances(utterance: str, canonical: str) -> None:
    command = load_grammar("compass-code").parse(utterance)
    assert isinstance(command, Command)
    assert command.canonical == canonical


@pytest.mark.parametrize("utterance", [
    "pass the crisps", "is it my turn", "send", "send north east",
    "is west in position", "one anchor", "anchors", "", "   ", "\ufffd\ufffd", "x" * 50,
])
def test_not_understood(utterance: str) -> None:
    assert isinstance(load_grammar("compass-code").parse(utterance), NotRecognized)


def test_over_match_every_game_grammar_keeps_its_commands() -> None:
    """With all games' grammars loaded, each golden utterance still wins for its command."""
    everything = load_grammar(None)
    for utterance, canonical in GOLDEN.items():
        command = everything.parse(utterance)
        assert isinstance(command, Command), utterance
        assert command.canonical == canonical, utterance
