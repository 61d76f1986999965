"""Lantern Links on the screens: the chain from the start word through the checkpoint to
the end word, tile by tile, with the open word marked; every phone shows its player's
own tiles at all times (or the shared pool); the player whose turn it is plays a tile
(each button says the tile's two words), passes, or, when everyone has passed, is
asked to rewind or finish.  Nothing in the game is private."""

from __future__ import annotations

from typing import Any

from ...events import Audience
from ..screen import Choice, Control, GameScreen, Panel
from .referee import State
from .rules import CHAIN_LENGTH, CHECKPOINT_AFTER


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
        if state.over or seat != state.turn:
            return None
        return self.word("prompts", "paused" if state.paused else "player")

    def scores(self, state: State) -> list[tuple[str, str]]:
        return [(self.word("words", "route-points"), " + ".join(str(r) for r in state.results) or "0"),
                (self.word("words", "points"), str(state.total))]

    # -- the board ------------------------------------------------------------------------
    def _tile(self, letter: str, words: tuple[str, str] | list[str]) -> dict[str, Any]:
        return {"label": letter, "words": list(words),
                "say": self.word("words", "tile-say", tile=letter, left=words[0], right=words[1])}

    def chain(self, state: State) -> Panel:
        """Start, the six places (tiles as turned, empty ones dashed), the checkpoint after
        the third, the end; the open word is marked where it is."""
        open_at = len(state.chain)           # 0: the start word is open
        items: list[dict[str, Any]] = [{"role": "start", "label": self.word("words", "start"),
                                        "text": state.start, "open": open_at == 0, "id": "link-start"}]
        for place in range(1, CHAIN_LENGTH + 1):
            if place <= len(state.chain):
                link = state.chain[place - 1]
                tile = self._tile(link.tile, (link.left, link.right))
                items.append({"role": "tile", **tile, "open": place == open_at, "id": f"link-{place}"})
            else:
                items.append({"role": "empty", "label": str(place), "text": "", "open": False,
                              "id": f"link-{place}"})
            if place == CHECKPOINT_AFTER:
                items.append({"role": "checkpoint", "label": self.word("words", "checkpoint"),
                              "text": state.checkpoint, "open": False, "id": "link-checkpoint"})
        items.append({"role": "end", "label": self.word("words", "end"), "text": state.end,
                      "open": False, "id": "link-end"})
        return {"kind": "chain", "caption": self.word("words", "chain", index=state.index),
                "open_word": self.word("words", "open-mark"), "items": items}

    def _hand(self, state: State, seat: int) -> list[Panel]:
        if state.pool_variant:
            heading, tiles = self.word("words", "pool"), state.pool
        else:
            heading, tiles = self.word("words", "your-tiles"), state.hands[seat - 1]
        panel: Panel = {"kind": "tiles", "cls": "hand", "caption": heading,
                        "items": [self._tile(t, state.words[t]) for t in tiles]}
        out: list[Panel] = [{"kind": "heading", "text": heading}]
        if not tiles:
            out.append({"kind": "text", "text": self.word("words", "no-tiles")})
        else:
            out.append(panel)
        return out

    def _open(self, state: State) -> Panel:
        return {"kind": "text", "cls": "open-word", "big": True,
                "text": self.word("words", "open", open=state.open)}

    def table_panels(self, state: State) -> list[Panel]:
        if not state.start:
            return []
        out: list[Panel] = [{"kind": "heading", "text": self.word("words", "chain", index=state.index)},
                            self.chain(state)]
        if not state.over:
            out.append(self._open(state))
        return out

    def seat_panels(self, state: State, audiences: frozenset[Audience]) -> list[Panel]:
        seats = [a for a in audiences if isinstance(a, int) and 1 <= a <= state.players]
        if not seats or not state.start:
            return []
        out = self._hand(state, int(seats[0]))
        out += [{"kind": "heading", "text": self.word("words", "chain", index=state.index)}, self.chain(state)]
        if not state.over:
            out.append(self._open(state))
        # nothing in the game is private: the hands are public and read aloud on request
        return [{**p, "public": True} for p in out]


SCREEN = LanternScreen
