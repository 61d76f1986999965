"""The catalogue read aloud: the public material the decoder must be able to hear.

Queries at any moment of a game (they change nothing and log nothing).  Each
answer is a list of short sentences, key first, one entry a sentence, so a
listener hears the point at once and asks for the rest ("go on").
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import IllegalCommandError
from ...phrases import Phrasebook
from .deck import Deck, Entry, matching
from .names import match_name


def _values(entry: Entry) -> list[str]:
    """An entry's four values as said: every value names its field (round is a form)."""
    return [entry.form.lower(), entry.size.lower(), entry.surface.lower(), entry.edge.lower()]


def describe(entry: Entry, phrases: Phrasebook) -> str:
    """"Alder: round, small, striped, notched." """
    form, size, surface, edge = _values(entry)
    return phrases.say("tw-entry", name=entry.name, form=form, size=size, surface=surface, edge=edge)


def read_catalogue(deck: Deck, phrases: Phrasebook) -> list[str]:
    """The names first (one sentence), then one sentence per entry."""
    head = phrases.say("tw-catalogue", n=len(deck.entries), names=phrases.join(deck.names))
    return [head] + [describe(e, phrases) for e in deck.entries]


def read_entry(deck: Deck, heard: str, phrases: Phrasebook) -> list[str]:
    """One entry, named as in a final answer (matched by sound and spelling)."""
    found = match_name(heard, deck.names)
    if found.name is None:
        if found.candidates:
            raise IllegalCommandError("tw-entry-unsure", f"unclear entry {heard!r}",
                                      candidates=or_list(found.candidates, phrases))
        raise IllegalCommandError("tw-entry-unknown", f"{heard!r} is not in the catalogue",
                                  heard=heard, names=phrases.join(deck.names))
    return [describe(deck.entry(found.name), phrases)]


def which_entries(deck: Deck, fact: str, phrases: Phrasebook) -> list[str]:
    """The entries with ``fact`` (``SURFACE STRIPED``), counted and named in one sentence."""
    found = matching(list(deck.entries), [fact])
    said = fact.split()[1].lower()
    if not found:
        return [phrases.say("tw-which-none", value=said)]
    return [phrases.say("tw-which", n=len(found), value=said, names=phrases.join([e.name for e in found]))]


def or_list(names: Sequence[str], phrases: Phrasebook) -> str:
    """"Alder or Cedar", with the grammar's own joining word."""
    if len(names) == 1:
        return names[0]
    return phrases.say("tw-or-join", head=", ".join(names[:-1]), last=names[-1])
