"""Two Windows: two informant teams, two private reports, one decoder."""

from __future__ import annotations

from ...content import register_check
from . import deck
from .deck import ALL_FACTS, FIELDS, Deck, Entry, Packet, load_deck, load_practice, matching
from .names import NameMatch, match_name, sound_key
from .referee import State, TwoWindows
from .scoring import points_for
from .teams import TEAMS, Team, jobs, lineup, members, spokesperson, team_of

REFEREE = TwoWindows()


def register_content_check() -> None:
    register_check("two-windows", deck.check)


__all__ = ["ALL_FACTS", "FIELDS", "REFEREE", "TEAMS", "Deck", "Entry", "NameMatch", "Packet", "State",
           "Team", "TwoWindows", "jobs", "lineup", "load_deck", "load_practice", "match_name",
           "matching", "members", "points_for", "sound_key", "spokesperson", "team_of"]
