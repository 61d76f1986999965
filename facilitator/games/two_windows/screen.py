"""Two Windows on the screens: each member of an informant team reads its report and
may lock one fact; the decoder team answers, asks for more or replaces the packet."""

from __future__ import annotations

from ...events import Audience
from ..screen import Choice, Control, Field, GameScreen, Panel
from .deck import ALL_FACTS
from .referee import HOLDERS, State
from .teams import team_of


class TwoWindowsScreen(GameScreen):
    def _decodes(self, state: State, seat: int) -> bool:
        return team_of(seat).value == state.decoder

    def seat_controls(self, state: State, seat: int, legal: set[str]) -> list[Control]:
        out: list[Control] = []
        audiences = self.referee.seat_audiences(state, seat)
        for holder in HOLDERS:
            if holder in audiences and f"{holder} sends" in legal:
                view = self.referee.private_view(state, holder) or {}
                choices = tuple(Choice(fact, f"{holder} sends {fact}",
                                       self.word("words", "lock-say", fact=fact.lower()))
                                for fact in view.get("facts", []))
                out.append(Control(f"{holder}-sends", self.word("controls", "lock-fact"), choices=choices,
                                   intent=f"{holder} sends"))
        if self._decodes(state, seat) and "final" in legal:
            names = self.referee.deck(state.practice).names
            # a final answer cannot be taken back: no name is preselected, and it is asked first
            out.append(Control("final", self.word("controls", "final"), "final {name}",
                               (Field("name", self.word("controls", "name"),
                                      tuple((n, n) for n in names), choose=self.word("controls", "choose-name")),),
                               intent="final"))
        return out

    def query_controls(self, state: State, legal: set[str]) -> list[Control]:
        """The catalogue is public: any seat may hear an entry, or which entries share a value.
        Values are shown as single words ("striped"): a fact's own wording ("SURFACE
        STRIPED") is what a report holds, and the table screen never shows a report."""
        out: list[Control] = []
        if "read entry" in legal:
            names = tuple((n, n) for n in self.referee.deck(state.practice).names)
            out.append(Control("read-entry", self.word("controls", "read entry"), "read entry {name}",
                               (Field("name", self.word("controls", "name"), names),), intent="read entry"))
        if "which entries" in legal:
            values = tuple((v, v) for v in (fact.split()[1].lower() for fact in ALL_FACTS))
            out.append(Control("which-entries", self.word("controls", "which entries"),
                               "which entries are {value}",
                               (Field("value", self.word("controls", "value"), values),),
                               intent="which entries"))
        return out

    def may_act(self, state: State, seat: int, intent: str) -> bool:
        return self._decodes(state, seat)      # more, replace packet: the decoder team's calls

    def prompt(self, state: State, seat: int) -> str | None:
        if state.over:
            return None
        audiences = self.referee.seat_audiences(state, seat)
        if state.stage == 0 and any(h in audiences and state.locked(h) is None for h in HOLDERS):
            return self.word("prompts", "informant")
        if state.stage > 0 and self._decodes(state, seat):
            return self.word("prompts", "decoder")
        return None

    def scores(self, state: State) -> list[tuple[str, str]]:
        label = "practice-points" if state.practice else "points"
        return [(self.word("words", label), f"{state.points} / {state.possible}")]

    def over_heading(self, state: State) -> str | None:
        return self.word("words", "practice-over") if state.practice else None

    # -- the board: what is revealed, side by side, and the catalogue a tap away -----------
    def board(self, state: State) -> list[Panel]:
        if state.round == 0 or state.over:
            return [self.catalogue(state)] if state.over else []
        columns = []
        for index, (holder, team) in enumerate(zip(HOLDERS, (state.a_team, state.b_team))):
            columns.append({"heading": self.word("words", "revealed-heading", report=holder.upper(), team=team),
                            "items": [sent[index] for sent in state.sent]})
        title = self.word("words", "revealed-title-practice") if state.practice else \
            self.word("words", "revealed-title", round=state.round, rounds=state.rounds)
        return [{"kind": "heading", "text": title},
                {"kind": "columns", "cls": "revealed", "items": columns,
                 "empty": self.word("words", "nothing-revealed")},
                self.catalogue(state)]

    def catalogue(self, state: State) -> Panel:
        """Every entry with its four values, as single words (a report's facts are not)."""
        entries = self.referee.deck(state.practice).entries
        fields = ("form", "size", "surface", "edge")
        return {"kind": "details", "cls": "catalogue-box",
                "summary": self.word("words", "catalogue", n=len(entries)),
                "table": {"caption": self.word("words", "catalogue-caption"), "cls": "catalogue",
                          "head": [self.word("controls", "name"), *(self.word("fields", f) for f in fields)],
                          "rows": [{"cells": [e.name, *(str(getattr(e, f)).lower() for f in fields)]}
                                   for e in entries]}}

    def table_panels(self, state: State) -> list[Panel]:
        return self.board(state)

    def seat_panels(self, state: State, audiences: frozenset[Audience]) -> list[Panel]:
        return self._reports(state, audiences) + [{**p, "public": True} for p in self.board(state)]

    def _reports(self, state: State, audiences: frozenset[Audience]) -> list[Panel]:
        out: list[Panel] = []
        for holder in HOLDERS:
            view = self.referee.private_view(state, holder) if holder in audiences else None
            if view is None:
                continue
            locked = self.word("words", "locked-fact")
            facts = [f"{fact} — [{locked}]" if fact == view["locked"] else fact for fact in view["facts"]]
            out.append({"kind": "heading", "text": self.word("words", "report", report=view["report"],
                                                              team=view["team"])})
            out.append({"kind": "list", "items": facts, "big": True, "cls": "facts"})
            if view["revealed"]:
                out.append({"kind": "text", "text": self.word("words", "revealed")})
        return out


SCREEN = TwoWindowsScreen
