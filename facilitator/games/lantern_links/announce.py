"""What the table hears in Lantern Links: event announcements and query answers.

Every sentence comes from ``grammars/lantern-links.toml``; this module only picks
the response keys and fills them.  Tiles, chains and solutions are said with the
tiles' words ("sun leaf, leaf moon"), never bare letters; the log keeps letters.
The open word is read after every move, as the rules ask for accessibility.  A
query's answer is a list of sentences, the key one first: the session says the
first and keeps the rest for "more".
"""

from __future__ import annotations

from collections.abc import Iterable

from ...events import Event
from ...phrases import Phrasebook
from .rules import CHAIN_LENGTH, CHECKPOINT_AFTER, MAX_POINTS, orient
from .state import State


def word(value: str) -> str:
    """A tile word as spoken and captioned ("SUN" -> "sun"); the log keeps upper case."""
    return value.lower()


def pair(a: str, b: str, phrases: Phrasebook) -> str:
    return phrases.say("ll-tile", a=word(a), b=word(b))


def tile_text(state: State, tile: str, phrases: Phrasebook) -> str:
    """A tile by its words as printed: "sun leaf"."""
    a, b = state.words[tile]
    return pair(a, b, phrases)


def _tiles(state: State, tiles: Iterable[str], phrases: Phrasebook) -> str:
    return phrases.join([tile_text(state, t, phrases) for t in tiles])


def chain_text(start: str, letters: Iterable[str], words: dict[str, tuple[str, str]],
               phrases: Phrasebook) -> str:
    """Tiles in chain order, each turned to match: "sun leaf, leaf moon, moon key"."""
    out, open_word = [], start
    for letter in letters:
        turned = orient(words[letter], open_word) or words[letter]
        out.append(pair(*turned, phrases))
        open_word = turned[1]
    return ", ".join(out) if out else phrases.say("list-empty")


def _owner(state: State, owner: int | None, phrases: Phrasebook) -> str:
    return phrases.say("ll-the-pool") if owner is None else state.name(owner)


def hands(state: State, phrases: Phrasebook) -> list[str]:
    """Who acts now with their tiles and the open word first, then the other hands."""
    if state.pool_variant:
        return [phrases.say("ll-pool-holds", tiles=_tiles(state, state.pool, phrases)), _turn(state, phrases)]
    lines = []
    seat = state.turn
    for _ in range(state.players):
        hand = state.hands[seat - 1]
        if seat == state.turn and not state.paused:
            key = "ll-hand-turn" if hand else "ll-hand-turn-empty"
            lines.append(phrases.say(key, name=state.name(seat), tiles=_tiles(state, hand, phrases),
                                     open=word(state.open)))
        elif hand:
            lines.append(phrases.say("ll-hand", name=state.name(seat), tiles=_tiles(state, hand, phrases)))
        else:
            lines.append(phrases.say("ll-hand-empty", name=state.name(seat)))
        seat = state.next_seat(seat)
    if state.paused:
        lines.insert(0, _turn(state, phrases))
    return lines


def _turn(state: State, phrases: Phrasebook) -> str:
    if state.paused:
        return phrases.say("ll-ask-rewind-or-finish", name=state.name(state.turn))
    return phrases.say("ll-next", name=state.name(state.turn), open=word(state.open))


def status(state: State, phrases: Phrasebook, routes: int) -> list[str]:
    """One sentence (route, tiles placed, open word, who acts), then the details."""
    if state.over:
        return [phrases.say("ll-status-over", points=state.total, most=routes * MAX_POINTS)]
    key = "ll-status-paused" if state.paused else "ll-status"
    out = [phrases.say(key, index=state.index, routes=routes, placed=len(state.chain),
                       open=word(state.open), name=state.name(state.turn))]
    if state.pool_variant:
        out.append(phrases.say("ll-variant-pool"))
    out.append(phrases.say("ll-status-card", card=state.card, start=word(state.start),
                           end=word(state.end), checkpoint=word(state.checkpoint)))
    if state.chain:
        out.append(phrases.say("ll-status-chain", chain=chain_text(
            state.start, [link.tile for link in state.chain], state.words, phrases)))
    recorded = (phrases.say("ll-recorded", word=word(state.recorded)) if state.recorded
                else phrases.say("ll-recorded-none"))
    rewind = phrases.say("ll-rewind-used" if state.rewind_used else "ll-rewind-ready")
    out.append(f"{recorded} {rewind}")
    out.append(phrases.say("ll-status-points", total=state.total, passes=state.passes))
    return out


def help_sentences(state: State, phrases: Phrasebook) -> list[str]:
    """What the player up may say now, then the other moves, then the queries."""
    if state.over:
        return [phrases.say("ll-help-over")]
    name = state.name(state.turn)
    if state.paused:
        first = phrases.say("ll-help-paused", name=name)
    elif state.pool_variant or state.hands[state.turn - 1]:
        first = phrases.say("ll-help-play", name=name)
    else:
        first = phrases.say("ll-help-empty-hand", name=name)
    return [first, phrases.say("ll-help-moves"), phrases.say("ll-help-queries")]


def event(state: State, ev: Event, phrases: Phrasebook, routes: int) -> list[str]:
    """Public sentences for ``ev`` (``state`` is the state after it)."""
    t = ev.type
    if t == "route-started":
        out = []
        if state.pool_variant and ev["index"] == 1:
            out.append(phrases.say("ll-pool-version"))
        out.append(phrases.say("ll-route-started", index=ev["index"], routes=routes, card=ev["route"],
                               start=word(ev["start"]), end=word(ev["end"]),
                               checkpoint=word(ev["checkpoint"])))
        out.append(phrases.say("ll-first", name=state.name(ev["first"]), open=word(state.open)))
        return out
    if t == "tile-placed":
        key = "ll-placed" if ev["position"] < CHAIN_LENGTH else "ll-placed-last"   # no word is open
        out = [phrases.say(key, name=state.name(ev["seat"]), tile=pair(ev["left"], ev["right"], phrases),
                           position=ev["position"], open=word(ev["right"]))]
        if ev["position"] == CHECKPOINT_AFTER:
            key = "ll-checkpoint-met" if ev["right"] == state.checkpoint else "ll-checkpoint-missed"
            out.append(phrases.say(key, word=word(ev["right"]), checkpoint=word(state.checkpoint)))
        if len(state.chain) < CHAIN_LENGTH:
            out.append(phrases.say("ll-next-player", name=state.name(state.turn)))
        return out
    if t == "tile-returned":
        key = "ll-mismatch-pool" if ev["owner"] is None else "ll-mismatch"   # the pool variant's tile
        return [phrases.say(key, name=state.name(ev["seat"]), tile=tile_text(state, ev["tile"], phrases),
                            open=word(ev["open"]))]
    if t == "passed":
        out = [] if ev["mismatch"] else [phrases.say("ll-passed", name=state.name(ev["seat"]))]
        if state.passes < state.players:
            out.append(_turn(state, phrases))
        return out
    if t == "route-paused":
        return [phrases.say("ll-paused-ask", name=state.name(ev["seat"]))]
    if t == "rewound":
        out = [phrases.say("ll-rewound", name=state.name(ev["seat"]), tile=tile_text(state, ev["tile"], phrases),
                           owner=_owner(state, ev["owner"], phrases))]
        if ev["position"] == CHECKPOINT_AFTER:
            out.append(phrases.say("ll-checkpoint-erased"))
        out.append(_turn(state, phrases))
        return out
    if t == "route-ended":
        fields = {"index": ev["index"], "placed": ev["placed"], "points": ev["points"],
                  "total": ev["total"], "end_bonus": ev["end_bonus"],
                  "checkpoint_bonus": ev["checkpoint_bonus"]}
        out = [phrases.say(f"ll-route-{ev['reason']}", **fields)]
        if ev["reason"] == "complete":
            out.append(phrases.say("ll-bonuses", **fields))
        if ev["points"] < MAX_POINTS:
            out.append(phrases.say("ll-solution", solution=chain_text(
                state.start, ev["solution"], state.words, phrases)))
        return out
    if t == "game-ended":
        return [phrases.say("ll-game-ended", points=ev["points"], most=routes * MAX_POINTS)]
    return []
