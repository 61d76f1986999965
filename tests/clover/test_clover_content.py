"""The keyword deck: the project's own, at least 120 cards of four words, no word on two
cards, words a player can say and a recognizer can know; a broken deck fails with the
file, the entry and the reason, and ``facilitator content check`` exits non-zero."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from support import ROOT, run_cli

from facilitator.errors import ContentError
from facilitator.games.clover.deck import KEYWORDS_FILE, MIN_CARDS, check, load_deck
from facilitator.games.clover.lexicon import recognizer_dictionary, word_list

FILE = "content/clover/keywords.toml"


def test_the_shipped_deck_follows_the_deck_rules() -> None:
    deck = load_deck()
    assert len(deck.cards) >= MIN_CARDS
    words = [w for card in deck.cards for w in card.words]
    assert len(words) == 4 * len(deck.cards) == len(set(words))
    assert [c.number for c in deck.cards] == list(range(1, len(deck.cards) + 1))
    assert all(re.fullmatch(r"[a-z]+", w) for w in words)


def test_every_keyword_is_in_the_dictionaries() -> None:
    report = check()
    assert (
        report[0]
        == f"{FILE}: {len(load_deck().cards)} cards, {4 * len(load_deck().cards)} words, none on two cards"
    )
    if recognizer_dictionary() is not None:
        assert f"{FILE}: every word is in the recognizer's dictionary" in report
    assert word_list() is not None, "Debian's wamerican word list is installed by .ci/setup"
    assert f"{FILE}: every word is in the English word list" in report


def _broken(tmp_path: Path, edit: Callable[[str], str]) -> Path:
    directory = tmp_path / "content"
    shutil.copytree(ROOT / "content", directory)
    path = directory / KEYWORDS_FILE
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return directory


def _card(text: str, number: int) -> str:
    found = re.search(rf"number = {number}\nwords = (\[.*?\])", text)
    assert found
    return found.group(1)


def _replace_word(text: str, number: int, index: int, new: str) -> str:
    old = _card(text, number)
    words = re.findall(r'"([^"]*)"', old)
    words[index] = new
    return text.replace(
        f"number = {number}\nwords = {old}",
        f"number = {number}\nwords = [" + ", ".join(f'"{w}"' for w in words) + "]",
    )


def _first_word(text: str, number: int) -> str:
    return re.findall(r'"([^"]*)"', _card(text, number))[0]


@pytest.mark.parametrize(
    ("edit", "entry", "reason"),
    [
        (
            lambda t: _replace_word(t, 7, 2, _first_word(t, 3)),
            "entry 7 (number 7)",
            r"'\w+' is also on card 3; no word may be on two cards",
        ),
        (
            lambda t: _replace_word(t, 5, 1, "ice cream"),
            "cards entry 5 (number 5) words",
            r"'ice cream' is not one lower-case word of letters a-z",
        ),
        (
            lambda t: _replace_word(t, 9, 0, "Apple"),
            "cards entry 9 (number 9) words",
            r"'Apple' is not one lower-case word of letters a-z",
        ),
        (
            lambda t: t.replace(
                f"number = 4\nwords = {_card(t, 4)}", 'number = 4\nwords = ["a", "b", "c"]'
            ),
            "cards entry 4 (number 4) words",
            r"a card has four words, not 3",
        ),
        (
            lambda t: t.replace("number = 12\n", "number = 11\n", 1),
            "entry 12 (number 11)",
            r"number 11 is also entry 11",
        ),
        (
            lambda t: t.replace("number = 2\n", 'number = 2\ncolour = "red"\n', 1),
            "cards entry 2 (number 2) colour",
            r"unknown key",
        ),
        (
            lambda t: t.split("[[cards]]\nnumber = 120\n")[0],
            "cards",
            r"the deck needs at least 120 cards, has 119",
        ),
        (lambda t: t.replace("[[cards]]", "[[cards", 1), None, r"not valid TOML: .*"),
    ],
)
def test_a_broken_deck_names_file_entry_and_reason(
    tmp_path: Path, edit: Callable[[str], str], entry: str | None, reason: str
) -> None:
    directory = _broken(tmp_path, edit)
    with pytest.raises(ContentError) as caught:
        check(directory)
    assert caught.value.file == FILE
    assert caught.value.entry == entry
    assert re.fullmatch(reason, caught.value.reason), caught.value.reason


def test_a_word_the_recognizer_cannot_know_is_named(tmp_path: Path) -> None:
    if recognizer_dictionary() is None:
        pytest.skip("pocketsphinx is not installed")
    directory = _broken(tmp_path, lambda t: _replace_word(t, 30, 3, "zorblax"))
    with pytest.raises(ContentError) as caught:
        check(directory)
    assert caught.value.entry == "entry 30 (number 30)"
    assert caught.value.reason.startswith("'zorblax' is not in the recognizer's dictionary")


def test_a_missing_deck_is_named(tmp_path: Path) -> None:
    with pytest.raises(ContentError, match=r"content/clover/keywords.toml: file is missing"):
        check(tmp_path)


@pytest.mark.slow
def test_content_check_cli_fails_on_a_broken_deck(tmp_path: Path) -> None:
    good = run_cli(["content", "check"])
    assert good.returncode == 0, good.stderr
    assert f"clover: {FILE}: every word is in the English word list" in good.stdout
    directory = _broken(tmp_path, lambda t: _replace_word(t, 7, 2, _first_word(t, 3)))
    bad = run_cli(["content", "check", "--content-dir", str(directory)])
    assert bad.returncode != 0
    assert re.search(
        rf"problem: {re.escape(str(tmp_path / FILE))}: entry 7 \(number 7\): '\w+' is also on card 3", bad.stderr
    ), bad.stderr
    assert "Traceback" not in bad.stderr
