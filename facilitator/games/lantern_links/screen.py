"""Lantern Links on the screens: nothing is private; the player whose turn it is plays
a tile (each button says the tile's two words), passes, rewinds or finishes."""

from __future__ import annotations

from ..screen import Choice, Control, GameScreen
from .referee import State


class LanternScreen(GameScreen):
    def seat_controls(self, state: State, seat: int, legal: set[str]) -> list[Control]:
        if seat != state.turn or "play" not in legal:
            return []
        tiles = state.pool if state.pool_variant else state.hands[seat - 1]
        # the button shows the tile's letter and both its words, so its name says them too
        choices = tuple(Choice(f"{t}: {' · '.join(state.words[t])}", f"play {t}") for t in tiles)
        return [Control("play", self.word("controls", "play"), choices=choices, intent="play")]

    def may_act(self, state: State, seat: int, intent: str) -> bool:
        return seat == state.turn          # pass, rewind, finish: the player whose turn it is

    def prompt(self, state: State, seat: int) -> str | None:
        return self.word("prompts", "player") if not state.over and seat == state.turn and not state.paused \
            else None

    def scores(self, state: State) -> list[tuple[str, str]]:
        return [(self.word("words", "route-points"), " + ".join(str(r) for r in state.results) or "0"),
                (self.word("words", "points"), str(state.total))]


SCREEN = LanternScreen
