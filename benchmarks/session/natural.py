"""Natural phrasing for the session benchmark's players (``--phrasing natural``).

The scripted players pick one of the grammar's own phrases; a table that never read
the manual says it its own way: "let's send north east south west", a bare
"north east south west", "is west third", "I'll pass", "skip", "spin card one",
"lock it in", "yep".  ``Phrasing`` turns a grammar phrase into one of those forms,
as the rules in ``natural.toml`` (data, not code) say, with a seeded random choice.
The command meant does not change: the scorer checks what the referee applied
against it, so a form the referee does not understand counts as a miss.
"""

from __future__ import annotations

import random
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

#: the rules' file, beside this module
RULES = Path(__file__).with_name("natural.toml")
#: how the players may say their lines
PHRASINGS = ("plain", "natural")


class PhrasingError(Exception):
    """A rules file that cannot be used (one line, naming the rule)."""


@dataclass(frozen=True)
class Rule:
    match: re.Pattern[str]
    forms: tuple[str, ...]


@dataclass(frozen=True)
class Phrasing:
    """How one game's table says things: rules per phrase, fillers, answers."""

    rules: tuple[Rule, ...]
    before: tuple[str, ...]
    after: tuple[str, ...]
    before_share: float
    after_share: float
    answers: dict[str, tuple[str, ...]]

    def say(self, phrase: str, rng: random.Random) -> str:
        """``phrase`` (one of the grammar's own) as a table says it."""
        said = phrase
        for rule in self.rules:
            found = rule.match.fullmatch(phrase)
            if found is not None:
                said = found.expand(rng.choice(rule.forms))   # \1 ... the groups; unmatched ones empty
                said = " ".join(said.split())
                break
        if self.before and rng.random() < self.before_share:
            said = f"{rng.choice(self.before)} {said}"
        if self.after and rng.random() < self.after_share:
            said = f"{said} {rng.choice(self.after)}"
        return said

    def answer(self, word: str, rng: random.Random) -> str:
        """"yes" or "no" as a table says it ("yep", "that's right", "nope")."""
        forms = self.answers.get(word)
        return rng.choice(forms) if forms else word


def load(game: str, path: Path = RULES) -> Phrasing:
    """The phrasing rules for ``game``: its own rules first, then the common ones."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PhrasingError(f"{path.name}: {exc}") from None
    rules: list[Rule] = []
    for section in (game, "common"):
        for k, item in enumerate(data.get(section, [])):
            where = f"{path.name}: [[{section}]] number {k + 1}"
            forms = item.get("forms")
            if not isinstance(item.get("match"), str) or not isinstance(forms, list) or not forms \
                    or not all(isinstance(f, str) and f.strip() for f in forms):
                raise PhrasingError(f"{where} needs a match and a list of forms")
            try:
                pattern = re.compile(item["match"])
            except re.error as exc:
                raise PhrasingError(f"{where}: match is not a regular expression ({exc})") from None
            rules.append(Rule(pattern, tuple(forms)))
    fillers = data.get("fillers", {})
    answers = {word: tuple(forms) for word, forms in data.get("answers", {}).items()}
    return Phrasing(tuple(rules), tuple(fillers.get("before", ())), tuple(fillers.get("after", ())),
                    float(fillers.get("before_share", 0.0)), float(fillers.get("after_share", 0.0)), answers)
