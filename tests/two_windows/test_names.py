"""Names match by sound and spelling (rapidfuzz); unclear ones are asked back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from facilitator.games.two_windows import load_deck, load_practice, match_name, sound_key
from facilitator.games.two_windows.names import distinguishable_problem

NAMES = load_deck().names
PRACTICE = load_practice().names


@pytest.mark.parametrize(("heard", "name"), [
    ("dalia", "Dahlia"), ("daylia", "Dahlia"), ("hazle", "Hazel"), ("hassle", "Hazel"),
    ("gorce", "Gorse"), ("ceder", "Cedar"), ("seder", "Cedar"), ("burch", "Birch"),
    ("elder", "Alder"), ("fernn", "Fern"), ("DAHLIA", "Dahlia"), ("al der", "Alder"),
])
def test_close_spellings_and_sounds_match(heard: str, name: str) -> None:
    assert match_name(heard, NAMES).name == name


@pytest.mark.parametrize(("heard", "candidates"), [
    ("eddar", ("Alder", "Cedar")), ("ferch", ("Birch", "Fern")), ("birn", ("Birch", "Fern")),
    ("hazard", ("Hazel",)),
])
def test_unclear_names_list_the_close_candidates(heard: str, candidates: tuple[str, ...]) -> None:
    found = match_name(heard, NAMES)
    assert found.name is None and found.unclear
    assert found.candidates == candidates


@pytest.mark.parametrize("heard", ["oak", "xylophone", "pine", "q"])
def test_names_nothing_like_the_catalogue_are_unknown(heard: str) -> None:
    found = match_name(heard, NAMES)
    assert found.name is None and not found.unclear


def test_practice_names() -> None:
    assert match_name("brooke", PRACTICE).name == "Brook"
    assert match_name("akorn", PRACTICE).name == "Acorn"


def test_sound_key_folds_spellings_that_sound_alike() -> None:
    assert sound_key("Dahlia") == sound_key("dalia")
    assert sound_key("Gorse") == sound_key("gorce")
    assert sound_key("Cedar") == sound_key("seder")
    assert sound_key("Birch") != sound_key("Fern")


def test_catalogues_are_told_apart_and_a_clone_is_not() -> None:
    assert distinguishable_problem(NAMES) is None
    assert distinguishable_problem(PRACTICE) is None
    assert distinguishable_problem(["Cedar", "Seder"]) == "'Cedar' and 'Seder' sound or look too alike to tell apart"


@given(st.sampled_from(NAMES + PRACTICE), st.sampled_from(["lower", "upper", "title", "swapcase"]))
def test_every_name_matches_itself_in_any_case(name: str, case: str) -> None:
    names = PRACTICE if name in PRACTICE else NAMES
    assert match_name(getattr(name, case)(), names).name == name


@given(st.text(max_size=40))
def test_matching_never_fails_and_never_invents_a_name(heard: str) -> None:
    found = match_name(heard, NAMES)
    assert found.name is None or found.name in NAMES
    assert set(found.candidates) <= set(NAMES)
