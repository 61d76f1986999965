"""After two failures in a row, the right form once.

A failure is a command addressed to the referee that it did not understand, or
one the rules refused.  After ``hint_after_failures`` in a row the referee offers
the right form once: the usage line of the intent the player tried (a refused
command), else the moment's help (words it could not place).  It offers it again
only after a command succeeds and two more fail.
"""

from __future__ import annotations

from collections.abc import Callable


class Hints:
    def __init__(self, after_failures: int) -> None:
        self.after = after_failures
        self.failures = 0
        self._hinted = False

    def succeeded(self) -> None:
        self.failures, self._hinted = 0, False

    def failed(self, usage: str | None, moment_help: Callable[[], str]) -> list[str]:
        """Count a failure; the sentence to add to the reply (none, or the hint once)."""
        self.failures += 1
        if self.failures >= self.after and not self._hinted:
            self._hinted = True
            return [usage or moment_help()]
        return []
