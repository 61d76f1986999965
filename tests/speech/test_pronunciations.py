"""Every word any game's grammar can speak has a pronunciation pocketsphinx can use."""

from __future__ import annotations

from pathlib import Path

import pytest

from facilitator.errors import GrammarError
from facilitator.grammar import load_grammar
from facilitator.speech.engines.pocketsphinx_engine import (
    PocketsphinxRecognizer,
    dictionary_words,
    load_pronunciations,
    unpronounceable,
)


def test_every_spoken_word_of_every_game_is_pronounceable() -> None:
    """New games get caught: add the missing words to grammars/pronunciations.toml.

    The words include each game's recognition lists (Two Windows' catalogue names).
    """
    from facilitator.games import available_games, find_game

    words = set(load_grammar(None).vocabulary())
    for game in available_games():
        lists = find_game(game).recognition_lists() or None
        words |= load_grammar(game).vocabulary(lists=lists)
    assert len(words) > 50
    assert unpronounceable(words) == []


def test_words_the_dictionary_lacks_are_added_to_the_decoder() -> None:
    extra = load_pronunciations()
    assert "gorse" in extra and "gorse" not in dictionary_words()
    known = dictionary_words()
    decoder = PocketsphinxRecognizer()._ensure()
    for word, variants in extra.items():
        if word not in known:
            assert decoder.lookup_word(word) == variants[0], word
        else:
            assert decoder.lookup_word(f"{word}(2)") is not None, word


def test_a_variant_of_a_known_word_keeps_the_dictionary_pronunciation() -> None:
    decoder = PocketsphinxRecognizer(pronunciations={"correct": ["K AH R EH K T"]})._ensure()
    assert decoder.lookup_word("correct") == "K ER EH K T"
    assert decoder.lookup_word("correct(2)") == "K AH R EH K T"


@pytest.mark.parametrize("text,entry", [
    ("[words]\ngorse = 'g ao r s'\n", "words.gorse"),
    ("[words]\ngorse = []\n", "words.gorse"),
    ("[wordz]\ngorse = ['G AO R S']\n", "wordz"),
    ("[words\n", None),
])
def test_a_broken_pronunciation_file_names_file_and_entry(tmp_path: Path, text: str,
                                                          entry: str | None) -> None:
    path = tmp_path / "pronunciations.toml"
    path.write_text(text)
    with pytest.raises(GrammarError) as caught:
        load_pronunciations(path)
    assert caught.value.file == "grammars/pronunciations.toml"
    assert caught.value.entry == entry


def test_an_unknown_phone_is_refused_with_the_word_named() -> None:
    with pytest.raises(GrammarError) as caught:
        PocketsphinxRecognizer(pronunciations={"zorp": ["ZZ AO R P"]})._ensure()
    assert caught.value.entry == "words.zorp"
