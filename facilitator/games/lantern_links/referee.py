"""The Lantern Links referee: deals, turns, placing, passing, the rewind and scoring.

Events (all public; a route's hands are face up):

* ``route-started``: route (card number), index (1-3), hands (seat -> letters; empty
  in the pool variant), pool (letters in the shared pool, else empty), first (the
  starting seat), start, end, checkpoint, tiles (letter -> its two words)
* ``tile-placed``: seat, tile, left, right (as turned), position (1-6)
* ``tile-returned``: seat, tile, owner (null in the pool variant), open (the word it
  failed to match); always followed by ``passed``
* ``passed``: seat, mismatch (true when the pass was a returned tile)
* ``route-paused``: route, seat (every player passed in a row and the rewind is
  available: that seat, next to act, is asked "rewind or finish?")
* ``rewound``: seat (who rewound), tile, owner (whose hand it returns to, null in
  the pool variant), position (the space it left)
* ``route-ended``: route, index, placed, end_bonus, checkpoint_bonus, points (0/1
  bonuses and points are integers), reason (complete, dead-end, finished),
  checkpoint (the recorded word or null), total (game points so far), solution
  (the card's answer note, read after scoring)
* ``game-ended``: points (out of 24)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...command import Command
from ...errors import IllegalCommandError, OptionsError
from ...events import Event
from ...phrases import Phrasebook
from .. import Referee
from . import announce
from .deck import CARDS, Deck, load_deck
from .rules import CHAIN_LENGTH, CHECKPOINT_AFTER, Link, orient, score
from .state import ROUTES, State

#: what the game's screen, the package and the tests read from here (the state lives in ``state.py``)
__all__ = ["ROUTES", "LanternLinks", "State"]


class LanternLinks(Referee[State]):
    name = "lantern-links"
    min_players = 2
    max_players = 6
    default_players = 3
    queries = frozenset({"hands", "status", "help", "read rules"})

    def __init__(self) -> None:
        self._deck: Deck | None = None

    @property
    def deck(self) -> Deck:
        if self._deck is None:
            self._deck = load_deck()
        return self._deck

    # -- options and setup ----------------------------------------------------
    def parse_options(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        other = set(flags) - {"routes", "pool"}
        if other:
            raise OptionsError(f"--{min(other)} is not an option of lantern-links")
        opts: dict[str, Any] = {"pool": bool(flags.get("pool", False))}
        if flags.get("routes"):
            numbers = []
            for part in str(flags["routes"]).split(","):
                part = part.strip()
                if not part.isdigit():
                    raise OptionsError(f"--routes: {part!r} is not a route card number (1 to {CARDS})")
                numbers.append(int(part))
            opts["routes"] = numbers
        return opts

    def check_options(self, options: Mapping[str, Any], players: int) -> None:
        routes = list(options.get("routes") or [])
        if routes:
            if len(routes) != ROUTES:
                raise OptionsError(f"--routes needs {ROUTES} card numbers, got {len(routes)}")
            for number in routes:
                if not 1 <= number <= CARDS:
                    raise OptionsError(f"--routes: {number} is not a route card (1 to {CARDS})")
            if len(set(routes)) != len(routes):
                raise OptionsError("--routes: a game plays three different cards")
        self.deck  # noqa: B018  (content problems surface before the game starts)

    def initial(self, started: Event) -> State:
        opts = started["options"]
        return State(players=started["players"], names=tuple(started["names"]),
                     pool_variant=bool(opts.get("pool", False)),
                     fixed_routes=tuple(int(r) for r in (opts.get("routes") or [])))

    def setup(self, state: State, rng: random.Random) -> list[Event]:
        return [self._deal(state, 1, rng)]

    def _deal(self, state: State, index: int, rng: random.Random) -> Event:
        """Reveal the next card and deal its six tiles clockwise from the starting player.

        The starting player is seat 1 for route 1 and moves one seat clockwise each
        route.  Without ``--routes`` the card is drawn from those not yet played.
        """
        if state.fixed_routes:
            number = state.fixed_routes[index - 1]
        else:
            number = rng.choice([n for n in self.deck.cards if n not in state.used_cards])
        card = self.deck.cards[number]
        first = (index - 1) % state.players + 1
        tiles = sorted(card.tiles)
        rng.shuffle(tiles)
        hands: dict[str, list[str]] = {}
        pool: list[str] = []
        if state.pool_variant:
            pool = sorted(tiles)
        else:
            hands = {str(s): [] for s in range(1, state.players + 1)}
            for i, tile in enumerate(tiles):
                hands[str((first - 1 + i) % state.players + 1)].append(tile)
            hands = {s: sorted(h) for s, h in hands.items()}
        return Event("route-started", {
            "route": number, "index": index, "hands": hands, "pool": pool, "first": first,
            "start": card.start, "end": card.end, "checkpoint": card.checkpoint,
            "tiles": {k: list(v) for k, v in sorted(card.tiles.items())}})

    # -- decisions ----------------------------------------------------------------
    def legal_intents(self, state: State) -> set[str]:
        if state.over:
            return set()
        intents = set(self.queries) | {"finish"}
        if not state.paused:
            intents.add("pass")
            if state.pool_variant or state.hands[state.turn - 1]:
                intents.add("play")       # an empty hand can only pass (or rewind, finish)
        if state.can_rewind:
            intents.add("rewind")
        return intents

    def acting_seats(self, state: State, command: Command) -> frozenset[int] | None:
        """The current player places, passes and rewinds (also when asked "rewind or
        finish?"); finishing early is the table's agreement."""
        if command.intent in ("play", "pass", "rewind"):
            return frozenset({state.turn})
        return None

    def decide(self, state: State, command: Command, rng: random.Random) -> list[Event]:
        if state.over:
            raise IllegalCommandError("game-over", "the game is over")
        intent = command.intent
        if intent == "play":
            return self._play(state, command.args[0].upper(), rng)
        if intent == "pass":
            self._not_paused(state)
            return self._consequences(state, [Event("passed", {"seat": state.turn, "mismatch": False})], rng)
        if intent == "rewind":
            return self._rewind(state)
        if intent == "finish":
            return self._end_route(state, "finished", rng)
        raise IllegalCommandError("not-in-game", f"{command.canonical!r} is not a Lantern Links move")

    def _not_paused(self, state: State) -> None:
        if state.paused:
            raise IllegalCommandError("ll-paused", f"every player passed (route {state.index}): "
                                      "rewind or finish", name=state.name(state.turn))

    def _play(self, state: State, tile: str, rng: random.Random) -> list[Event]:
        self._not_paused(state)
        seat = state.turn
        if tile not in state.words:
            raise IllegalCommandError(
                "ll-tile-not-in-route", f"tile {tile!r} is not in route card {state.card}",
                tile=" ".join(announce.word(w) for w in self.deck.tiles.get(tile, (tile,))),
                tiles=", ".join(_spoken(state, t) for t in sorted(state.words)))
        placed = next((i for i, link in enumerate(state.chain, 1) if link.tile == tile), None)
        if placed is not None:
            raise IllegalCommandError("ll-tile-in-chain", f"tile {tile!r} is already at space {placed}",
                                      tile=_spoken(state, tile), position=placed)
        owner = state.holder(tile)
        if not state.pool_variant and owner != seat:
            raise IllegalCommandError(
                "ll-not-your-tile", f"tile {tile!r} is in seat {owner}'s hand, seat {seat} plays now",
                tile=_spoken(state, tile), owner=state.name(owner), name=state.name(seat))
        turned = orient(state.words[tile], state.open)
        if turned is None:
            return self._consequences(state, [
                Event("tile-returned", {"seat": seat, "tile": tile, "owner": owner, "open": state.open}),
                Event("passed", {"seat": seat, "mismatch": True}),
            ], rng)
        left, right = turned
        return self._consequences(state, [Event("tile-placed", {
            "seat": seat, "tile": tile, "left": left, "right": right, "position": len(state.chain) + 1})], rng)

    def _rewind(self, state: State) -> list[Event]:
        if state.rewind_used:
            raise IllegalCommandError("ll-rewind-spent", f"the rewind is spent (route {state.index})")
        if not state.chain:
            raise IllegalCommandError("ll-rewind-empty", "the chain is empty")
        last = state.chain[-1]
        return [Event("rewound", {"seat": state.turn, "tile": last.tile, "owner": last.owner,
                                  "position": len(state.chain)})]

    def _consequences(self, state: State, events: list[Event], rng: random.Random) -> list[Event]:
        """``events`` and what they bring about: six tiles end the route; every player
        passing in a row pauses for "rewind or finish?" while the rewind can be used,
        and otherwise ends the route at a dead end."""
        after = state
        for event in events:
            after = self.evolve(after, event)
        if len(after.chain) == CHAIN_LENGTH:
            return events + self._end_route(after, "complete", rng)
        if after.passes >= after.players:
            if after.can_rewind:
                return events + [Event("route-paused", {"route": after.card, "seat": after.turn})]
            return events + self._end_route(after, "dead-end", rng)
        return events

    def _end_route(self, state: State, reason: str, rng: random.Random) -> list[Event]:
        result = score(state.chain, state.end, state.checkpoint, state.recorded)
        ended = Event("route-ended", {
            "route": state.card, "index": state.index, "placed": result.placed,
            "end_bonus": result.end_bonus, "checkpoint_bonus": result.checkpoint_bonus,
            "points": result.points, "reason": reason, "checkpoint": state.recorded,
            "total": state.total + result.points,
            "solution": self.deck.cards[state.card].solution})
        after = self.evolve(state, ended)
        if after.index >= ROUTES:
            return [ended, Event("game-ended", {"points": after.total})]
        return [ended, self._deal(after, after.index + 1, rng)]

    # -- the fold -----------------------------------------------------------------
    def evolve(self, state: State, event: Event) -> State:
        try:
            return self._fold(state, event)
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            # only a hand-edited or foreign log gets here; resuming reports it in one line
            raise ValueError(f"malformed {event.type} event ({exc!r})") from None

    def _fold(self, state: State, event: Event) -> State:
        t = event.type
        if t == "route-started":
            hands = event["hands"]
            return replace(
                state, index=event["index"], card=event["route"], start=event["start"],
                end=event["end"], checkpoint=event["checkpoint"],
                words={k: (v[0], v[1]) for k, v in event["tiles"].items()},
                hands=tuple(tuple(hands.get(str(s), ())) for s in range(1, state.players + 1))
                if hands else tuple(() for _ in range(state.players)),
                pool=tuple(event["pool"]), chain=(), recorded=None, first=event["first"],
                turn=event["first"], passes=0, rewind_used=False, paused=False,
                used_cards=state.used_cards + (event["route"],))
        if t == "tile-placed":
            seat, tile = event["seat"], event["tile"]
            owner = None if state.pool_variant else seat
            link = Link(tile, event["left"], event["right"], owner)
            recorded = event["right"] if event["position"] == CHECKPOINT_AFTER else state.recorded
            return replace(state, chain=state.chain + (link,), recorded=recorded,
                           hands=_without(state.hands, tile),
                           pool=tuple(x for x in state.pool if x != tile),
                           passes=0, turn=state.next_seat(seat))
        if t == "passed":
            return replace(state, passes=state.passes + 1, turn=state.next_seat(event["seat"]))
        if t == "route-paused":
            return replace(state, paused=True)
        if t == "rewound":
            tile, owner = event["tile"], event["owner"]
            hands, pool = state.hands, state.pool
            if owner is None:
                pool = tuple(sorted(pool + (tile,)))
            else:
                hands = tuple(tuple(sorted(h + (tile,))) if s == owner else h
                              for s, h in enumerate(hands, 1))
            recorded = None if event["position"] == CHECKPOINT_AFTER else state.recorded
            return replace(state, chain=state.chain[:-1], hands=hands, pool=pool, recorded=recorded,
                           rewind_used=True, passes=0, paused=False,
                           turn=state.next_seat(event["seat"]))
        if t == "route-ended":
            return replace(state, results=state.results + (event["points"],), paused=False)
        if t == "game-ended":
            return replace(state, over=True)
        return state       # tile-returned: the tile never left its owner's hand

    def is_over(self, state: State) -> bool:
        return state.over

    # -- queries and announcements ------------------------------------------------
    def query(self, state: State, command: Command, phrases: Phrasebook) -> list[str]:
        """A list of sentences, the key one first (the session pages the rest)."""
        if command.intent == "hands":
            return announce.hands(state, phrases)
        if command.intent == "status":
            return announce.status(state, phrases, ROUTES)
        if command.intent == "help":
            return announce.help_sentences(state, phrases)
        if command.intent == "read rules":
            return [phrases.say(f"ll-rules-{part}") for part in ("goal", "match", "score")]
        return super().query(state, command, phrases)

    def announce(self, state: State, event: Event, phrases: Phrasebook) -> list[str]:
        return announce.event(state, event, phrases, ROUTES)


def _spoken(state: State, tile: str) -> str:
    """A tile named by its two words, for a refusal's sentence ("sun leaf")."""
    return " ".join(announce.word(w) for w in state.words[tile])


def _without(hands: tuple[tuple[str, ...], ...], tile: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(x for x in hand if x != tile) for hand in hands)
