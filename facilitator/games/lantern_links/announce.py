"""What the table hears in Lantern Links: event announcements and query answers.

Every sentence comes from ``grammars/lantern-links.toml``; this module only picks
the response keys and fills them.  The open word is read after every move, as the
rules ask for accessibility.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...events import Event
from ...phrases import Phrasebook
from .rules import CHAIN_LENGTH, CHECKPOINT_AFTER, MAX_POINTS

if TYPE_CHECKING:
    from .referee import State


def tile_text(state: State, tile: str, phrases: Phrasebook) -> str:
    a, b = state.words[tile]
    return phrases.say("ll-tile", tile=tile, a=a, b=b)


def _tiles(state: State, tiles: tuple[str, ...] | list[str], phrases: Phrasebook) -> str:
    return phrases.join([tile_text(state, t, phrases) for t in tiles])


def _owner(state: State, owner: int | None, phrases: Phrasebook) -> str:
    return phrases.say("ll-the-pool") if owner is None else state.name(owner)


def hands(state: State, phrases: Phrasebook) -> list[str]:
    """Every hand, the current player's first, then the open word."""
    if state.pool_variant:
        lines = [phrases.say("ll-pool-holds", tiles=_tiles(state, state.pool, phrases))]
    else:
        lines = []
        seat = state.turn
        for _ in range(state.players):
            hand = state.hands[seat - 1]
            if hand:
                lines.append(phrases.say("ll-hand", name=state.name(seat), tiles=_tiles(state, hand, phrases)))
            else:
                lines.append(phrases.say("ll-hand-empty", name=state.name(seat)))
            seat = state.next_seat(seat)
    return [" ".join(lines), _turn(state, phrases)]


def _turn(state: State, phrases: Phrasebook) -> str:
    if state.paused:
        return phrases.say("ll-ask-rewind-or-finish", name=state.name(state.turn))
    return phrases.say("ll-next", name=state.name(state.turn), open=state.open)


def status(state: State, phrases: Phrasebook, routes: int) -> str:
    if state.over:
        return phrases.say("ll-status-over", points=state.total, most=routes * MAX_POINTS)
    chain = " ".join(link.tile for link in state.chain) or phrases.say("list-empty")
    recorded = (phrases.say("ll-recorded", word=state.recorded) if state.recorded
                else phrases.say("ll-recorded-none"))
    rewind = phrases.say("ll-rewind-used" if state.rewind_used else "ll-rewind-ready")
    variant = phrases.say("ll-variant-pool") if state.pool_variant else ""
    return " ".join(phrases.say(
        "ll-status", index=state.index, routes=routes, card=state.card, start=state.start,
        end=state.end, checkpoint=state.checkpoint, placed=len(state.chain), chain=chain,
        recorded=recorded, rewind=rewind, passes=state.passes, total=state.total,
        variant=variant, turn=_turn(state, phrases)).split())


def event(state: State, ev: Event, phrases: Phrasebook, routes: int) -> list[str]:
    t = ev.type
    if t == "route-started":
        out = []
        if state.pool_variant and ev["index"] == 1:
            out.append(phrases.say("ll-pool-version"))
        out.append(phrases.say("ll-route-started", index=ev["index"], routes=routes, card=ev["route"],
                               start=ev["start"], end=ev["end"], checkpoint=ev["checkpoint"]))
        out.append(hands(state, phrases)[0])
        out.append(phrases.say("ll-first", name=state.name(ev["first"]), open=state.open))
        return out
    if t == "tile-placed":
        out = [phrases.say("ll-placed", name=state.name(ev["seat"]), tile=ev["tile"],
                           left=ev["left"], right=ev["right"], position=ev["position"],
                           open=ev["right"])]
        if ev["position"] == CHECKPOINT_AFTER:
            key = "ll-checkpoint-met" if ev["right"] == state.checkpoint else "ll-checkpoint-missed"
            out.append(phrases.say(key, word=ev["right"], checkpoint=state.checkpoint))
        if len(state.chain) < CHAIN_LENGTH:
            out.append(phrases.say("ll-next-player", name=state.name(state.turn)))
        return out
    if t == "tile-returned":
        a, b = state.words[ev["tile"]]
        return [phrases.say("ll-mismatch", tile=ev["tile"], a=a, b=b, open=ev["open"],
                            owner=_owner(state, ev["owner"], phrases))]
    if t == "passed":
        out = [] if ev["mismatch"] else [phrases.say("ll-passed", name=state.name(ev["seat"]))]
        if state.passes < state.players:
            out.append(_turn(state, phrases))
        return out
    if t == "route-paused":
        return [phrases.say("ll-paused-ask", name=state.name(ev["seat"]))]
    if t == "rewound":
        out = [phrases.say("ll-rewound", name=state.name(ev["seat"]), tile=ev["tile"],
                           owner=_owner(state, ev["owner"], phrases))]
        if ev["position"] == CHECKPOINT_AFTER:
            out.append(phrases.say("ll-checkpoint-erased"))
        out.append(_turn(state, phrases))
        return out
    if t == "route-ended":
        fields = {"index": ev["index"], "placed": ev["placed"], "points": ev["points"],
                  "total": ev["total"], "end_bonus": ev["end_bonus"],
                  "checkpoint_bonus": ev["checkpoint_bonus"], "end": state.end,
                  "checkpoint": state.checkpoint}
        out = [phrases.say(f"ll-route-{ev['reason']}", **fields)]
        if ev["points"] < MAX_POINTS:
            out.append(phrases.say("ll-solution", solution=" ".join(ev["solution"])))
        return out
    if t == "game-ended":
        return [phrases.say("ll-game-ended", points=ev["points"], most=routes * MAX_POINTS)]
    return []
