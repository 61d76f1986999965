"""What the assistant says, rendered from the ``[responses]`` of the grammar files.

A response is text with fields: ``{name}`` inserts a value, ``{n|anchor|anchors}``
inserts a count with the singular or plural word ("1 anchor", "2 anchors").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import GrammarError

_FIELD = re.compile(r"\{(\w+)(?:\|([^|{}]*)\|([^|{}]*))?\}")


#: the variant of a response said where private messages go to a ``--private`` file, not to
#: the seat screens (``cl-dealt-private-file`` for ``cl-dealt``)
PRIVATE_FILE = "private-file"


class Phrasebook:
    """Renders response keys; a missing key or field is a grammar error, not a crash.

    With a ``variant``, a key ``KEY-VARIANT`` in the responses is said in place of ``KEY``
    (the words that name where something private went)."""

    def __init__(self, responses: Mapping[str, str], variant: str | None = None) -> None:
        self.responses = dict(responses)
        self.variant = variant

    def __contains__(self, key: str) -> bool:
        return key in self.responses

    def say(self, key: str, **fields: Any) -> str:
        if self.variant is not None:
            key = key + "-" + self.variant if key + "-" + self.variant in self.responses else key
        try:
            text = self.responses[key]
        except KeyError:
            raise GrammarError("grammars", f"responses.{key}", "response is missing") from None

        def fill(m: re.Match[str]) -> str:
            name, one, many = m.groups()
            if name not in fields:
                raise GrammarError("grammars", f"responses.{key}", f"needs field {name!r}")
            value = fields[name]
            if one is None:
                return str(value)
            word = one if value == 1 else many
            return f"{value} {word}"

        return _FIELD.sub(fill, text)

    def join(self, items: Sequence[str]) -> str:
        """``a, b and c`` with the grammar's own joining words."""
        items = list(items)
        if not items:
            return self.say("list-empty")
        if len(items) == 1:
            return items[0]
        return self.say("list-join", head=", ".join(items[:-1]), last=items[-1])
