"""Captions: every sentence the assistant says, and what the recognizer heard, as text
(invariant 5: every announcement is also shown)."""

from __future__ import annotations

from typing import IO, Protocol


class Captions(Protocol):
    def said(self, text: str) -> None:
        """A sentence the assistant speaks."""
        ...

    def heard(self, text: str) -> None:
        """What the recognizer heard."""
        ...


class StreamCaptions:
    """Captions on a text stream: sentences as they are, heard words after ``> ``."""

    def __init__(self, out: IO[str], show_heard: bool = True) -> None:
        self.out = out
        self.show_heard = show_heard

    def said(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def heard(self, text: str) -> None:
        if self.show_heard:
            self.out.write(f"> {text}\n")
            self.out.flush()


class NoCaptions:
    """No captions (tests, benchmarks)."""

    def said(self, text: str) -> None:
        pass

    def heard(self, text: str) -> None:
        pass
