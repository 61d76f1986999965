"""Every error the project raises on purpose.

::

    FacilitatorError
    ├── ContentError        a deck file is broken (file, entry, reason)
    ├── GrammarError        a grammar file is broken (file, entry, reason)
    ├── LogError            an event log cannot be read or resumed
    │   └── DecksChangedError   a sound log whose game's decks changed since it started
    ├── WriteError          a file cannot be written (the log, private messages, records, stdout)
    │   └── StdoutError         standard output cannot take the announcements
    ├── InUseError          another facilitator holds this log or data directory
    ├── OptionsError        bad command-line options or settings
    ├── SpeechError         speech in or out cannot work (no espeak-ng, not a WAV file)
    ├── DeviceError         no usable microphone or speaker (PortAudio, device names)
    ├── ModelError          a recognition model is missing, broken or cannot be installed
    └── CommandError
        ├── InvalidCommandError   the words did not parse
        └── IllegalCommandError   the rules forbid it now

Misheard speech is not an exception: the parser returns ``NotRecognized``.
"""

from __future__ import annotations

from typing import Any


class FacilitatorError(Exception):
    """Base of every error the project raises on purpose."""


class _FileEntryError(FacilitatorError):
    def __init__(self, file: str, entry: str | None, reason: str) -> None:
        self.file = file
        self.entry = entry
        self.reason = reason
        where = f"{file}: {entry}" if entry else file
        super().__init__(f"{where}: {reason}")


class ContentError(_FileEntryError):
    """A content file is missing, malformed or breaks a deck rule."""


class GrammarError(_FileEntryError):
    """A grammar file is missing, malformed or inconsistent."""


class LogError(FacilitatorError):
    """An event log cannot be read or resumed."""


class DecksChangedError(LogError):
    """The log is sound, but its game's decks (content) changed since it started: it can
    be resumed once the decks are put back, so it is never set aside for this."""


class WriteError(FacilitatorError):
    """A file cannot be written: the log, private messages, the table's records or stdout.
    Whatever was fsynced before stays; resuming redoes what followed it."""


class StdoutError(WriteError):
    """Standard output cannot take the announcements (a full disk, ``/dev/full``); the log
    already holds them, so the game can be resumed (the command line says where)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"cannot write to standard output: {reason}; the game is logged and can be resumed")


class InUseError(FacilitatorError):
    """Another facilitator (a second copy started by mistake) holds this log or data directory."""

    def __init__(self, message: str, pid: int | None = None) -> None:
        self.pid = pid
        super().__init__(message)


class OptionsError(FacilitatorError):
    """Command-line options or settings that cannot be used together."""


class SpeechError(FacilitatorError):
    """Speech recognition or synthesis cannot work (a missing program, an unreadable file)."""


class DeviceError(FacilitatorError):
    """No usable audio device: none connected, PortAudio missing, or a name that matches none."""


class ModelError(FacilitatorError):
    """A recognition model directory is missing or broken, or a model cannot be installed."""


class CommandError(FacilitatorError):
    """A command that cannot be applied."""


class InvalidCommandError(CommandError):
    """The utterance did not parse into a command."""


class IllegalCommandError(CommandError):
    """The rules forbid this command now.

    ``key`` names the response in the grammar files that explains why to the
    table, ``fields`` fill it in; ``str(error)`` is a short technical message.
    """

    def __init__(self, key: str, message: str, **fields: Any) -> None:
        self.key = key
        self.fields = fields
        super().__init__(message)
