"""The Two Windows referee: six rounds of two private reports and one decoder.

Events (audience in brackets):

* ``teams-formed`` (public): teams (team -> seats)
* ``packets-chosen`` (public): packets (the six, in play order), restarted (the
  packet record started over), cycle (record games only)
* ``round-started`` (public): round, packet, decoder, a, b (team names),
  speakers (job -> seat: ``decoder``, ``a``, ``b``), cycle (record games only)
* ``report-dealt`` ("a" / "b"): round, packet, report ("A"/"B"), facts (two)
* ``packet-replaced`` (public): round, old, new, cycle (record games only)
* ``fact-locked`` ("a" / "b"): round, report, fact (the first transmission)
* ``slip-locked`` (public): round, report
* ``transmission-revealed`` (public): round, stage (1 or 2), a, b (facts)
* ``answer-given`` (public): round, stage, name, correct, points
* ``round-ended`` (public): round, packet, target, a, b (both reports), points
  (this round), total
* ``game-ended`` (public): points, possible
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...command import Command, RuntimeLists
from ...errors import IllegalCommandError, OptionsError
from ...events import Audience, Event
from ...phrases import Phrasebook
from .. import Referee
from .deck import PACKET_COUNT, Deck, Packet, load_deck, load_practice
from .names import match_name
from .reading import read_catalogue, read_entry, which_entries
from .record import ALL_PACKETS, choose_from_record, current_record, updated_record
from .scoring import points_for
from .teams import ROUNDS, TEAMS, lineup, members, team_of

PRACTICE_PACKET = 0
HOLDERS = ("a", "b")


@dataclass(frozen=True)
class State:
    players: int
    names: tuple[str, ...]
    practice: bool = False
    #: packets a replacement may come from, best first (record games: the unplayed ones)
    spares: tuple[int, ...] = ()
    cycle: int | None = None
    #: this game started the table's packet record over
    restarted: bool = False
    packets: tuple[int, ...] = ()
    used: tuple[int, ...] = ()
    round: int = 0
    packet: int | None = None
    decoder: str = ""
    a_team: str = ""
    b_team: str = ""
    speakers: tuple[tuple[str, int], ...] = ()
    stage: int = 0
    locked_a: str | None = None
    locked_b: str | None = None
    sent: tuple[tuple[str, str], ...] = ()
    points: int = 0
    over: bool = False

    @property
    def rounds(self) -> int:
        return 1 if self.practice else ROUNDS

    @property
    def possible(self) -> int:
        return 2 * self.rounds

    def locked(self, holder: str) -> str | None:
        return self.locked_a if holder == "a" else self.locked_b

    def name(self, seat: int) -> str:
        return self.names[seat - 1]


class TwoWindows(Referee[State]):
    name = "two-windows"
    min_players = 3
    max_players = 6
    default_players = 3
    queries = frozenset({"status", "help", "read rules", "read catalogue", "read entry", "which entries"})

    def __init__(self) -> None:
        self._decks: dict[bool, Deck] = {}

    def deck(self, practice: bool) -> Deck:
        """The practice set or the scored catalogue with its 18 packets (loaded once)."""
        if practice not in self._decks:
            self._decks[practice] = load_practice() if practice else load_deck()
        return self._decks[practice]

    def packet(self, state: State) -> Packet:
        assert state.packet is not None
        return self.deck(state.practice).packets[state.packet]

    # -- options -----------------------------------------------------------------
    def parse_options(self, flags: Mapping[str, Any]) -> dict[str, Any]:
        other = set(flags) - {"packets", "practice"}
        if other:
            raise OptionsError(f"--{min(other)} is not an option of two-windows")
        if flags.get("practice") and flags.get("packets"):
            raise OptionsError("--practice plays the practice packet; leave out --packets")
        if flags.get("practice"):
            return {"practice": True}
        if flags.get("packets") is not None:
            numbers = []
            for part in str(flags["packets"]).split(","):
                try:
                    numbers.append(int(part.strip()))
                except ValueError:
                    raise OptionsError(f"--packets: {part.strip()!r} is not a packet number") from None
            return {"packets": numbers}
        return {}

    def check_options(self, options: Mapping[str, Any], players: int) -> None:
        packets = options.get("packets")
        if packets is not None:
            if len(packets) != ROUNDS:
                raise OptionsError(f"--packets needs {ROUNDS} packet numbers, got {len(packets)}")
            bad = [p for p in packets if p not in ALL_PACKETS]
            if bad:
                raise OptionsError(f"--packets: {bad[0]} is not a packet (1 to {PACKET_COUNT})")
            if len(set(packets)) != len(packets):
                raise OptionsError("--packets needs six different packets")
        self.deck(bool(options.get("practice")))  # content problems surface before the game starts

    def prepare_options(self, options: dict[str, Any], table: Mapping[str, Any]) -> dict[str, Any]:
        """A record game notes the table's unplayed packets (``--packets``/``--practice`` do not)."""
        if options.get("practice") or options.get("packets") is not None:
            return options
        return {**options, "record": choose_from_record(table)}

    keeps_table = True

    def with_table(self, state: State, table: Mapping[str, Any]) -> State:
        """A record game's spares and cycle as the table's record holds them now: another
        game at the same table may have played packets (or started the record over) since
        this one began.  The packets then chosen are logged in ``round-started`` and
        ``packet-replaced``."""
        if state.cycle is None or state.over:
            return state
        cycle, unplayed = current_record(table)
        return replace(state, cycle=cycle, spares=unplayed)

    def table_update(self, table: Mapping[str, Any], events: Sequence[Event]) -> dict[str, Any] | None:
        return updated_record(table, events)

    # -- setup -------------------------------------------------------------------
    def initial(self, started: Event) -> State:
        opts = started["options"]
        record = opts.get("record") or {}
        practice = bool(opts.get("practice"))
        if practice:
            spares: tuple[int, ...] = ()
        elif record:
            spares = tuple(record["unplayed"])
        else:
            spares = tuple(p for p in ALL_PACKETS if p not in opts.get("packets", ()))
        return State(players=started["players"], names=tuple(started["names"]), practice=practice,
                     spares=spares, cycle=record.get("cycle"), restarted=bool(record.get("restarted")),
                     packets=tuple(opts.get("packets", ())))

    def setup(self, state: State, rng: random.Random) -> list[Event]:
        teams = {team.value: list(members(team, state.players)) for team in TEAMS}
        events = [Event("teams-formed", {"teams": teams})]
        if state.practice:
            packets = [PRACTICE_PACKET]
        else:
            record_game = state.cycle is not None
            packets = rng.sample(list(state.spares), ROUNDS) if record_game else list(state.packets)
            chosen: dict[str, Any] = {"packets": packets, "restarted": False}
            if record_game:
                chosen["cycle"] = state.cycle
                chosen["restarted"] = state.restarted
            events.append(Event("packets-chosen", chosen))
        return events + self._start_round(state, 1, packets[0])

    def _start_round(self, state: State, number: int, packet: int) -> list[Event]:
        up = lineup(number, state.players)
        started: dict[str, Any] = {"round": number, "packet": packet, "decoder": up.decoder.value,
                                   "a": up.a.value, "b": up.b.value, "speakers": up.speakers}
        if state.cycle is not None:
            started["cycle"] = state.cycle
        return [Event("round-started", started), *self._deal(state, number, packet)]

    def _deal(self, state: State, number: int, packet: int) -> list[Event]:
        pkt = self.deck(state.practice).packets[packet]
        return [Event("report-dealt", {"round": number, "packet": packet, "report": holder.upper(),
                                       "facts": list(pkt.report(holder))}, holder)
                for holder in HOLDERS]

    # -- decisions ---------------------------------------------------------------
    def legal_intents(self, state: State) -> set[str]:
        if state.over:
            return set()
        intents = set(self.queries)
        if state.stage == 0:
            intents |= {f"{h} sends" for h in HOLDERS if state.locked(h) is None}
            if not state.practice:
                intents.add("replace packet")
        else:
            intents |= {"final", "final not"}
            if state.stage == 1:
                intents.add("more")
        return intents

    def runtime_lists(self, state: State) -> RuntimeLists:
        return {"entry": {name: [name.lower()] for name in self.deck(state.practice).names}}

    def recognition_lists(self) -> RuntimeLists:
        """Every catalogue name, scored and practice (for recognizing without a game state)."""
        names = self.deck(False).names + self.deck(True).names
        return {"entry": {name: [name.lower()] for name in names}}

    def acting_seats(self, state: State, command: Command) -> frozenset[int] | None:
        """The decoding team's spokesperson gives the final answer and asks for more;
        each informant team's spokesperson sends its fact.  Replacing a packet is the
        table's call."""
        job = {"final": "decoder", "final not": "decoder", "more": "decoder",
               "a sends": "a", "b sends": "b"}.get(command.intent)
        seat = dict(state.speakers).get(job) if job else None
        return frozenset({seat}) if seat is not None else None

    def decide(self, state: State, command: Command, rng: random.Random) -> list[Event]:
        if state.over:
            raise IllegalCommandError("game-over", "the game is over")
        intent = command.intent
        if intent in ("a sends", "b sends"):
            return self._send(state, intent[0], command.slots.get("fact", " ".join(command.args[1:])))
        if intent == "more":
            return self._more(state)
        if intent == "final not":
            raise IllegalCommandError("tw-name-negated", f"a negated final answer: {command.text!r}")
        if intent == "final":
            # a typed final answer is taken on its spelling alone, never matched loosely
            return self._final(state, command.slots.get("entry", " ".join(command.args)), rng,
                               exact=command.typed)
        if intent == "replace packet":
            return self._replace(state, rng)
        raise IllegalCommandError("not-in-game", f"{command.canonical!r} is not a Two Windows move")

    def _send(self, state: State, holder: str, fact: str) -> list[Event]:
        fact = " ".join(fact.upper().split())
        report = holder.upper()
        if state.stage > 0:
            raise IllegalCommandError("tw-slips-revealed", f"round {state.round}: the slips are revealed")
        if state.locked(holder) is not None:
            raise IllegalCommandError("tw-slip-already-locked",
                                      f"report {report} already locked (round {state.round})", report=report)
        if fact not in self.packet(state).report(holder):
            raise IllegalCommandError("tw-fact-not-on-report",
                                      f"{fact!r} is not on report {report} (round {state.round})", report=report)
        events = [Event("fact-locked", {"round": state.round, "report": report, "fact": fact}, holder),
                  Event("slip-locked", {"round": state.round, "report": report})]
        other = "b" if holder == "a" else "a"
        other_fact = state.locked(other)
        if other_fact is not None:
            slips = {holder: fact, other: other_fact}
            events.append(Event("transmission-revealed",
                                {"round": state.round, "stage": 1, "a": slips["a"], "b": slips["b"]}))
        return events

    def _more(self, state: State) -> list[Event]:
        if state.stage == 0:
            raise IllegalCommandError("tw-not-revealed-yet", f"round {state.round}: slips not revealed")
        if state.stage == 2:
            raise IllegalCommandError("tw-more-used", f"round {state.round}: more already asked")
        packet = self.packet(state)
        first = state.sent[0]
        rest = [next(f for f in packet.report(h) if f != sent) for h, sent in zip(HOLDERS, first)]
        return [Event("transmission-revealed", {"round": state.round, "stage": 2, "a": rest[0], "b": rest[1]})]

    def _final(self, state: State, heard: str, rng: random.Random, *, exact: bool = False) -> list[Event]:
        if state.stage == 0:
            raise IllegalCommandError("tw-not-revealed-yet", f"round {state.round}: slips not revealed")
        deck = self.deck(state.practice)
        found = match_name(heard, deck.names, exact=exact)
        if found.name is None:
            if found.candidates:
                key = "tw-name-unclear" if len(found.candidates) > 1 else "tw-name-unsure"
                raise IllegalCommandError(key, f"unclear name {heard!r}: {list(found.candidates)}",
                                          candidates=_or_list(found.candidates))
            raise IllegalCommandError("tw-name-unknown", f"{heard!r} is not in the catalogue",
                                      heard=heard, names=", ".join(deck.names))
        packet = self.packet(state)
        correct = found.name == packet.target
        points = points_for(state.stage, correct)
        events = [
            Event("answer-given", {"round": state.round, "stage": state.stage, "name": found.name,
                                   "correct": correct, "points": points}),
            Event("round-ended", {"round": state.round, "packet": packet.number, "target": packet.target,
                                  "a": list(packet.a), "b": list(packet.b), "points": points,
                                  "total": state.points + points}),
        ]
        if state.round >= state.rounds:
            events.append(Event("game-ended", {"points": state.points + points, "possible": state.possible}))
        else:
            events += self._start_round(state, state.round + 1, self._next_packet(state, rng))
        return events

    def _next_packet(self, state: State, rng: random.Random) -> int:
        """The packet set out for the next round; in a record game, if another game at this
        table has played it meanwhile, an unplayed one instead (as ``replace packet`` draws)."""
        planned = state.packets[state.round]
        if state.cycle is None or planned in state.spares:
            return planned
        taken = set(state.used) | set(state.packets)
        pool = [p for p in state.spares if p not in taken] or [p for p in ALL_PACKETS if p not in taken]
        return rng.choice(pool) if pool else planned

    def _replace(self, state: State, rng: random.Random) -> list[Event]:
        if state.practice:
            raise IllegalCommandError("tw-replace-practice", "the practice round has one packet")
        if state.stage > 0:
            raise IllegalCommandError("tw-replace-too-late", f"round {state.round}: already revealed")
        taken = set(state.used) | set(state.packets)
        pool = [p for p in state.spares if p not in taken] or [p for p in ALL_PACKETS if p not in taken]
        if not pool:
            raise IllegalCommandError("tw-no-spare-packet", "every packet is in use")
        new = rng.choice(pool)
        replaced: dict[str, Any] = {"round": state.round, "old": state.packet, "new": new}
        if state.cycle is not None:
            replaced["cycle"] = state.cycle
        return [Event("packet-replaced", replaced), *self._deal(state, state.round, new)]

    # -- the fold --------------------------------------------------------------
    def evolve(self, state: State, event: Event) -> State:
        t = event.type
        if t == "packets-chosen":
            return replace(state, packets=tuple(event["packets"]))
        if t == "round-started":
            packets = state.packets if state.packets else (event["packet"],)
            return replace(state, round=event["round"], packet=event["packet"], decoder=event["decoder"],
                           a_team=event["a"], b_team=event["b"], packets=packets,
                           speakers=tuple(sorted(event["speakers"].items())),
                           used=state.used + (event["packet"],), stage=0, locked_a=None,
                           locked_b=None, sent=())
        if t == "packet-replaced":
            return replace(state, packet=event["new"], used=state.used + (event["new"],),
                           locked_a=None, locked_b=None)
        if t == "fact-locked":
            if event["report"] == "A":
                return replace(state, locked_a=event["fact"])
            return replace(state, locked_b=event["fact"])
        if t == "transmission-revealed":
            return replace(state, stage=event["stage"], sent=state.sent + ((event["a"], event["b"]),))
        if t == "answer-given":
            return replace(state, points=state.points + event["points"])
        if t == "game-ended":
            return replace(state, over=True)
        return state

    def is_over(self, state: State) -> bool:
        return state.over

    # -- queries -----------------------------------------------------------------
    def query(self, state: State, command: Command, phrases: Phrasebook) -> list[str]:
        if command.intent == "status":
            return [self._status(state, phrases)]
        if command.intent == "help":
            return self._help(state, phrases)
        if command.intent == "read rules":
            length = (phrases.say("tw-rules-practice-length", names=phrases.join(self.deck(True).names))
                      if state.practice else phrases.say("tw-rules-length"))
            return [phrases.say("tw-rules"), phrases.say("tw-rules-lock"), phrases.say("tw-rules-score"),
                    phrases.say("tw-rules-wrong"), length]
        deck = self.deck(state.practice)
        if command.intent == "read catalogue":
            return read_catalogue(deck, phrases)
        if command.intent == "read entry":
            return read_entry(deck, command.slots.get("entry", " ".join(command.args[1:])), phrases)
        if command.intent == "which entries":
            return which_entries(deck, command.slots.get("trait", " ".join(command.args[2:]).upper()),
                                 phrases)
        return super().query(state, command, phrases)

    def _help(self, state: State, phrases: Phrasebook) -> list[str]:
        """What can be said now first, then what can be said at any time."""
        always = phrases.say("tw-help-always")
        if state.over:
            return [always]
        if state.stage == 0:
            lines = [phrases.say("tw-help-slips")]
            if not state.practice:
                lines.append(phrases.say("tw-help-replace"))
            return lines + [always]
        key = "tw-help-first" if state.stage == 1 else "tw-help-second"
        return [phrases.say(key, decoder=state.decoder), always]

    def _status(self, state: State, phrases: Phrasebook) -> str:
        if state.over:
            key = "tw-status-practice-over" if state.practice else "tw-status-over"
            return phrases.say(key, points=state.points, possible=state.possible)
        where = (phrases.say("tw-where-practice") if state.practice else
                 phrases.say("tw-where-round", round=state.round, rounds=state.rounds, packet=state.packet))
        common = {"where": where, "decoder": state.decoder, "points": state.points,
                  "possible": state.possible}
        if state.stage == 0:
            waiting = [phrases.say("tw-waiting-report", report=h.upper())
                       for h in HOLDERS if state.locked(h) is None]
            return phrases.say("tw-status-slips", waiting=phrases.join(waiting), **common)
        a = phrases.join([spoken(sent[0]) for sent in state.sent])
        b = phrases.join([spoken(sent[1]) for sent in state.sent])
        key = "tw-status-first" if state.stage == 1 else "tw-status-second"
        return phrases.say(key, a=a, b=b, **common)

    # -- announcements -----------------------------------------------------------
    def announce(self, state: State, event: Event, phrases: Phrasebook) -> list[str]:
        t = event.type
        if t == "teams-formed":
            parts = [phrases.say("tw-team-members", team=team,
                                 members=phrases.join([state.name(s) for s in seats]))
                     for team, seats in event["teams"].items()]
            return [phrases.say("tw-teams", teams="; ".join(parts))]
        if t == "packets-chosen":
            lines = [phrases.say("tw-record-restarted")] if event["restarted"] else []
            return lines + [phrases.say("tw-packets-chosen")]
        if t == "round-started":
            speakers = event["speakers"]
            fields = {"decoder": event["decoder"], "a": event["a"], "b": event["b"],
                      "decoder_speaker": state.name(speakers["decoder"]),
                      "a_speaker": state.name(speakers["a"]), "b_speaker": state.name(speakers["b"])}
            if state.practice:
                names = phrases.join(self.deck(True).names)
                return [phrases.say("tw-practice-started", **fields),
                        phrases.say("tw-practice-catalogue", names=names)]
            return [phrases.say("tw-round-started", round=event["round"], rounds=state.rounds,
                                packet=event["packet"], **fields)]
        if t == "packet-replaced":
            return [phrases.say("tw-packet-replaced", old=event["old"], new=event["new"])]
        if t == "slip-locked":
            return [phrases.say("tw-slip-locked", report=event["report"])]
        if t == "transmission-revealed":
            key = "tw-first-revealed" if event["stage"] == 1 else "tw-second-revealed"
            return [phrases.say(key, a=spoken(event["a"]), b=spoken(event["b"]), decoder=state.decoder)]
        if t == "answer-given":
            # the verdict, the target and the running total in one line: the key line of a round change
            fields = {"name": event["name"], "total": state.points, "possible": state.possible}
            if not event["correct"]:
                return [phrases.say("tw-answer-wrong", target=self.packet(state).target, **fields)]
            key = "tw-answer-right-first" if event["stage"] == 1 else "tw-answer-right-second"
            return [phrases.say(key, **fields)]
        if t == "round-ended":
            return [phrases.say("tw-round-ended", a=phrases.join([spoken(f) for f in event["a"]]),
                                b=phrases.join([spoken(f) for f in event["b"]]))]
        if t == "game-ended":
            key = "tw-practice-ended" if state.practice else "tw-game-ended"
            return [phrases.say(key, points=event["points"], possible=event["possible"])]
        return []

    # -- private screens ------------------------------------------------------------
    def seat_audiences(self, state: State, seat: int) -> frozenset[Audience]:
        """Every member of an informant team reads its report this round."""
        held: set[Audience] = {seat}
        if state.round and not state.over:
            team = team_of(seat).value
            held |= {h for h, holder in zip(HOLDERS, (state.a_team, state.b_team)) if holder == team}
        return frozenset(held)

    def private_view(self, state: State, audience: Audience) -> dict[str, Any] | None:
        """An informant's report this round and the fact it locked (None until locked)."""
        if audience not in HOLDERS or state.packet is None or state.over:
            return None
        holder = str(audience)
        return {"round": state.round, "packet": state.packet, "report": holder.upper(),
                "team": state.a_team if holder == "a" else state.b_team,
                "facts": list(self.packet(state).report(holder)), "locked": state.locked(holder),
                "revealed": state.stage > 0}

    def private_text(self, state: State, event: Event, phrases: Phrasebook) -> str | None:
        if event.type == "report-dealt":
            first, second = event["facts"]
            key = "tw-private-report-practice" if state.practice else "tw-private-report"
            return phrases.say(key, round=event["round"], packet=event["packet"],
                               report=event["report"], first=first, second=second)
        if event.type == "fact-locked":
            return phrases.say("tw-private-locked", fact=event["fact"])
        return None


def spoken(fact: str) -> str:
    """A fact as announced: ``FORM ROUND`` is said "form round"."""
    return fact.lower()


def _or_list(names: Sequence[str]) -> str:
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
