"""The keyword deck, loaded from ``content/clover/keywords.toml``.

Deck rules (checked at load, each failure naming the file, the card and why):
at least 120 cards, numbered 1..N once each; four words a card; every word a
single lower-case English word (letters only, so a player can say it); no word on
two cards.  ``check`` also proves that a recognizer can know every word (the
pocketsphinx dictionary, when pocketsphinx is installed) and reports words the
plain word list does not hold.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import field_validator

from ...content import Strict, load
from ...errors import ContentError
from .board import Words
from .lexicon import recognizer_dictionary, word_list

KEYWORDS_FILE = "clover/keywords.toml"
MIN_CARDS = 120
_WORD = re.compile(r"[a-z]+")


class KeywordCard(Strict):
    number: int
    words: list[str]

    @field_validator("words")
    @classmethod
    def _four_words(cls, value: list[str]) -> list[str]:
        if len(value) != 4:
            raise ValueError(f"a card has four words, not {len(value)}")
        for word in value:
            if not _WORD.fullmatch(word):
                raise ValueError(f"{word!r} is not one lower-case word of letters a-z")
        if len(set(value)) != 4:
            raise ValueError(f"a word is twice on the card: {value}")
        return value

    @property
    def printed(self) -> Words:
        w = self.words
        return (w[0], w[1], w[2], w[3])


class KeywordDeck(Strict):
    cards: list[KeywordCard]

    def by_number(self) -> dict[int, KeywordCard]:
        return {c.number: c for c in self.cards}


def _entry(index: int, card: KeywordCard) -> str:
    return f"entry {index + 1} (number {card.number})"


def _deck_rules(deck: KeywordDeck) -> None:
    name = f"content/{KEYWORDS_FILE}"
    if len(deck.cards) < MIN_CARDS:
        raise ContentError(
            name, "cards", f"the deck needs at least {MIN_CARDS} cards, has {len(deck.cards)}"
        )
    seen_numbers: dict[int, int] = {}
    seen_words: dict[str, int] = {}
    for i, card in enumerate(deck.cards):
        if card.number in seen_numbers:
            raise ContentError(
                name,
                _entry(i, card),
                f"number {card.number} is also entry {seen_numbers[card.number] + 1}",
            )
        seen_numbers[card.number] = i
        for word in card.words:
            if word in seen_words:
                raise ContentError(
                    name,
                    _entry(i, card),
                    f"{word!r} is also on card {seen_words[word]}; no word may be on two cards",
                )
            seen_words[word] = card.number
    if sorted(seen_numbers) != list(range(1, len(deck.cards) + 1)):
        missing = sorted(set(range(1, len(deck.cards) + 1)) - set(seen_numbers))
        raise ContentError(
            name, "cards", f"card numbers must run 1 to {len(deck.cards)}; missing {missing}"
        )


def load_deck(directory: Path | None = None) -> KeywordDeck:
    deck = load(KEYWORDS_FILE, KeywordDeck, directory)
    _deck_rules(deck)
    return deck


def check(directory: Path | None = None) -> list[str]:
    """Validate the deck; raise ContentError on a word the recognizer cannot know."""
    deck = load_deck(directory)
    name = f"content/{KEYWORDS_FILE}"
    report = [
        f"content/{KEYWORDS_FILE}: {len(deck.cards)} cards, {4 * len(deck.cards)} words, none on two cards"
    ]
    lists = [
        (recognizer_dictionary(), "the recognizer's dictionary",
         "pocketsphinx is not installed; recognizer dictionary not checked"),
        (word_list(), "the English word list",
         "no English word list installed (wamerican); clues will not be checked for made-up words"),
    ]
    for words, what, missing in lists:
        if words is None:
            report.append(f"content/{KEYWORDS_FILE}: {missing}")
            continue
        for i, card in enumerate(deck.cards):
            unknown = [w for w in card.words if w not in words]
            if unknown:
                raise ContentError(name, _entry(i, card),
                                   f"{unknown[0]!r} is not in {what} ({words.source})")
        report.append(f"content/{KEYWORDS_FILE}: every word is in {what}")
    return report
