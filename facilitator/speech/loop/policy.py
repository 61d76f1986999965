"""What a hearing means to the table: the listen loop's acceptance rules, as pure functions.

The loop (``loop.py``) gathers the facts about one utterance — what the
recognizer heard and how sure it was, whether the table addressed the referee,
how the grammar marks the command, whether the rules would accept it now — and
these functions say what to do with it.  They do no I/O and hold no state, so
the listen loop, the session benchmark and the clip benchmark apply one rule
(the shape of ``hybrid.decide``).

Listening (``take``)::

    found by meaning (words no form holds)  -> ASK    ("Did you mean: turn card one?"; yes
                                               applies it; it is never held or applied as heard)
    a voice control (louder, softer, slower, faster) heard unsure, or heard as another
    command in the free words (``sure`` is then false)
        addressed, or said again soon  -> ASK    ("Did you ask softer?")
        otherwise                      -> CHATTER
    the fast engine's first hearing (two engines, not yet verified)
        confirm = true, the rules accept it -> HOLD_FIRST (echo now, verify meanwhile)
        anything else                       -> WAIT  (hear with both engines, then decide)
    aside (query, help, repeat, paging, voice control)
        trusted hearing          -> ANSWER   (said now, logged never)
        otherwise                -> CHATTER  (silence)
    unsure, unaddressed, and the rules would refuse it now -> CHATTER
    confirmed intent the rules accept now
        confirm = "always", unsure, unaddressed, not said again -> CHATTER
        confirm = "always", or heard unsure -> ASK   ("... Is that right?")
        confirm = true, heard sure          -> HOLD  (implicit echo, undo window)
    a free move (confirm = "unsure") the rules accept, heard unsure
        by a recognizer that can be sure   -> HOLD  (its echo and window)
        in the light mode (never sure)     -> ASK   (a missed "no" must not let it through)
    anything else                           -> APPLY (free or checked commands; a refusal is said)

A command that cannot be taken back (``confirm = "always"``: a final answer, a
commit, restarting a leg, finish, new game, quit) heard unsure from a table that
did not address the referee is met with silence the first time: chatter forced
onto the grammar ("the card on the left" heard as a final answer) must not even
reach the question, whose "yes" might then be misheard too.  Said again soon
(*repeated*, as for asides), it is asked.  From a sure or addressed hearing it
is asked at once.

A hearing is *trusted* for an aside when the recognizer is sure, the table
addressed the referee (wake phrase, push-to-talk), or the same aside was heard
unsure just before and met with silence (*repeated*): a player who got no answer
says it again, and chatter seldom decodes to the same query twice in a row.  In
the light mode, where pocketsphinx alone is never sure, that is how a question
said without the wake phrase is answered (on the second try).  An aside changes
nothing in the game, so that is enough; consequential commands still need
``sure`` to skip the question.

While an implicit echo's undo window is open (``during_hold``)::

    yes                                   -> APPLY_NOW
    no / cancel / undo that               -> UNDO
    repeat                                -> ECHO_AGAIN
    the held command said again           -> APPLY_NOW  (applied once, never twice)
    another command of the same intent    -> REPLACE    (the player's correction), if the
                                             rules accept it; else KEEP
    any other command                     -> RELEASE    (the held one is applied, then the
                                             new one is heard as usual)
    nothing understood (chatter)          -> KEEP

A repeat that began inside the window but ended after it closed (the held
command was applied meanwhile) is the same repeat: ``late_repeat`` says so, and
nothing more is applied.

A command or query that ``take`` met with silence gets a short answer when it was
clearly said to this game (``short_answer``); table talk stays unanswered::

    not clearly this game's (one engine's hearing alone, nothing of the grammar)
                                            -> SILENCE
    clearly this game's: a query of the game, heard unsure
                                            -> DID_YOU_ASK ("Did you ask how many
                                               candidates?", a question: yes answers it)
    clearly this game's: a command the rules accept now, or an aside, heard unsure
                                            -> SAY_AGAIN  ("Say again?"; said again, it is
                                               *repeated* and heard as such)
    a command the rules refuse now          -> SILENCE   (an illegal route heard unsure is
                                               chatter far more often than a player)

*Clearly this game's* (``Hearing.agreed``): both engines heard the same intent (the fast
engine's first hearing and the two engines' verdict), though not sure of the words.  A
free-text hearing matched to the nearest command by the grammar side comes in as the
verdict's unsure hearing, so it counts when the fast engine heard that intent too.

While a question is open (``answer_again``)::

    yes / no / cancel / repeat              -> that answer
    the asked command said again            -> yes (a yes the recognizer cannot miss)
    anything else                           -> no answer (a query is answered, the question
                                               stays open; talk is prompted for yes or no)

A question is never cancelled for want of an answer the referee failed to hear
without saying so: when it times out (or the prompts run out) after the player said
something that was not heard as yes or no, the referee says "I didn't catch that.
Send north east south west: yes or no?" and waits once more; a cancel says what was
cancelled ("No answer, so cancelled: send north east south west.").

When the second engine's verdict on a command echoed from the first hearing
arrives (``after_verify``); nothing is applied before it::

    the same command, sure                  -> KEEP      (the window runs on as any echo's)
    the same command, unsure                -> ASK       ("Is that right?": applied only on yes)
    another command the rules accept now    -> CORRECT   ("Sorry, did you say ...?", asked)
    nothing, an aside, or a refused command -> WITHDRAW  ("Sorry, I misheard that.")
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Take(str, Enum):
    """What the loop does with a command heard while listening."""

    CHATTER = "chatter"   # silence: nothing said, nothing logged
    ANSWER = "answer"     # an aside answered now
    ASK = "ask"           # asked "... Is that right?", applied only on yes
    HOLD = "hold"         # echoed, applied when the undo window closes
    APPLY = "apply"       # applied (or refused aloud by the rules) now
    HOLD_FIRST = "hold-first"  # echoed from the first hearing; verified before it may apply
    WAIT = "wait"         # a first hearing that needs the two engines' verdict first


class VerifyTake(str, Enum):
    """What the second engine's verdict does to a command echoed from the first hearing."""

    KEEP = "keep"
    ASK = "ask"
    CORRECT = "correct"
    WITHDRAW = "withdraw"


class Short(str, Enum):
    """What a command or query met with silence gets instead (``short_answer``)."""

    SILENCE = "silence"
    SAY_AGAIN = "say-again"
    DID_YOU_ASK = "did-you-ask"


class HoldTake(str, Enum):
    """What an utterance does to an implicitly echoed command waiting out its window."""

    KEEP = "keep"
    APPLY_NOW = "apply-now"
    UNDO = "undo"
    ECHO_AGAIN = "echo-again"
    REPLACE = "replace"
    RELEASE = "release"


@dataclass(frozen=True)
class Hearing:
    """How one utterance was heard.

    ``sure``: the recognizer's verdict that the words are what was said;
    ``addressed``: the table spoke to the referee (wake phrase, push-to-talk);
    ``repeated``: the same command was heard unsure just before and met with
    silence (weaker than ``sure``: it trusts an aside, and lets a command that cannot
    be taken back be asked; it never skips a question);
    ``first``: the fast engine's hearing alone, before the two engines' verdict
    (never sure); ``can_be_sure``: the recognizer is ever sure (False in the light
    mode, pocketsphinx alone, where every hearing is unsure and a "no" said into an
    undo window is missed in talk as often as the command was); ``agreed``: both
    engines heard this intent (the fast engine's first hearing and the verdict), so
    the line was clearly said to this game even when neither is sure of the words;
    ``meaning``: the command was found by the meaning stage in words no form of the
    grammar holds.
    """

    sure: bool = False
    addressed: bool = False
    repeated: bool = False
    first: bool = False
    can_be_sure: bool = True
    agreed: bool = False
    #: found by the meaning stage, not by a form of the grammar: asked, never applied as heard
    meaning: bool = False


def addressed(*, woke: bool, sure: bool, armed: bool) -> bool:
    """Whether an utterance was addressed to the referee.

    Armed (after the wake phrase said on its own, or push-to-talk) always
    counts; the wake phrase *in the same breath* counts only from a sure
    hearing: under pocketsphinx, "pass the crisps please" was decoded as "hello
    facilitator what is the score"."""
    return armed or (woke and sure)


def take(hearing: Hearing, *, aside: bool, confirm: str | None, acceptable: bool,
         quiet_refusal: bool = True, control: bool = False) -> Take:
    """The rule of the module docstring for one command.

    ``confirm``: the grammar's marking (None: not marked, ``"true"``: undoable,
    ``"always"``: asked every time, ``"unsure"``: a free move echoed when heard unsure); ``acceptable``: whether the rules would
    accept the command now (an illegal one is refused at once, never echoed);
    ``quiet_refusal``: an unsure, unaddressed command the rules would refuse is
    chatter (the lobby refuses nothing this way); ``control``: a voice control of the
    referee's voice (louder, softer, slower, faster), never taken from an unsure hearing."""
    if hearing.meaning:
        return Take.ASK if acceptable and not hearing.first else Take.CHATTER
    if control and not hearing.first and not hearing.sure:
        return Take.ASK if hearing.addressed or hearing.repeated else Take.CHATTER
    if hearing.first:
        return Take.HOLD_FIRST if not aside and confirm == "true" and acceptable else Take.WAIT
    if aside:
        return Take.ANSWER if hearing.sure or hearing.addressed or hearing.repeated else Take.CHATTER
    trusted = hearing.sure or hearing.addressed
    if not trusted and quiet_refusal and not acceptable:
        return Take.CHATTER
    if confirm == "unsure":   # a free move: a misheard one is undone in its window
        if not acceptable or hearing.sure:
            return Take.APPLY
        return Take.HOLD if hearing.can_be_sure else Take.ASK
    if confirm is not None and acceptable:
        if confirm == "always" and not trusted and not hearing.repeated and quiet_refusal:
            return Take.CHATTER
        if confirm == "always" or not hearing.sure:
            return Take.ASK
        return Take.HOLD
    return Take.APPLY


def during_hold(*, answer: str | None, heard: str | None, heard_intent: str | None,
                held: str, held_intent: str, acceptable: bool) -> HoldTake:
    """The rule of the module docstring for an utterance heard inside an undo window.

    ``answer``: the utterance as an answer (yes, no, cancel, repeat), if it is
    one; ``heard``/``heard_intent``: the utterance as a command legal now
    (canonical form), if it is one; ``held``/``held_intent``: the command
    waiting; ``acceptable``: whether the rules would accept ``heard`` now."""
    if answer == "yes":
        return HoldTake.APPLY_NOW
    if answer in ("no", "cancel"):
        return HoldTake.UNDO
    if answer == "repeat":
        return HoldTake.ECHO_AGAIN
    if heard is None:
        return HoldTake.KEEP
    if heard.lower() == held.lower():
        return HoldTake.APPLY_NOW
    if heard_intent == held_intent:
        return HoldTake.REPLACE if acceptable else HoldTake.KEEP
    return HoldTake.RELEASE


def late_repeat(*, heard: str, started: float, released: tuple[str, float]) -> bool:
    """Whether ``heard`` (canonical), said from ``started``, repeats the held command
    ``released`` = (canonical, when its window closed and it was applied): the same
    command, begun before the window closed, is the player confirming it, not a second one."""
    canonical, closed = released
    return heard.lower() == canonical.lower() and started <= closed


def after_verify(*, held: str, verified: str | None, sure: bool, aside: bool, acceptable: bool) -> VerifyTake:
    """The rule of the module docstring for the verdict on an echoed first hearing.

    ``held``: the echoed command (canonical); ``verified``: the command of the two
    engines' verdict (None: they heard nothing they would take); ``sure``: the
    verdict's sureness; ``aside`` and ``acceptable``: whether the verdict's command
    is an aside, and whether the rules would accept it now."""
    if verified is None:
        return VerifyTake.WITHDRAW
    if verified.lower() == held.lower():
        return VerifyTake.KEEP if sure else VerifyTake.ASK
    if aside or not acceptable:
        return VerifyTake.WITHDRAW
    return VerifyTake.CORRECT


def short_answer(*, clear: bool, aside: bool, acceptable: bool, query: bool) -> Short:
    """The rule of the module docstring for a command ``take`` met with silence.

    ``clear``: the line was clearly said to this game (``Hearing.agreed``); ``aside``:
    it answers without changing the game; ``acceptable``: the rules would accept it now;
    ``query``: it is one of the game's queries (asked back by name)."""
    if not clear:
        return Short.SILENCE
    if query:
        return Short.DID_YOU_ASK
    if aside or acceptable:
        return Short.SAY_AGAIN
    return Short.SILENCE


def answer_again(*, answer: str | None, heard: str, asked: str) -> str | None:
    """The rule of the module docstring for a line heard while a question is open.

    ``answer``: the line as yes / no / cancel / repeat, if it is one; ``heard``: its
    canonical form; ``asked``: the asked command's canonical form."""
    if answer is not None:
        return answer
    return "yes" if heard.lower() == asked.lower() else None
