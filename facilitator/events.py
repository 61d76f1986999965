"""Events: what happened, in one envelope, for one audience.

An event is ``{"type": "kebab-case", "seq": n, "audience": ..., **fields}`` in the
log.  ``audience`` is ``"public"``, a seat number, or a role (``"keeper"``,
``"a"``, ``"b"``).  Only public events reach speech, stdout and the table screen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Audience = str | int

PUBLIC = "public"
ROLES = ("keeper", "a", "b")
_TYPE = re.compile(r"[a-z]+(-[a-z]+)*")
_ENVELOPE = ("type", "seq", "audience")


@dataclass(frozen=True)
class Event:
    """One thing that happened; ``data`` holds its fields (JSON values only)."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    audience: Audience = PUBLIC

    def __post_init__(self) -> None:
        if not _TYPE.fullmatch(self.type):
            raise ValueError(f"event type {self.type!r} is not kebab-case")
        if not is_audience(self.audience):
            raise ValueError(f"event audience {self.audience!r} is not public, a seat or a role")
        clash = set(self.data) & set(_ENVELOPE)
        if clash:
            raise ValueError(f"event field {min(clash)!r} clashes with the envelope")

    @property
    def public(self) -> bool:
        return self.audience == PUBLIC

    def __getitem__(self, name: str) -> Any:
        return self.data[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.data.get(name, default)

    def to_json(self, seq: int) -> dict[str, Any]:
        """The log line for this event, numbered ``seq``."""
        return {"type": self.type, "seq": seq, "audience": self.audience, **self.data}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Event:
        """Read back a log line (the ``seq`` is dropped: the log keeps it)."""
        data = {k: v for k, v in obj.items() if k not in _ENVELOPE}
        return cls(type=obj["type"], data=data, audience=obj["audience"])


def is_audience(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return value == PUBLIC or value in ROLES or (isinstance(value, int) and value >= 1)


def rejected(utterance: str, reason: str) -> Event:
    """The one event a line that changes nothing leaves in the log."""
    return Event("command-rejected", {"utterance": utterance, "reason": reason})
