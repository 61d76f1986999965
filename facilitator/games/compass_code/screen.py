"""Compass Code on the screens: the captain sends and checks, a human keeper sees the
route and the marks of every guess and gives the totals."""

from __future__ import annotations

from typing import Any

from ...events import Audience
from ..screen import Control, Field, GameScreen, Panel, term
from .referee import LEGS, State

DIRECTIONS = ("N", "E", "S", "W")


class CompassScreen(GameScreen):
    def _direction_options(self) -> tuple[tuple[str, str], ...]:
        return tuple((d, self.word("directions", d)) for d in DIRECTIONS)

    def said(self, letters: str) -> str:
        """A route or marks as a screen reader should say it: words, not letters."""
        names = self.labels().get("directions", {}) | self.labels().get("marks", {})
        return ", ".join(names.get(ch, ch) for ch in letters.split())

    def route_term(self, route: str) -> Any:
        shown = " ".join(route)
        return term(shown, self.said(shown))

    def seat_controls(self, state: State, seat: int, legal: set[str]) -> list[Control]:
        out: list[Control] = []
        directions = self._direction_options()
        # no picker starts on a value: a guess or the leg's one bearing check is never a tap on a default
        choose = self.word("controls", "choose")
        if seat == state.captain and "send" in legal:
            picks = tuple(Field(k, self.word("controls", f"position-{i}"), directions, choose=choose)
                          for i, k in enumerate("abcd", 1))
            out.append(Control("send", self.word("controls", "send"), "send {a}{b}{c}{d}", picks,
                               intent="send"))
            if "check" in legal:
                out.append(Control("check", self.word("controls", "check"), "check {direction} {position}",
                                   (Field("direction", self.word("controls", "direction"), directions,
                                          choose=choose),
                                    Field("position", self.word("controls", "position"),
                                          tuple((str(n), str(n)) for n in range(1, 5)), choose=choose)),
                                   intent="check"))
        if seat == state.keeper and "route card" in legal:
            # the card entered replaces the drawn route: never a tap on a default, and asked first
            cards = tuple((str(n), str(n)) for n in range(1, 25))
            out.append(Control("route-card", self.word("controls", "route card"), "route card {card}",
                               (Field("card", self.word("controls", "card-number"), cards, choose=choose),),
                               intent="route card"))
        if seat == state.keeper and "feedback" in legal:
            # a keeper's totals cannot be taken back: nothing is preselected, and they are asked first
            numbers = tuple((str(n), str(n)) for n in range(5))
            out.append(Control("feedback", self.word("controls", "feedback"), "feedback {anchors} {clockwise}",
                               (Field("anchors", self.word("controls", "anchors"), numbers, choose=choose),
                                Field("clockwise", self.word("controls", "clockwise"), numbers, choose=choose)),
                               intent="feedback"))
        return out

    def may_act(self, state: State, seat: int, intent: str) -> bool:
        return seat in (state.captain, state.keeper)

    def prompt(self, state: State, seat: int) -> str | None:
        if state.over:
            return None
        if state.pending is not None:
            return self.word("prompts", "keeper") if seat == state.keeper else None
        return self.word("prompts", "captain") if seat == state.captain else None

    def scores(self, state: State) -> list[tuple[str, str]]:
        """Legs solved of those played (as the status sentence says it), and the leg now."""
        solved, played = sum(state.results), len(state.results)
        value = self.word("words", "legs-value", solved=solved, played=played) if played \
            else self.word("words", "legs-none")
        return [(self.word("words", "legs"), value),
                (self.word("words", "leg"), self.word("words", "leg-value", leg=max(state.leg, 1), legs=LEGS))]

    def totals(self, anchors: int, clockwise: int) -> str:
        """A guess's totals in words ("1 anchor, 2 clockwise steps"), as they are said."""
        return self.word("words", "totals", anchors=self.word(
            "words", "anchor-1" if anchors == 1 else "anchor-n", n=anchors), clockwise=self.word(
            "words", "clockwise-1" if clockwise == 1 else "clockwise-n", n=clockwise))

    # -- the board: a compass, the leg's guesses and what is left ---------------------------
    def board(self, state: State) -> list[Panel]:
        """Public: the compass with the last guess's positions on its points, one row per
        guess of the leg (route, anchors, clockwise steps), the bearing check, and how
        many routes are still possible."""
        if state.leg == 0 or state.over:
            return []
        last = state.pending or (state.scored[-1].route if state.scored else "")
        points = [{"at": d, "label": d, "mark": str(last.index(d) + 1) if d in last else ""} for d in DIRECTIONS]
        caption = self.word("words", "compass-say", route=self.said(" ".join(last))) if last \
            else self.word("words", "compass-empty")
        rows: list[dict[str, Any]] = []
        number = 1
        # three columns (guess, route, totals in words): four would not fit a 390 px phone
        for s in state.scored:
            rows.append({"cells": [str(number), self.route_term(s.route), self.totals(s.anchors, s.clockwise)]})
            number += 0 if s.corrected else 1
        if state.pending:
            rows.append({"mark": True, "cells": [f"{number} ⟵", self.route_term(state.pending),
                                                 self.word("words", "waiting")]})
        out: list[Panel] = [
            {"kind": "heading", "text": self.word("words", "board-heading", leg=state.leg, legs=LEGS)},
            {"kind": "rose", "cls": "compass", "caption": caption, "points": points,
             "note": self.word("words", "compass-note") if last else ""},
            {"kind": "table", "cls": "history", "caption": self.word("words", "history-caption"),
             "head": [self.word("words", "guess"), self.word("words", "route"), self.word("words", "totals-head")],
             "rows": rows},
        ]
        if state.check is not None:
            c = state.check
            out.append({"kind": "text", "cls": "check", "text": self.word(
                "words", "check-yes" if c.answer else "check-no",
                direction=self.word("directions", c.direction), position=c.position)})
        out.append({"kind": "text", "cls": "candidates", "text": self.word(
            "words", "candidates", n=len(self.referee.candidates(state)))})
        return out

    def table_panels(self, state: State) -> list[Panel]:
        return self.board(state)

    def seat_panels(self, state: State, audiences: frozenset[Audience]) -> list[Panel]:
        view = self.referee.private_view(state, "keeper") if "keeper" in audiences else None
        if view is None:
            return [{**p, "public": True} for p in self.board(state)]
        rows: list[dict[str, Any]] = [{"cells": [str(g["guess"]), self.route_term(g["route"]), term(g["marks"].replace("-", "–"),
                                                                              self.said(g["marks"]))]}
                for g in view["guesses"]]
        if view["pending"]:
            p = view["pending"]
            rows.append({"mark": True, "cells": [f"{p['guess']} ⟵", self.route_term(p["route"]),
                                                 term(p["marks"].replace("-", "–"), self.said(p["marks"]))]})
        panels: list[Panel] = [
            {"kind": "heading", "text": self.word("words", "route-heading", card=view["card"])},
            {"kind": "text", "text": self.route_term(view["route"]), "big": True, "cls": "route"},
        ]
        if view["recount"]:
            panels.append({"kind": "alert", "text": self.word("words", "recount")})
        panels.append({"kind": "table", "cls": "marks", "caption": self.word("words", "marks-caption"),
                       "head": [self.word("words", "guess"), self.word("words", "route"),
                                self.word("words", "marks")], "rows": rows})
        return panels


SCREEN = CompassScreen
