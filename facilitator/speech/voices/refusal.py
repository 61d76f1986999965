"""The words for a role's command said by another seat, whoever told the loop who spoke
(a voiceprint at the table's microphone, or the seat holding the phone)."""

from __future__ import annotations

from typing import Any

from ...command import Command
from ...session import Reply


def seat_name(session: Any, seat: int) -> str:
    """Seat ``seat``'s name at the table ("Ann"), or its number said as a seat."""
    names = tuple(getattr(session.state, "names", ()) or ())
    return names[seat - 1] if 0 < seat <= len(names) else str(session.phrases.say("seat-name", seat=seat))


def refuse(session: Any, command: Command, acting: frozenset[int], heard: int | None, reason: str) -> Reply:
    """Refuse ``command`` (logged as one ``command-rejected``): "That is Ann's guess to send."
    when one seat may give it, else the spectator's reminder to stay silent, by name."""
    if len(acting) == 1:
        owner = next(iter(acting))
        key = "speaker-not-yours-" + command.intent.replace(" ", "-")
        if key not in session.phrases:
            key = "speaker-not-yours"
        fields = {"name": seat_name(session, owner)}
    else:
        key, fields = "speaker-spectator", {"name": seat_name(session, heard or 0)}
    return session.reject(command.text, key, reason, command, **fields)  # type: ignore[no-any-return]
