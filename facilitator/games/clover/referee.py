"""The Clover referee: deal, clue writing, resolution per spectator, the Record of Legends.

Events (audience in brackets):

* ``clover-dealt`` (public): players, extra, record (the best total so far, or null)
* ``board-dealt`` (the seat): seat, board (``[{"slot", "words"}]``, words top, right, bottom, left)
* ``clue-refused`` (the seat): seat, zone, clue, reason (``empty``, ``space``, ``board-word``), word
* ``clue-noted`` (the seat): seat, zone, clue, note (``same-family``, ``unknown-word``), word
* ``clue-written`` (the seat): seat, zone, clue
* ``clue-received`` (public): seat, zone, accepted, written (zones with a clue), done (seats with four),
  ready (this clue was the seat's fourth: its clues are in)
* ``resolution-started`` (public): round, spectator, committer, cards (``[{"card", "words"}]``), clues
* ``card-placed`` (public): spectator, card, slot, from (slot or null), swapped (card or null)
* ``card-turned`` (public): spectator, card, words (after the quarter turn)
* ``attempt-made`` (public): spectator, attempt, correct_cards, placed (slot -> card), right (slots),
  returned (cards)
* ``board-scored`` (public): spectator, points, attempts, board (revealed now), placed
* ``game-ended`` (public): points, record, new_record, previous, players, extra, scores (seat -> points)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...command import Command, RuntimeLists
from ...errors import IllegalCommandError, OptionsError
from ...events import Audience, Event
from ...phrases import Phrasebook
from .. import Referee
from . import record as legends
from .board import (
    SLOTS,
    ZONES,
    Side,
    Slot,
    Words,
    all_words,
    board_from_json,
    board_to_json,
    turn,
    zone_words,
)
from .clues import check_clue
from .deck import KeywordDeck, load_deck
from .lexicon import Lexicon, word_list
from .resolution import (
    Layout,
    after_first_attempt,
    check_place,
    check_turn,
    correct_slots,
    place,
    score,
    set_words,
)

CARDS_EACH = 4
EXTRA_RANGE = (1, 4)
CLUES = "clues"
RESOLUTION = "resolution"
OVER = "over"


@dataclass(frozen=True)
class State:
    players: int
    names: tuple[str, ...]
    extra: int = 1
    previous_record: int | None = None
    boards: Mapping[int, Mapping[Slot, Words]] = field(default_factory=dict)
    clues: Mapping[int, Mapping[Side, str]] = field(default_factory=dict)
    used: frozenset[str] = frozenset()  # words of every card dealt or drawn so far
    phase: str = CLUES
    spectator: int = 0
    layout: Layout | None = None
    scores: Mapping[int, int] = field(default_factory=dict)
    record: int | None = None
    new_record: bool = False

    def name(self, seat: int) -> str:
        return self.names[seat - 1]

    def committer(self) -> int:
        """The player left of the spectator (the next seat) decides and commits."""
        return self.spectator % self.players + 1

    def written(self, seat: int) -> int:
        return len(self.clues.get(seat, {}))

    def done(self) -> int:
        return sum(1 for s in range(1, self.players + 1) if self.written(s) == len(ZONES))


def _laid_out(state: State) -> Layout:
    """The cards on the table; ValueError when none are (a log out of order)."""
    if state.layout is None:
        raise ValueError("no cards are laid out")
    return state.layout


def _slot_words(slot: str) -> str:
    return slot.replace("-", " ")


class Clover(Referee[State]):
    name = "clover"
    min_players = 3
    max_players = 6
    default_players = 4
    queries = frozenset({"read card", "read cards", "read clues", "status", "help", "read rules"})
    private_queries = frozenset({"read board"})

    def __init__(self) -> None:
        self._deck: KeywordDeck | None = None
        self.lexicon: Lexicon | None = None
        self._lexicon_loaded = False

    @property
    def deck(self) -> KeywordDeck:
        if self._deck is None:
            self._deck = load_deck()
        return self._deck

    def words_known(self) -> Lexicon | None:
        if not self._lexicon_loaded:
            self.lexicon = word_list()
            self._lexicon_loaded = True
        return self.lexicon

    # -- options -----------------------------------------------------------------
    def parse_options(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        other = set(flags) - {"extra"}
        if other:
            raise OptionsError(f"--{min(other)} is not an option of clover")
        extra = flags.get("extra", 1)
        if isinstance(extra, bool) or not isinstance(extra, int):
            raise OptionsError(f"--extra takes a number from 1 to 4, not {extra!r}")
        return {"extra": extra}

    def check_options(self, options: Mapping[str, Any], players: int) -> None:
        extra = options.get("extra", 1)
        lo, hi = EXTRA_RANGE
        if isinstance(extra, bool) or not isinstance(extra, int) or not lo <= extra <= hi:
            raise OptionsError(f"--extra takes a number from {lo} to {hi}, not {extra!r}")
        self.deck  # noqa: B018  (content problems surface before the game starts)

    def prepare_options(self, options: dict[str, Any], table: Mapping[str, Any]) -> dict[str, Any]:
        """Adds ``records``: the table's bests for this dial, per player count (logged in
        ``game-started``, so replay needs no table data)."""
        out = dict(options)
        out.setdefault("extra", 1)
        records = table.get("records")
        kept = records if isinstance(records, Mapping) else {}
        out["records"] = {
            str(k): v
            for k, v in kept.items()
            if str(k).endswith(f"-{out['extra']}")
            and isinstance(v, int)
            and not isinstance(v, bool)
            and v >= 0
        }
        return out

    keeps_table = True

    def with_table(self, state: State, table: Mapping[str, Any]) -> State:
        """The record as the table holds it now: a game played to its end meanwhile (games
        interleaved at one table) may have set it.  ``game-ended`` logs what was used."""
        if state.phase == OVER:
            return state
        return replace(state, previous_record=legends.best(table, state.players, state.extra))

    def table_update(
        self, table: Mapping[str, Any], events: Sequence[Event]
    ) -> dict[str, Any] | None:
        return legends.updated(table, events)

    # -- setup -------------------------------------------------------------------
    def initial(self, started: Event) -> State:
        opts = started["options"]
        players = int(started["players"])
        extra = int(opts.get("extra", 1))
        previous = legends.best({"records": opts.get("records") or {}}, players, extra)
        return State(
            players=players, names=tuple(started["names"]), extra=extra, previous_record=previous
        )

    def setup(self, state: State, rng: random.Random) -> list[Event]:
        """Deal four random cards to each seat, each in a random slot and rotation."""
        cards = rng.sample(self.deck.cards, CARDS_EACH * state.players)
        events = [
            Event(
                "clover-dealt",
                {"players": state.players, "extra": state.extra, "record": state.previous_record},
            )
        ]
        for seat in range(1, state.players + 1):
            mine = cards[(seat - 1) * CARDS_EACH : seat * CARDS_EACH]
            board = {slot: turn(card.printed, rng.randrange(4)) for slot, card in zip(SLOTS, mine)}
            events.append(Event("board-dealt", {"seat": seat, "board": board_to_json(board)}, seat))
        return events

    # -- decisions ---------------------------------------------------------------
    def typed_words_private(self, state: State) -> bool:
        return state.phase == CLUES

    def legal_intents(self, state: State) -> set[str]:
        if state.phase == OVER:
            return set()
        if state.phase == CLUES:
            return {"clue", "status", "help", "read rules", "read board"}
        return {"place", "turn", "commit", "read board"} | set(self.queries)

    def runtime_lists(self, state: State) -> RuntimeLists:
        return {"seat": {str(s): [state.name(s)] for s in range(1, state.players + 1)}}

    def acting_seats(self, state: State, command: Command) -> frozenset[int] | None:
        """The player left of the spectator commits; anyone but the spectator (who may
        not communicate) moves cards; a spoken clue is its writer's."""
        seats = frozenset(range(1, state.players + 1))
        if state.phase == RESOLUTION and command.intent == "commit":
            return frozenset({state.committer()})
        if state.phase == RESOLUTION and command.intent in ("place", "turn"):
            return seats - {state.spectator}
        if command.intent == "clue" and str(command.slots.get("seat", "")).isdigit():
            return frozenset({int(command.slots["seat"])}) & seats or None
        return None

    def decide(self, state: State, command: Command, rng: random.Random) -> list[Event]:
        if state.phase == OVER:
            raise IllegalCommandError("game-over", "the game is over")
        intent = command.intent
        if intent == "clue":
            return self._clue(state, command, rng)
        if intent in ("place", "turn", "commit") and state.phase != RESOLUTION:
            waiting = [
                state.name(s) for s in range(1, state.players + 1) if state.written(s) < len(ZONES)
            ]
            raise IllegalCommandError(
                "cl-clues-first", f"{intent!r} before resolution", waiting=", ".join(waiting)
            )
        if intent == "place":
            card, slot = int(command.slots["card"]), Slot(command.slots["slot"])
            origin, displaced = check_place(_laid_out(state), card, slot)
            return [
                Event(
                    "card-placed",
                    {
                        "spectator": state.spectator,
                        "card": card,
                        "slot": slot.value,
                        "from": origin.value if origin else None,
                        "swapped": displaced,
                    },
                )
            ]
        if intent == "turn":
            card = int(command.slots["card"])
            words = check_turn(_laid_out(state), card)
            return [
                Event(
                    "card-turned",
                    {"spectator": state.spectator, "card": card, "words": list(words)},
                )
            ]
        if intent == "commit":
            return self._commit(state, rng)
        raise IllegalCommandError("not-in-game", f"{command.canonical!r} is not a Clover move")

    def _clue(self, state: State, command: Command, rng: random.Random) -> list[Event]:
        seat = int(command.slots["seat"])
        zone = Side(command.slots["zone"].lower())
        clue = command.slots.get("clue", "")
        if state.phase != CLUES:
            raise IllegalCommandError("cl-clues-closed", "clue writing is over")
        if not 1 <= seat <= state.players:
            raise IllegalCommandError(
                "cl-no-such-seat",
                f"no seat {seat} (seats 1 to {state.players})",
                seat=seat,
                players=state.players,
            )
        board = state.boards[seat]
        verdict = check_clue(clue, all_words(board), self.words_known())
        if verdict.refused is not None:
            return [
                Event(
                    "clue-refused",
                    {
                        "seat": seat,
                        "zone": zone.value,
                        "clue": clue,
                        "reason": verdict.refused.value,
                        "word": verdict.word,
                    },
                    seat,
                ),
                Event(
                    "clue-received",
                    {
                        "seat": seat,
                        "zone": zone.value,
                        "accepted": False,
                        "written": state.written(seat),
                        "done": state.done(),
                    },
                ),
            ]
        events = [
            Event(
                "clue-noted",
                {
                    "seat": seat,
                    "zone": zone.value,
                    "clue": clue,
                    "note": note.kind.value,
                    "word": note.word,
                },
                seat,
            )
            for note in verdict.notes
        ]
        events.append(Event("clue-written", {"seat": seat, "zone": zone.value, "clue": clue}, seat))
        after = dict(state.clues)
        after[seat] = {**after.get(seat, {}), zone: clue}
        written = len(after[seat])
        later = replace(state, clues=after)
        events.append(
            Event(
                "clue-received",
                {
                    "seat": seat,
                    "zone": zone.value,
                    "accepted": True,
                    "written": written,
                    "done": later.done(),
                    "ready": written == len(ZONES) and state.written(seat) < len(ZONES),
                },
            )
        )
        if later.done() == state.players:
            events.append(self._resolution(later, 1, rng))
        return events

    def _resolution(self, state: State, spectator: int, rng: random.Random) -> Event:
        """Lay out the spectator's four cards and the dial's extras, shuffled, each turned at random."""
        unused = [c for c in self.deck.cards if not set(c.words) & state.used]
        extras = rng.sample(unused, state.extra)
        faces = [tuple(state.boards[spectator][slot]) for slot in SLOTS] + [
            c.printed for c in extras
        ]
        rng.shuffle(faces)
        cards = [
            {"card": k, "words": list(turn(face, rng.randrange(4)))}
            for k, face in enumerate(faces, 1)
        ]
        clues = {zone.value: state.clues[spectator][zone] for zone in ZONES}
        return Event(
            "resolution-started",
            {
                "round": spectator,
                "spectator": spectator,
                "committer": spectator % state.players + 1,
                "cards": cards,
                "clues": clues,
            },
        )

    def _commit(self, state: State, rng: random.Random) -> list[Event]:
        layout = _laid_out(state)
        if not layout.full:
            empty = [_slot_words(s.value) for s, held in zip(SLOTS, layout.slots) if held is None]
            raise IllegalCommandError(
                "cl-commit-incomplete",
                f"{len(empty)} slot(s) empty",
                n=len(empty),
                slots=", ".join(empty),
            )
        board = state.boards[state.spectator]
        right = correct_slots(layout, board)
        points = score(layout.attempt, len(right))
        returned = sorted(
            held
            for slot, held in zip(SLOTS, layout.slots)
            if slot not in right and held is not None
        )
        events = [
            Event(
                "attempt-made",
                {
                    "spectator": state.spectator,
                    "attempt": layout.attempt,
                    "correct_cards": len(right),
                    "placed": layout.placed(),
                    "right": [s.value for s in right],
                    "returned": returned if points is None else [],
                },
            )
        ]
        if points is None:
            return events
        events.append(
            Event(
                "board-scored",
                {
                    "spectator": state.spectator,
                    "points": points,
                    "attempts": layout.attempt,
                    "board": board_to_json(board),
                    "placed": layout.placed(),
                },
            )
        )
        scores = {**state.scores, state.spectator: points}
        if state.spectator < state.players:
            events.append(self._resolution(state, state.spectator + 1, rng))
            return events
        total = sum(scores.values())
        best, new = legends.outcome(state.previous_record, total)
        events.append(
            Event(
                "game-ended",
                {
                    "points": total,
                    "record": best,
                    "new_record": new,
                    "previous": state.previous_record,
                    "players": state.players,
                    "extra": state.extra,
                    "scores": {str(s): scores[s] for s in sorted(scores)},
                },
            )
        )
        return events

    # -- the fold ----------------------------------------------------------------
    def evolve(self, state: State, event: Event) -> State:
        t = event.type
        if t == "board-dealt":
            board = board_from_json(event["board"])
            boards = {**state.boards, int(event["seat"]): board}
            return replace(state, boards=boards, used=state.used | set(all_words(board)))
        if t == "clue-written":
            seat = int(event["seat"])
            clues = dict(state.clues)
            clues[seat] = {**clues.get(seat, {}), Side(event["zone"]): str(event["clue"])}
            return replace(state, clues=clues)
        if t == "resolution-started":
            faces = tuple(tuple(c["words"]) for c in event["cards"])
            layout = Layout(cards=tuple((f[0], f[1], f[2], f[3]) for f in faces))
            used = state.used | {w for f in faces for w in f}
            return replace(
                state, phase=RESOLUTION, spectator=int(event["spectator"]), layout=layout, used=used
            )
        if t == "card-placed":
            try:
                layout = place(_laid_out(state), int(event["card"]), Slot(event["slot"]))
            except IllegalCommandError as exc:  # a log the referee would never have written
                raise ValueError(f"card-placed cannot happen: {exc}") from None
            return replace(state, layout=layout)
        if t == "card-turned":
            return replace(
                state, layout=set_words(_laid_out(state), int(event["card"]), event["words"])
            )
        if t == "attempt-made":
            if event["attempt"] == 1 and event["correct_cards"] < len(SLOTS):
                right = [Slot(s) for s in event["right"]]
                return replace(state, layout=after_first_attempt(_laid_out(state), right))
            return state
        if t == "board-scored":
            scores = {**state.scores, int(event["spectator"]): int(event["points"])}
            return replace(state, scores=scores)
        if t == "game-ended":
            return replace(
                state,
                phase=OVER,
                record=int(event["record"]),
                new_record=bool(event["new_record"]),
                layout=None,
            )
        return state

    def is_over(self, state: State) -> bool:
        return state.phase == OVER

    # -- queries -----------------------------------------------------------------
    def query(self, state: State, command: Command, phrases: Phrasebook) -> list[str]:
        intent = command.intent
        if intent == "help":
            if state.phase == CLUES:
                return [phrases.say("cl-help-clues"), phrases.say("cl-help-board"),
                        phrases.say("cl-help-always")]
            return [phrases.say("cl-help-moves"), phrases.say("cl-help-reading"),
                    phrases.say("cl-help-board"), phrases.say("cl-help-always")]
        if intent == "read rules":
            return [phrases.say(key) for key in ("cl-rules", "cl-rules-resolve", "cl-rules-turn",
                                                 "cl-rules-score")]
        if intent == "status":
            return [self._status(state, phrases)]
        if state.layout is None:
            raise IllegalCommandError("cl-no-cards-yet", "no resolution is under way")
        if intent == "read card":
            card = int(command.slots["card"])
            if not 1 <= card <= len(state.layout.cards):
                raise IllegalCommandError(
                    "cl-no-such-card", f"no card {card}", card=card, cards=len(state.layout.cards)
                )
            return [self._card(state.layout, card, phrases)]
        if intent == "read cards":
            count = len(state.layout.cards)
            placed = sum(1 for held in state.layout.slots if held is not None)
            return [phrases.say("cl-cards-count", n=count, placed=placed)] + [
                self._card(state.layout, k, phrases) for k in range(1, count + 1)
            ]
        if intent == "read clues":
            return [self._clues(state, phrases)]
        return super().query(state, command, phrases)

    def private_query(
        self, state: State, command: Command, phrases: Phrasebook
    ) -> list[tuple[Audience, str]]:
        """"read my board": the seat's board, zones and clues go to that seat alone; the
        table hears only that it was sent."""
        seat = int(command.slots["seat"])
        if not 1 <= seat <= state.players:
            raise IllegalCommandError(
                "cl-no-such-seat", f"no seat {seat}", seat=seat, players=state.players
            )
        return [
            (seat, self._board_text(state.boards[seat], state.clues.get(seat, {}), phrases)),
            ("public", phrases.say("cl-board-sent", name=state.name(seat))),
        ]

    def _board_text(
        self, board: Mapping[Slot, Words], clues: Mapping[Side, str], phrases: Phrasebook
    ) -> str:
        """A board as its owner reads it: each card's words, then each zone with its clue."""
        cards = [
            phrases.say(
                "cl-private-card",
                slot=_slot_words(s.value),
                top=w[0],
                right=w[1],
                bottom=w[2],
                left=w[3],
            )
            for s, w in board.items()
        ]
        zones = []
        for z in ZONES:
            a, b = zone_words(board, z)
            if z in clues:
                zones.append(phrases.say("cl-private-zone-clue", zone=z.value, a=a, b=b, clue=clues[z]))
            else:
                zones.append(phrases.say("cl-private-zone", zone=z.value, a=a, b=b))
        return phrases.say("cl-private-board", cards=" ".join(cards), zones=" ".join(zones))

    def _clues(self, state: State, phrases: Phrasebook) -> str:
        clues = state.clues[state.spectator]
        return phrases.say(
            "cl-clues",
            spectator=state.name(state.spectator),
            top=clues[Side.TOP],
            right=clues[Side.RIGHT],
            bottom=clues[Side.BOTTOM],
            left=clues[Side.LEFT],
        )

    def _card(self, layout: Layout, card: int, phrases: Phrasebook) -> str:
        top, right, bottom, left = layout.words(card)
        slot = layout.slot_of(card)
        if slot is None:
            where = phrases.say("cl-where-pool")
        elif slot in layout.locked:
            where = phrases.say("cl-where-locked", slot=_slot_words(slot.value))
        else:
            where = phrases.say("cl-where-slot", slot=_slot_words(slot.value))
        return phrases.say(
            "cl-card", card=card, top=top, right=right, bottom=bottom, left=left, where=where
        )

    def _status(self, state: State, phrases: Phrasebook) -> str:
        if state.phase == CLUES:
            waiting = [state.name(s) for s in range(1, state.players + 1)
                       if state.written(s) < len(ZONES)]
            return phrases.say("cl-status-clues", waiting=phrases.join(waiting), done=state.done(),
                               players=state.players)
        points = sum(state.scores.values())
        if state.phase == OVER:
            return phrases.say("cl-status-over", points=points, max=6 * state.players, record=state.record)
        layout = _laid_out(state)
        return phrases.say(
            "cl-status-resolution",
            spectator=state.name(state.spectator),
            committer=state.name(state.committer()),
            attempt=layout.attempt,
            placed=sum(1 for held in layout.slots if held is not None),
            pool=len(layout.pool),
            points=points,
        )

    # -- announcements -------------------------------------------------------------
    def announce(self, state: State, event: Event, phrases: Phrasebook) -> list[str]:
        t = event.type
        if t == "clover-dealt":
            return [phrases.say("cl-dealt", players=event["players"], extra=event["extra"])]
        if t == "clue-received":
            name = state.name(int(event["seat"]))
            if not event["accepted"]:
                return [phrases.say("cl-clue-refused-public", name=name, zone=event["zone"])]
            # progress once per seat, when its fourth clue is in (not a line per clue)
            if event.get("ready", event["written"] == len(ZONES)):
                return [phrases.say("cl-clues-in", name=name, done=event["done"], players=state.players)]
            return []
        if t == "resolution-started":
            lines = [
                phrases.say(
                    "cl-resolution",
                    round=event["round"],
                    players=state.players,
                    spectator=state.name(int(event["spectator"])),
                    committer=state.name(int(event["committer"])),
                    n=len(event["cards"]),
                )
            ]
            lines.append(self._clues(state, phrases))
            return lines
        if t == "card-placed":
            lines = [phrases.say("cl-placed", card=event["card"], slot=_slot_words(event["slot"]))]
            if event["swapped"] is not None:
                if event["from"] is None:
                    lines.append(phrases.say("cl-back-to-pool", card=event["swapped"]))
                else:
                    lines.append(
                        phrases.say(
                            "cl-moved", card=event["swapped"], slot=_slot_words(event["from"])
                        )
                    )
            return [" ".join(lines)]
        if t == "card-turned":
            top, right, bottom, left = event["words"]
            return [
                phrases.say(
                    "cl-turned", card=event["card"], top=top, right=right, bottom=bottom, left=left
                )
            ]
        if t == "attempt-made":
            if event["attempt"] == 1 and event["correct_cards"] < len(SLOTS):
                returned = [str(c) for c in event["returned"]]
                key = "cl-second-attempt" if event["correct_cards"] else "cl-second-attempt-none"
                return [phrases.say(key, n=event["correct_cards"], returned=phrases.join(returned))]
            return []
        if t == "board-scored":
            spectator = int(event["spectator"])
            key = "cl-scored-perfect" if event["attempts"] == 1 else "cl-scored"
            parts = [
                phrases.say(
                    "cl-reveal-slot",
                    slot=_slot_words(item["slot"]),
                    top=item["words"][0],
                    right=item["words"][1],
                    bottom=item["words"][2],
                    left=item["words"][3],
                )
                for item in event["board"]
            ]
            return [
                phrases.say(key, name=state.name(spectator), points=event["points"]),
                phrases.say("cl-reveal", name=state.name(spectator), slots=phrases.join(parts)),
            ]
        if t == "game-ended":
            lines = [phrases.say("cl-game-over", points=event["points"], max=6 * state.players)]
            if event["previous"] is None:
                lines.append(phrases.say("cl-record-first", record=event["record"]))
            elif event["new_record"]:
                lines.append(
                    phrases.say(
                        "cl-record-beaten", record=event["record"], previous=event["previous"]
                    )
                )
            else:
                lines.append(phrases.say("cl-record-stands", record=event["record"]))
            return lines
        return []

    # -- private screens ------------------------------------------------------------
    def private_view(self, state: State, audience: Audience) -> dict[str, Any] | None:
        """A seat's own board, the two words each clue zone ties, and its accepted clues."""
        if isinstance(audience, str) or audience not in state.boards:
            return None
        board = state.boards[audience]
        clues = state.clues.get(audience, {})
        return {"seat": audience, "board": board_to_json(board),
                "zones": {z.value: list(zone_words(board, z)) for z in ZONES},
                "clues": {z.value: clues[z] for z in ZONES if z in clues},
                "writing": state.phase == CLUES}

    def private_text(self, state: State, event: Event, phrases: Phrasebook) -> str | None:
        t = event.type
        if t == "board-dealt":
            return self._board_text(board_from_json(event["board"]), {}, phrases)
        if t in ("clue-refused", "clue-noted"):
            key = (f"cl-refused-{event['reason']}" if t == "clue-refused"
                   else f"cl-noted-{event['note']}")
            return phrases.say(
                key,
                clue=event["clue"],
                zone=event["zone"],
                word=event.get("word") or "",
            )
        if t == "clue-written":
            return phrases.say("cl-private-clue", clue=event["clue"], zone=event["zone"])
        return None
