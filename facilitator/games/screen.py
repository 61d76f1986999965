"""What a game shows and offers on the screens, in a vocabulary the screens render.

The screens (``facilitator/screens``) know no game: each game's package may hold a
``screen.py`` whose ``SCREEN`` class (a ``GameScreen``) says what its seats and its
table see (panels), what each seat may do now (controls), whose move it is (the
prompt) and the public score.  The words shown live in the game's own
``screen.toml`` beside it.  A game with no ``screen.py`` still gets screens: its
private views are shown as plain label/value pairs, and every command its grammar
can say without a value gets a button.

Panels are plain dicts (``{"kind": ...}``) the screens' templates know:

* ``heading``: text
* ``text``: text (a ``Term``), big, cls
* ``alert``: text (read out at once: it asks for action)
* ``list``: items (``Term``s), big, cls
* ``pairs``: items (label, ``Term``), cls
* ``table``: caption, head (column titles), rows ({"cells": [Term], "mark": bool}), cls
* ``cards``: items ({"label", "text"}), cls: labelled faces in a grid
* ``meter``: label, min, max, value
* ``board``: a placement board played by touch on the table screen: zones
  ({"label", "text"}), slots ({"id", "label", "card", "face", "locked"}), pool
  ({"card", "face"}), ``place`` / ``turn`` (the control ids it posts to)

* ``square``: four cards in a square, a word on each edge of the square (``edges``:
  top/right/bottom/left) and four words on each card's edges (``slots``: id, pos,
  label, card, words, locked); ``pool`` (cards beside it) or None; ``place`` /
  ``turn`` make it a board played by touch (the control ids it posts to)
* ``chain``: items ({"role": start/tile/checkpoint/end/empty, "label", "text" or
  "words" and "say", "open", "id"}) drawn in a row with arrows; the open one marked
* ``tiles``: items ({"label", "words", "say"}): two-word tiles in a row
* ``rose``: the four directions (points: {"at": N/E/S/W, "label", "mark"}), caption
* ``columns``: items ({"heading", "items"}) side by side, empty (shown for none)
* ``details``: summary, table (as ``table``): folded away, a tap to open

Three keys any panel may carry say where it goes (the layout is the game's call):

* ``public``: on a seat screen, a panel everyone at the table sees too (the board);
  the others are the seat's private view, headed "Only for you"
* ``lead``: on a seat screen, a public panel the seat acts on now (Clover's board
  being resolved): the shared panels then come first, before the seat's private view
* ``aside``: on the table screen, a panel shown apart from the board, after it
  (Clover's dial and its Record of Legends), so that the board itself comes first

A ``Term`` is a string, or ``{"text": shown, "say": words}`` when what is shown
(letters: "E S N W") is not what a screen reader should say ("east, south, north, west").
"""

from __future__ import annotations

import importlib
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ..events import Audience, Event

Panel = dict[str, Any]


def term(text: str, say: str | None = None) -> Any:
    """What is shown, and (when different) what a screen reader says."""
    return text if not say or say == text else {"text": text, "say": say}


@dataclass(frozen=True)
class Field:
    """One input of a form: a choice among ``options`` (value, shown), or free text.
    ``check``: while typing, the screen shows what sending it would answer.
    ``choose``: nothing is preselected; the picker opens on these words ("Choose a
    name") and the form is not sent until a value is picked (a move that cannot be
    taken back is never one tap on a default)."""

    name: str
    label: str
    options: tuple[tuple[str, str], ...] = ()
    text: bool = False
    check: bool = False
    choose: str = ""


@dataclass(frozen=True)
class Choice:
    """One button of a row: what it shows, the command it sends, what a reader hears."""

    shown: str
    command: str
    say: str = ""


MAX_TEXT = 60


@dataclass(frozen=True)
class Control:
    """One button (no fields), one form (fields), or a row of ``choices`` buttons.

    ``template`` is the canonical command with ``{field}`` holes; a choice carries its
    own complete command.  ``label`` is shown (the form's legend or the button), and
    ``submit`` names a form's button when it should say more than the label."""

    id: str
    label: str
    template: str = ""
    fields: tuple[Field, ...] = ()
    choices: tuple[Choice, ...] = ()
    intent: str = ""
    submit: str = ""
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        if self.choices:
            return "choices"
        if any(f.text for f in self.fields):
            return "text"
        return "form" if self.fields else "button"

    def missing(self, values: dict[str, str]) -> Field | None:
        """The first field that must be picked (``choose``) and was left empty."""
        return next((f for f in self.fields if f.choose and not str(values.get(f.name, "")).strip()), None)

    def shown(self, values: dict[str, str]) -> dict[str, str]:
        """The posted values as the form shows them (a picker's words, not its value)."""
        out: dict[str, str] = {}
        for f in self.fields:
            value = " ".join(str(values.get(f.name, "")).split())
            out[f.name] = dict(f.options).get(value, value)
        return out

    def command(self, values: dict[str, str]) -> str | None:
        """The command text for posted ``values``; None when a value is not offered."""
        if self.choices:
            try:
                index = int(values.get("choice", ""))
            except ValueError:
                return None
            return self.choices[index].command if 0 <= index < len(self.choices) else None
        filled = {}
        for f in self.fields:
            value = " ".join(str(values.get(f.name, "")).split())
            if f.options and value not in {v for v, _ in f.options}:
                return None
            if f.text and len(value) > MAX_TEXT:
                return None
            filled[f.name] = value
        return self.template.format(**filled).strip()


class GameScreen:
    """The screens of a game that says nothing more: its private views as label/value
    pairs, a button for every command without values (for any seat), no prompt."""

    def __init__(self, referee: Any) -> None:
        self.referee = referee

    # -- words ------------------------------------------------------------------------
    def labels(self) -> dict[str, dict[str, str]]:
        """The game's screen words (``screen.toml`` in its package), or none."""
        return _labels(type(self).__module__)

    def word(self, section: str, key: str, default: str | None = None, **fields: Any) -> str:
        text = self.labels().get(section, {}).get(key, default if default is not None else key)
        return text.format(**fields) if fields else text

    def title(self) -> str:
        """The game's name as a heading shows it ("Compass Code", never its slug)."""
        slug = str(getattr(self.referee, "name", ""))
        return self.word("words", "title", " ".join(w.capitalize() for w in slug.split("-")))

    def control_label(self, intent: str, output: str) -> str:
        """A derived button's words: the game's label for the intent, else the command."""
        return self.word("controls", intent, output[:1].upper() + output[1:])

    # -- what the game offers -----------------------------------------------------------
    def seat_controls(self, state: Any, seat: int, legal: set[str]) -> list[Control]:
        """The game's own controls for ``seat`` now (derived buttons come on top)."""
        return []

    def table_controls(self, state: Any, legal: set[str]) -> list[Control]:
        """Moves made on the table screen itself."""
        return []

    def query_controls(self, state: Any, legal: set[str]) -> list[Control]:
        """Questions with values (the screens add a button for every question without)."""
        return []

    def may_act(self, state: Any, seat: int, intent: str) -> bool:
        """May ``seat`` press a button derived from the grammar for ``intent``?"""
        return True

    def prompt(self, state: Any, seat: int) -> str | None:
        """Whose move it is, as this seat's screen says it (None: not this seat's)."""
        return None

    def scores(self, state: Any) -> list[tuple[str, str]]:
        """The public score: (shown label, value) pairs."""
        return []

    def over_heading(self, state: Any) -> str | None:
        """What the screens say above the result at the end (None: "The game is over.")."""
        return None

    def seat_panels(self, state: Any, audiences: frozenset[Audience]) -> list[Panel]:
        """What the seat reading ``audiences`` sees privately, from the referee's views."""
        out: list[Panel] = []
        for audience in sorted(audiences, key=str):
            view = self.referee.private_view(state, audience)
            if view:
                out.append({"kind": "pairs", "items": [(k, _plain(v)) for k, v in view.items()]})
        return out

    def table_panels(self, state: Any) -> list[Panel]:
        """Public things the table screen shows besides the status and the scores."""
        return []

    def confirmation(self, intent: str, shown: dict[str, str] | None = None) -> str | None:
        """The question a click of ``intent`` is asked before it is sent, for a move that
        discards progress or cannot be taken back (the game's ``[confirm]`` words, which
        may name what was picked: ``{name}`` is the picked name as shown); None: sent at once."""
        question = self.labels().get("confirm", {}).get(intent)
        if question is None or not shown:
            return question
        try:
            return question.format(**shown)
        except (KeyError, IndexError, ValueError):
            return question

    def release_sees(self, state: Any, seat: int) -> str | None:
        """What the next device holding ``seat`` would see that is hidden now (said when
        the table releases it): the game's ``release-<audience>`` words for each private
        audience the seat reads with something in it ("" when the game names none);
        None when the seat holds nothing hidden."""
        seen: list[str] = []
        hidden = False
        for audience in sorted(self.referee.seat_audiences(state, seat), key=str):
            if not self.referee.private_view(state, audience):
                continue
            hidden = True
            key = "release-seat" if isinstance(audience, int) else f"release-{audience}"
            said = self.word("words", key, "")
            if said:
                seen.append(said)
        return " and ".join(dict.fromkeys(seen)) if hidden else None

    def judge(self, events: list[Event]) -> tuple[str, list[Event]]:
        """A checked field: ``refused``, ``noted`` or ``ok`` for the events sending it
        would log, and the events whose private text says why (nothing is logged)."""
        return "ok", []


def _plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    return "" if value is None else str(value)


@lru_cache(maxsize=16)
def _labels(module: str) -> dict[str, dict[str, str]]:
    package = module.rpartition(".")[0]
    try:
        text = resources.files(package).joinpath("screen.toml").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, TypeError):
        return {}
    return tomllib.loads(text)


_screens: dict[int, GameScreen] = {}


def screen_for(referee: Any) -> GameScreen:
    """The game's screen: its referee's ``screen`` class if it names one, else the
    ``SCREEN`` of a ``screen`` module beside the referee's, else ``GameScreen``."""
    found = _screens.get(id(referee))
    if found is not None and found.referee is referee:
        return found
    cls = getattr(referee, "screen", None)
    if cls is None:
        package = type(referee).__module__.rpartition(".")[0]
        try:
            cls = getattr(importlib.import_module(f"{package}.screen"), "SCREEN", None)
        except (ModuleNotFoundError, TypeError, ValueError):
            cls = None
    screen = (cls or GameScreen)(referee)
    _screens[id(referee)] = screen
    return screen
