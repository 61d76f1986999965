"""What the table hears in Compass Code: announcements and query answers.

Every sentence comes from ``grammars/compass-code.toml``; this module only picks
the response keys and fills them.  Routes are spoken as direction words ("north
east south west"), never letters; the log keeps letters ("NESW").  A query's
answer is a list of sentences, the key one first: the session says the first and
keeps the rest for "more".
"""

from __future__ import annotations

from ...events import Event
from ...phrases import Phrasebook
from .rules import marks
from .state import State

#: candidate routes read per sentence (four routes are sixteen direction words)
CHUNK = 4


def direction(letter: str, phrases: Phrasebook) -> str:
    """One direction as its word: ``W`` -> "west"."""
    return phrases.say(f"cc-direction-{letter.upper()}")


def route(letters: str, phrases: Phrasebook) -> str:
    """A route as words: ``ESNW`` -> "east south north west"."""
    return " ".join(direction(letter, phrases) for letter in letters)


def capital(sentence: str) -> str:
    """A sentence that opens with a route still opens with a capital (captions)."""
    return sentence[:1].upper() + sentence[1:]


def candidate_sentences(found: list[str], phrases: Phrasebook) -> list[str]:
    """The count first, then the routes four to a sentence ("First 4: ...").

    Up to four candidates fit in one sentence with the count."""
    spoken = [route(r, phrases) for r in found]
    if len(spoken) <= CHUNK:
        if not spoken:
            return [phrases.say("cc-candidates-none")]
        return [phrases.say("cc-candidates-few", n=len(spoken), routes=phrases.join(spoken))]
    out = [phrases.say("cc-candidates-count-read", n=len(spoken))]
    for start in range(0, len(spoken), CHUNK):
        chunk = spoken[start:start + CHUNK]
        key = ("cc-candidates-first" if start == 0 else
               "cc-candidates-last" if start + CHUNK >= len(spoken) else "cc-candidates-next")
        out.append(phrases.say(key, n=len(chunk), routes=phrases.join(chunk)))
    return out


def status(state: State, phrases: Phrasebook, legs: int, candidates: int) -> list[str]:
    """One sentence (where the voyage is, who acts), then the details for "more"."""
    if state.over:
        return [phrases.say("cc-status-over", solved=sum(state.results), legs=legs)]
    if state.pending is not None:
        first = phrases.say("cc-status-keeper", leg=state.leg, legs=legs, guess=state.guess,
                            guesses=state.max_guesses, keeper=state.name(state.keeper))
    else:
        first = phrases.say("cc-status", leg=state.leg, legs=legs, guess=state.guess,
                            guesses=state.max_guesses, captain=state.name(state.captain))
    check = ("cc-check-none" if not state.has_check else
             "cc-check-spent" if state.check else "cc-check-ready")
    out = [first, phrases.say("cc-status-clues", check=phrases.say(check), n=candidates)]
    if state.results:
        out.append(phrases.say("cc-status-solved", solved=sum(state.results), done=len(state.results)))
    return out


def help_sentences(state: State, phrases: Phrasebook) -> list[str]:
    """What the one who acts now may say, then what anyone may ask, then the rest."""
    if state.over:
        return [phrases.say("cc-help-over")]
    if state.pending is not None:
        first = phrases.say("cc-help-keeper", keeper=state.name(state.keeper))
    elif state.has_check and state.check is None:
        first = phrases.say("cc-help-captain-check", captain=state.name(state.captain))
    else:
        first = phrases.say("cc-help-captain", captain=state.name(state.captain))
    out = [first, phrases.say("cc-help-queries")]
    if state.human and state.pending is None:
        out.append(phrases.say("cc-help-keeper-later"))
    out.append(phrases.say("cc-help-restart"))
    return out


def event(state: State, ev: Event, phrases: Phrasebook, legs: int) -> list[str]:
    """Public sentences for ``ev`` (``state`` is the state after it)."""
    t = ev.type
    if t == "captain-named":
        if ev["guess"] == 1:
            key = "cc-leg-human" if state.human else "cc-leg-machine"
            return [phrases.say(key, leg=ev["leg"], legs=legs, keeper=state.name(state.keeper),
                                captain=state.name(ev["seat"]), guesses=state.max_guesses)]
        return [phrases.say("cc-next-captain", guess=ev["guess"], guesses=state.max_guesses,
                            captain=state.name(ev["seat"]))]
    if t == "guess-sent":
        return [phrases.say("cc-guess-sent", guess=ev["guess"], route=route(ev["route"], phrases),
                            keeper=state.name(state.keeper))]
    if t == "guess-scored":
        if ev["anchors"] == 4:
            return []       # the leg's end says it: one sentence, not two that disagree
        key = "cc-guess-corrected" if ev["corrected"] else "cc-guess-scored"
        return [capital(phrases.say(key, guess=ev["guess"], route=route(ev["route"], phrases),
                                    anchors=ev["anchors"], clockwise=ev["clockwise"]))]
    if t == "recount-asked":
        return [phrases.say("cc-recount-public", guess=ev["guess"], keeper=state.name(state.keeper))]
    if t == "bearing-checked":
        key = "cc-check-yes" if ev["answer"] else "cc-check-no"
        return [phrases.say(key, direction=direction(ev["direction"], phrases), position=ev["position"])]
    if t == "leg-restarted":
        return [phrases.say("cc-leg-restarted", leg=ev["leg"])]
    if t == "leg-ended":
        if ev["solved"]:
            corrected = bool(state.scored) and state.scored[-1].corrected
            key = "cc-leg-solved-corrected" if corrected else "cc-leg-solved"
            return [phrases.say(key, leg=ev["leg"], route=route(ev["route"], phrases))]
        return [phrases.say("cc-leg-failed", leg=ev["leg"], route=route(ev["route"], phrases))]
    if t == "voyage-ended":
        return [phrases.say(f"cc-voyage-{ev['outcome']}", solved=ev["solved_legs"], legs=legs)]
    return []


def private(state: State, ev: Event, phrases: Phrasebook) -> str | None:
    """The keeper's private lines: the route, each guess's marks, a recount."""
    t = ev.type
    if t == "leg-started":
        if ev["keeper"] is None:
            return None     # the machine keeps the route: no player may read it
        return phrases.say("cc-private-route", leg=ev["leg"], route=route(ev["route"], phrases),
                           card=ev["card"])
    if t == "route-entered":      # a human keeper's physical card (entered on their screen)
        return phrases.say("cc-private-card", leg=ev["leg"], route=route(ev["route"], phrases),
                           card=ev["card"])
    if t == "guess-marked":
        return phrases.say("cc-private-marks", guess=ev["guess"], route=route(ev["route"], phrases),
                           marks=ev["marks"])
    if t == "feedback-flagged":
        assert state.route is not None and state.pending is not None
        return phrases.say("cc-private-recount", guess=ev["guess"], anchors=ev["anchors"],
                           clockwise=ev["clockwise"], marks=marks(state.pending, state.route))
    return None
