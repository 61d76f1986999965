"""Clover on the screens: each seat sees its own board and writes its four clues
(checked while typing); the committer and the table screen place, turn and commit
the cards; the table shows the dial, the Record of Legends and the board face up."""

from __future__ import annotations

from typing import Any

from ...events import Audience, Event
from ..screen import Control, Field, GameScreen, Panel
from .referee import OVER, State

ZONES = ("top", "right", "bottom", "left")
SLOTS = ("top-left", "top-right", "bottom-right", "bottom-left")


def face(words: Any) -> str:
    return " · ".join(words)


class CloverScreen(GameScreen):
    def _cards(self, state: State) -> tuple[tuple[str, str], ...]:
        """Card pickers show each card's words with its number."""
        layout = state.layout
        if layout is None:
            return ()
        return tuple((str(k), f"{k}: {face(layout.words(k))}") for k in range(1, len(layout.cards) + 1))

    def _slots(self) -> tuple[tuple[str, str], ...]:
        return tuple((s, self.word("slots", s)) for s in SLOTS)

    def seat_controls(self, state: State, seat: int, legal: set[str]) -> list[Control]:
        out: list[Control] = []
        if "clue" in legal and seat in state.boards:
            view = self.referee.private_view(state, seat) or {}
            for zone in ZONES:
                ties = " / ".join(view.get("zones", {}).get(zone, []))
                zone_name = self.word("zones", zone)
                out.append(Control(f"clue-{zone}", self.word("controls", "clue", zone=zone_name),
                                   f"clue {seat} {zone} {{clue}}",
                                   (Field("clue", self.word("controls", "clue", zone=zone_name), text=True,
                                          check=True),),
                                   intent="clue", submit=self.word("controls", "submit-clue", zone=zone_name),
                                   note=self.word("words", "ties", words=ties) if ties else "",
                                   extra={"zone": zone}))
        if "read board" in legal and seat in state.boards:
            # the answer goes to this seat alone (its screen and --private), never aloud
            out.append(Control("read-board", self.word("controls", "read board"), f"read board {seat}",
                               intent="read board"))
        if "place" in legal and seat == state.committer():
            # on the committer's phone the board is played by touch: its commit comes
            # straight after it (with the pickers, the keyboard's way to place, next)
            moves = self.table_controls(state, legal)
            if "commit" in legal:
                moves.insert(0, Control("commit", self.control_label("commit", "commit"), "commit",
                                        intent="commit"))
            out = moves + out
        return out

    def table_controls(self, state: State, legal: set[str]) -> list[Control]:
        if "place" not in legal or state.layout is None:
            return []
        cards = self._cards(state)
        # no picker starts on card 1 or the top left slot: a card is placed where it was picked to go
        choose = self.word("controls", "choose")
        return [
            Control("place", self.word("controls", "place"), "place {card} {slot}",
                    (Field("card", self.word("controls", "card"), cards, choose=choose),
                     Field("slot", self.word("controls", "slot"), self._slots(), choose=choose)), intent="place"),
            Control("turn", self.word("controls", "turn"), "turn {card}",
                    (Field("card", self.word("controls", "card"), cards, choose=choose),), intent="turn"),
        ]

    def query_controls(self, state: State, legal: set[str]) -> list[Control]:
        if "read card" not in legal or state.layout is None:
            return []
        return [Control("read-card", self.word("controls", "read card"), "read card {card}",
                        (Field("card", self.word("controls", "card"), self._cards(state)),),
                        intent="read card")]

    def may_act(self, state: State, seat: int, intent: str) -> bool:
        return seat == state.committer()           # commit: the committer's call

    def prompt(self, state: State, seat: int) -> str | None:
        if state.phase == OVER:
            return None
        if state.layout is None:
            return self.word("prompts", "clues") if state.written(seat) < len(ZONES) else None
        return self.word("prompts", "committer") if seat == state.committer() else None

    def scores(self, state: State) -> list[tuple[str, str]]:
        rows = [(state.name(s), str(p)) for s, p in sorted(state.scores.items())]
        return rows + [(self.word("words", "points"), str(sum(state.scores.values())))]

    def seat_panels(self, state: State, audiences: frozenset[Audience]) -> list[Panel]:
        """A seat's own board as the clover (its clues on the square's edges), and while
        a board is being resolved the shared one the guessers place on (played by touch
        on the committer's phone)."""
        out: list[Panel] = []
        for audience in sorted((a for a in audiences if isinstance(a, int)), key=int):
            view = self.referee.private_view(state, audience)
            if view is None:
                continue
            out.append({"kind": "heading", "text": self.word("words", "your-board")})
            by_slot = {item["slot"]: item["words"] for item in view["board"]}
            out.append(self._square("myboard", self.word("words", "your-board"), view["clues"],
                                    [{"id": slot, "pos": slot, "label": self.word("slots", slot), "card": None,
                                      "words": list(by_slot.get(slot, [])), "locked": False} for slot in SLOTS],
                                    None))
            clue_word = self.word("words", "your-clue")
            out.append({"kind": "list", "cls": "zones", "items": [
                f"{self.word('zones', z)}: {' / '.join(words)} — {clue_word}: {view['clues'].get(z, '—')}"
                for z, words in view["zones"].items()]})
            if state.layout is not None and state.phase != OVER:
                seat = int(audience)
                heading = "spectator-view" if seat == state.spectator else "guessers-view"
                # a guesser works on the board being resolved (the committer places on it):
                # it comes first, before the seat's own board and clues ("lead")
                lead = seat != state.spectator
                out.append({"kind": "heading", "text": self.word("words", heading), "public": True, "lead": lead})
                out.append({**self._shared(state, touch=seat == state.committer() and seat != state.spectator),
                            "public": True, "lead": lead})
        return out

    def _square(self, cls: str, caption: str, clues: dict[str, str], slots: list[dict[str, Any]],
                pool: list[dict[str, Any]] | None, place: str = "", turn: str = "") -> Panel:
        return {
            "kind": "square", "cls": cls, "caption": caption, "place": place, "turn": turn,
            "edges": {z: clues.get(z, "") for z in ZONES},
            "edge_labels": {z: self.word("zones", z) for z in ZONES},
            "edge_names": [self.word("edges", z) for z in ZONES],
            "slots": slots, "pool": pool,
            "card_word": self.word("controls", "card"), "turn_word": self.word("controls", "turn"),
            "empty": self.word("words", "empty-slot"), "locked_word": self.word("words", "locked"),
            "pool_heading": self.word("words", "pool"), "pool_empty": self.word("words", "pool-empty"),
        }

    def _shared(self, state: State, touch: bool) -> Panel:
        """The board being resolved: the spectator's clues on the square's edges, the
        cards placed so far as they lie, and the cards not yet placed beside it."""
        layout = state.layout
        assert layout is not None
        locked = {s.value for s in layout.locked}
        clues = {z.value: c for z, c in state.clues.get(state.spectator, {}).items()}
        slots = [{"id": slot, "pos": slot, "label": self.word("slots", slot), "card": held,
                  "words": list(layout.words(held)) if held else [], "locked": slot in locked}
                 for slot, held in zip(SLOTS, layout.slots)]
        pool = [{"card": k, "words": list(layout.words(k))} for k in layout.pool]
        return self._square("clover", self.word("words", "board"), clues, slots, pool,
                            "place" if touch else "", "turn" if touch else "")

    def table_panels(self, state: State) -> list[Panel]:
        # the dial and the record come after the board: the board comes first
        out: list[Panel] = [
            {"kind": "meter", "label": self.word("words", "extra"), "min": 1, "max": 4, "value": state.extra,
             "aside": True},
            {"kind": "heading", "text": self.word("words", "legends"), "aside": True},
            {"kind": "text", "cls": "legends", "text": self._legends(state), "aside": True},
        ]
        if state.layout is None or state.phase == OVER:
            return out
        out.insert(0, {"kind": "text", "cls": "roles", "aside": True, "text": self.word(
            "words", "roles", spectator=state.name(state.spectator), committer=state.name(state.committer()))})
        out.append({"kind": "heading", "text": self.word("words", "board")})
        out.append(self._shared(state, touch=True))
        return out

    def _legends(self, state: State) -> str:
        where = self.word("words", "legends-where", players=state.players, extra=state.extra)
        if state.record is not None:
            return f"{state.record}{' ★' if state.new_record else ''} {where}"
        if state.previous_record is not None:
            return f"{state.previous_record} {where}"
        return f"{self.word('words', 'legends-none')} {where}"

    def judge(self, events: list[Event]) -> tuple[str, list[Event]]:
        for kind, verdict in (("clue-refused", "refused"), ("clue-noted", "noted")):
            telling = [e for e in events if e.type == kind]
            if telling:
                return verdict, telling
        return "ok", []


SCREEN = CloverScreen
