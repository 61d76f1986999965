"""The Compass Code referee: three legs, guesses, the bearing check and the keeper.

Events (audience in brackets):

* ``leg-started`` (keeper): leg, route, card, keeper (a seat, or null for the machine)
* ``route-entered`` (keeper): leg, route, card (a human keeper's physical card, before
  the leg's first guess)
* ``captain-named`` (public): leg, guess, seat
* ``guess-sent`` (public, human keeper): leg, guess, route, captain
* ``guess-marked`` (keeper): leg, guess, route, marks ("A C - -")
* ``feedback-flagged`` (keeper): leg, guess, anchors, clockwise (the wrong totals said)
* ``recount-asked`` (public): leg, guess (the table hears that the totals are being
  checked; neither the wrong totals nor the route)
* ``leg-restarted`` (public): leg, guesses (guesses already scored this leg, discarded)
  — the route was seen by accident; a new ``leg-started`` (with ``restart`` true) and
  ``captain-named`` follow
* ``guess-scored`` (public): leg, guess, route, anchors, clockwise, corrected
* ``bearing-checked`` (public): leg, direction, position, answer
* ``leg-ended`` (public): leg, solved, route
* ``voyage-ended`` (public): solved_legs, outcome
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...command import Command
from ...errors import IllegalCommandError, OptionsError
from ...events import Audience, Event
from ...phrases import Phrasebook
from .. import Referee
from . import announce
from .deck import RouteDeck, load_deck
from .rules import POSSIBLE, Clue, candidates, feedback, marks, route_problem
from .state import KEEPERS, LEGS, MODES, Scored, State, next_seat

#: what the game's screen and the package read from here (the state lives in ``state.py``)
__all__ = ["KEEPERS", "LEGS", "MODES", "CompassCode", "Scored", "State", "next_seat"]


class CompassCode(Referee[State]):
    name = "compass-code"
    min_players = 2
    max_players = 8
    default_players = 4
    queries = frozenset({"candidates", "read candidates", "status", "help", "read rules"})
    #: "24 candidates. Say go on to hear them, four at a time."
    cued_queries = frozenset({"read candidates"})
    #: the rules' exposure clause: a new route for the leg in play, without penalty
    RESTART = "restart leg"

    def __init__(self) -> None:
        self._deck: RouteDeck | None = None
        self._phrases: Phrasebook | None = None

    @property
    def deck(self) -> RouteDeck:
        if self._deck is None:
            self._deck = load_deck()
        return self._deck

    def _words(self, letters: str, join: bool = False) -> str:
        """Directions as the grammar's words, for a refusal's sentence ("north east")."""
        if self._phrases is None:
            from ...grammar import load_grammar  # data, like the deck; loaded once

            self._phrases = Phrasebook(load_grammar(self.name).responses)
        words = [announce.direction(d, self._phrases) for d in letters if d in "NESW"]
        return self._phrases.join(words) if join else " ".join(words)

    # -- setup ---------------------------------------------------------------
    def parse_options(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        other = set(flags) - {"mode", "keeper", "routes"}
        if other:
            raise OptionsError(f"--{min(other)} is not an option of compass-code")
        opts: dict[str, Any] = {"mode": flags.get("mode", "standard"),
                                "keeper": flags.get("keeper", "machine")}
        if flags.get("routes"):
            opts["routes"] = [r.strip().upper() for r in str(flags["routes"]).split(",") if r.strip()]
        return opts

    def check_options(self, options: Mapping[str, Any], players: int) -> None:
        if options.get("mode", "standard") not in MODES:
            raise OptionsError(f"unknown mode {options.get('mode')!r}: standard, gentle or tight")
        keeper = options.get("keeper", "machine")
        if keeper not in KEEPERS:
            raise OptionsError(f"unknown keeper {keeper!r}: machine or human")
        if keeper == "human" and players < 3:
            raise OptionsError("a human keeper needs at least 3 players")
        routes = options.get("routes") or []
        if routes and len(routes) != LEGS:
            raise OptionsError(f"--routes needs {LEGS} routes, got {len(routes)}")
        for r in routes:
            if route_problem(r):
                raise OptionsError(f"--routes: {r!r} is not a route (N, E, S and W once each)")
        self.deck  # noqa: B018  (content problems surface before the game starts)

    def initial(self, started: Event) -> State:
        opts = started["options"]
        return State(
            players=started["players"],
            names=tuple(started["names"]),
            mode=opts.get("mode", "standard"),
            keeper_kind=opts.get("keeper", "machine"),
            fixed_routes=tuple(r.upper() for r in (opts.get("routes") or [])),
        )

    def setup(self, state: State, rng: random.Random) -> list[Event]:
        first_captain = 2 if state.human else 1
        return self._start_leg(state, 1, rng, captain=first_captain)

    def _start_leg(self, state: State, leg: int, rng: random.Random, captain: int,
                   exposed: str | None = None) -> list[Event]:
        if exposed is not None:
            # the exposure clause: a new shuffled route, never the one that was seen
            route = rng.choice([r for r in self.deck.all if r != exposed])
        elif state.fixed_routes:
            route = state.fixed_routes[leg - 1]
        else:
            route = rng.choice(self.deck.all)
        keeper = None
        if state.human:
            keeper = (leg - 1) % state.players + 1
            if captain == keeper:
                captain = next_seat(captain, state.players, skip=keeper)
        card = self.deck.number_of(route)
        return [
            Event("leg-started", {"leg": leg, "route": route, "card": card, "keeper": keeper,
                                  "restart": exposed is not None}, "keeper"),
            Event("captain-named", {"leg": leg, "guess": 1, "seat": captain}),
        ]

    # -- decisions -----------------------------------------------------------
    def legal_intents(self, state: State) -> set[str]:
        if state.over:
            return set()
        intents = set(self.queries) | {self.RESTART}
        if state.human and not state.scored and state.pending is None and state.check is None:
            intents.add("route card")
        if state.pending is not None:
            intents.add("feedback")
        else:
            intents.add("send")
            if state.has_check and state.check is None:
                intents.add("check")
        return intents

    def acting_seats(self, state: State, command: Command) -> frozenset[int] | None:
        """The captain sends and asks the bearing check (the captain of the next guess);
        a human keeper gives the totals and enters a physical card.  A restart after an
        exposure is anyone's call."""
        if command.intent in ("send", "check"):
            return frozenset({state.captain})
        if command.intent in ("feedback", "route card") and state.keeper is not None:
            return frozenset({state.keeper})
        return None

    def decide(self, state: State, command: Command, rng: random.Random) -> list[Event]:
        if state.over:
            raise IllegalCommandError("game-over", "the voyage is over")
        if command.intent == "send":
            return self._send(state, "".join(command.args).upper(), rng)
        if command.intent == "check":
            direction, position = command.args
            return self._check(state, direction.upper(), int(position))
        if command.intent == "feedback":
            anchors, clockwise = (int(x) for x in command.args)
            return self._feedback(state, anchors, clockwise, rng)
        if command.intent == "route card":
            return self._route_card(state, int(command.slots["card"]))
        if command.intent == self.RESTART:
            return self._restart(state, rng)
        raise IllegalCommandError("not-in-game", f"{command.canonical!r} is not a Compass Code move")

    def _restart(self, state: State, rng: random.Random) -> list[Event]:
        """The rules' exposure clause: "If the secret is accidentally exposed ... replace
        it with a new shuffled route and restart that leg without penalty."

        The leg in play starts again at guess 1 with a new route drawn from the seeded
        generator (never the exposed one); its scored guesses and bearing check are
        discarded, legs already ended keep their results.  The captain who was due to
        act captains guess 1, and a human keeper keeps the leg.  A feedback error cannot
        outlive a leg here (every total is checked against the route), so only the leg
        in play restarts."""
        assert state.route is not None
        restarted = Event("leg-restarted", {"leg": state.leg, "guesses": len(state.scored)})
        events = [restarted] + self._start_leg(state, state.leg, rng, state.captain, exposed=state.route)
        return events

    def _send(self, state: State, route: str, rng: random.Random) -> list[Event]:
        if state.pending is not None:
            raise IllegalCommandError(
                "cc-waiting-keeper", f"guess {state.guess} awaits the keeper's totals",
                keeper=state.name(state.keeper))
        problem = route_problem(route)
        if problem:
            missing = "".join(d for d in "NESW" if d not in route)
            repeated = "".join(sorted({d for d in route if route.count(d) > 1}))
            raise IllegalCommandError(
                f"cc-route-{problem}", f"illegal guess {route!r}: {problem} (leg {state.leg}, guess {state.guess})",
                route=announce.capital(self._words(route)), missing=self._words(missing, join=True),
                repeated=self._words(repeated, join=True))
        assert state.route is not None
        if state.human:
            return [
                Event("guess-sent", {"leg": state.leg, "guess": state.guess, "route": route,
                                     "captain": state.captain}),
                Event("guess-marked", {"leg": state.leg, "guess": state.guess, "route": route,
                                       "marks": marks(route, state.route)}, "keeper"),
            ]
        fb = feedback(route, state.route)
        return self._scored(state, route, fb.anchors, fb.clockwise, False, rng)

    def _scored(self, state: State, route: str, anchors: int, clockwise: int, corrected: bool,
                rng: random.Random) -> list[Event]:
        assert state.route is not None
        events = [Event("guess-scored", {
            "leg": state.leg, "guess": state.guess, "route": route, "anchors": anchors,
            "clockwise": clockwise, "corrected": corrected})]
        solved = anchors == 4
        used_up = not corrected and state.guess >= state.max_guesses
        if solved or used_up:
            events.append(Event("leg-ended", {"leg": state.leg, "solved": solved, "route": state.route}))
            results = state.results + (solved,)
            if state.leg >= LEGS:
                wins = sum(results)
                outcome = "perfect" if wins == LEGS else "win" if wins >= 2 else "incomplete"
                events.append(Event("voyage-ended", {"solved_legs": wins, "outcome": outcome}))
            else:
                nxt_keeper = state.leg % state.players + 1 if state.human else None
                captain = next_seat(state.captain, state.players, skip=nxt_keeper)
                events += self._start_leg(state, state.leg + 1, rng, captain)
        elif not corrected:
            captain = next_seat(state.captain, state.players, skip=state.keeper)
            events.append(Event("captain-named", {"leg": state.leg, "guess": state.guess + 1, "seat": captain}))
        return events

    def _route_card(self, state: State, number: int) -> list[Event]:
        """A human keeper's physical card replaces the drawn route, before any guess."""
        if not state.human:
            raise IllegalCommandError("cc-card-machine", "the machine keeps the route")
        if state.scored or state.pending is not None or state.check is not None:
            raise IllegalCommandError("cc-card-late", f"leg {state.leg} has begun")
        route = self.deck.route_of(number)
        if route is None:
            raise IllegalCommandError("cc-card-unknown", f"no route card {number}", card=number)
        return [Event("route-entered", {"leg": state.leg, "route": route, "card": number}, "keeper")]

    def _check(self, state: State, direction: str, position: int) -> list[Event]:
        if not state.has_check:
            raise IllegalCommandError("cc-no-check-mode", "no bearing check in tight mode")
        if state.check is not None:
            raise IllegalCommandError("cc-check-used", f"the bearing check is spent (leg {state.leg})")
        if state.pending is not None:
            raise IllegalCommandError(
                "cc-waiting-keeper", f"guess {state.guess} awaits the keeper's totals",
                keeper=state.name(state.keeper))
        if direction not in "NESW" or len(direction) != 1 or not 1 <= position <= 4:
            raise IllegalCommandError("cc-check-form", f"bad bearing check {direction!r} {position!r}")
        assert state.route is not None
        answer = state.route[position - 1] == direction
        return [Event("bearing-checked", {"leg": state.leg, "direction": direction,
                                          "position": position, "answer": answer})]

    def _feedback(self, state: State, anchors: int, clockwise: int, rng: random.Random) -> list[Event]:
        if not state.human:
            raise IllegalCommandError("cc-machine-keeps", "the assistant keeps: it gives the totals")
        if state.pending is None:
            raise IllegalCommandError("cc-no-pending", f"no guess awaits totals (leg {state.leg})")
        if (anchors, clockwise) not in POSSIBLE:
            raise IllegalCommandError(
                "cc-impossible-totals", f"impossible totals ({anchors}, {clockwise})",
                anchors=anchors, clockwise=clockwise)
        assert state.route is not None
        true = feedback(state.pending, state.route)
        if (anchors, clockwise) != (true.anchors, true.clockwise):
            return [Event("feedback-flagged", {"leg": state.leg, "guess": state.guess,
                                               "anchors": anchors, "clockwise": clockwise}, "keeper"),
                    Event("recount-asked", {"leg": state.leg, "guess": state.guess})]
        return self._scored(state, state.pending, anchors, clockwise, state.flagged, rng)

    # -- the fold --------------------------------------------------------------
    def evolve(self, state: State, event: Event) -> State:
        t = event.type
        if t == "leg-started":
            return replace(state, leg=event["leg"], route=event["route"], card=event["card"],
                           keeper=event["keeper"], guess=1, scored=(), check=None,
                           pending=None, flagged=False)
        if t == "route-entered":
            return replace(state, route=event["route"], card=event["card"])
        if t == "captain-named":
            return replace(state, captain=event["seat"])
        if t == "guess-sent":
            return replace(state, pending=event["route"], flagged=False)
        if t == "feedback-flagged":
            return replace(state, flagged=True)
        if t == "guess-scored":
            s = Scored(event["route"], event["anchors"], event["clockwise"], event["corrected"])
            return replace(state, scored=state.scored + (s,), pending=None, flagged=False,
                           guess=state.guess + (0 if event["corrected"] else 1))
        if t == "bearing-checked":
            c = Clue(direction=event["direction"], position=event["position"], answer=event["answer"])
            return replace(state, check=c)
        if t == "leg-ended":
            return replace(state, results=state.results + (event["solved"],), route=None)
        if t == "voyage-ended":
            return replace(state, over=True)
        return state

    def is_over(self, state: State) -> bool:
        return state.over

    # -- queries -----------------------------------------------------------------
    def candidates(self, state: State) -> list[str]:
        return candidates(self.deck.all, state.clues())

    def query(self, state: State, command: Command, phrases: Phrasebook) -> list[str]:
        """A list of sentences, the key one first (the session pages the rest)."""
        if command.intent == "candidates":
            return [phrases.say("cc-candidates-count", n=len(self.candidates(state)))]
        if command.intent == "read candidates":
            return announce.candidate_sentences(self.candidates(state), phrases)
        if command.intent == "status":
            return announce.status(state, phrases, LEGS, len(self.candidates(state)))
        if command.intent == "help":
            return announce.help_sentences(state, phrases)
        if command.intent == "read rules":
            return [phrases.say(key) for key in ("cc-rules", "cc-rules-feedback", "cc-rules-win")]
        return super().query(state, command, phrases)

    def announce(self, state: State, event: Event, phrases: Phrasebook) -> list[str]:
        return announce.event(state, event, phrases, LEGS)

    # -- private screens ------------------------------------------------------------
    def seat_audiences(self, state: State, seat: int) -> frozenset[Audience]:
        """A seat reads its own messages, and the keeper's while it keeps this leg."""
        return frozenset({seat, "keeper"}) if state.keeper == seat else frozenset({seat})

    def private_view(self, state: State, audience: Audience) -> dict[str, Any] | None:
        """The keeper's card: this leg's route and the A / C / - marks of every guess."""
        if audience != "keeper" or not state.human or state.route is None:
            return None
        guesses, number = [], 1
        for s in state.scored:
            guesses.append({"guess": number, "route": s.route, "marks": marks(s.route, state.route),
                            "anchors": s.anchors, "clockwise": s.clockwise, "corrected": s.corrected})
            number += 0 if s.corrected else 1
        pending = None
        if state.pending is not None:
            pending = {"guess": state.guess, "route": state.pending,
                       "marks": marks(state.pending, state.route)}
        return {"leg": state.leg, "route": state.route, "card": state.card, "keeper": state.keeper,
                "guesses": guesses, "pending": pending, "recount": state.flagged}

    def private_text(self, state: State, event: Event, phrases: Phrasebook) -> str | None:
        return announce.private(state, event, phrases)
