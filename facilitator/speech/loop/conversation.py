"""The listen loop's conversation about a pending command.

A command heard unsure, or one that cannot be taken back, is asked ("... Is that
right?", CONFIRMING); a sure, undoable one is echoed and waits out its undo window
(HOLDING); one echoed from the fast engine's first hearing waits for the second
engine's verdict too (``policy.after_verify``).  Answers to the question, and what is
said inside the window, follow ``policy.during_hold`` and, for a line from another
seat, ``pending.other_seat``; nothing is applied or logged until the question is
answered "yes" (or the command is said again) or the window closes.  The pending
command is a value held by ``self.pendings`` (``pending.py``); what is said about it
goes to the phone of the seat that said it.
"""

from __future__ import annotations

from collections.abc import Callable

from ...command import Command
from ..base import Segment
from ..voices.refusal import seat_name
from .core import (
    CONFIRM_INTENTS,
    HOLD_ANSWERS,
    LIGHT_QUESTIONS,
    QUESTION_ASIDES,
    LoopCore,
    LoopState,
)
from .pending import Other, Pending, other_seat
from .policy import Hearing, HoldTake, VerifyTake, after_verify, answer_again, during_hold
from .verify import Verification


class Conversation(LoopCore):
    """The question, the echo and its window."""

    def _said_form(self, command: Command | None = None, *, capital: bool = True) -> str:
        command = command or self.pending
        assert command is not None
        said = self.session.grammar.render(command.canonical, lists=self.ears.lists()) or command.canonical
        if not capital:
            return said
        return said[:1].upper() + said[1:]

    def _ask(self, key: str = "confirm-ask") -> None:
        self.state = LoopState.CONFIRMING
        pending = self.pendings.current
        by_name = pending.by_name if pending is not None else None
        if by_name is not None and key == "confirm-ask":
            key = "voices-was-that-you"   # asked again (repeat, a correction): still by name
        # "Send north east south west. Is that right?"; "Sorry, did you say send west ...?"
        said = self._said_form(capital=key not in (*LIGHT_QUESTIONS, "verify-did-you-say", "voices-was-that-you"))
        end = self._speak([self._phrase(key, command=said, asked=said, name=seat_name(self.session, by_name or 0))],
                          remember=False)
        self.pendings.change(prompts=0, unheard=False, asked_again=False, question=key,
                             deadline=end + self.voice.confirm_timeout_seconds)

    def _ask_by_name(self, command: Command) -> None:
        """"Ann, was that you: send north east south west?": the direction of a role's command
        was unsure at the array (``VoiceRuling.ruling`` said ask), so its one seat is asked
        by name; the question is that seat's (its phone shows it) and only its yes applies."""
        acting = self._acting(command) or frozenset({0})
        self._earcon("understood")
        self.asked += 1
        pending = self.pendings.open(Pending(command, self.current, heard=self._heard_text, by_name=min(acting)))
        self._about(pending, self._ask)

    def _hold(self) -> None:
        """The implicit echo: nothing is applied or logged until the window closes."""
        self.state = LoopState.HOLDING
        end = self._speak([self._phrase("confirm-echo", command=self._said_form())], remember=False)
        self.pendings.change(deadline=end + self.settings.implicit_window_seconds)

    def _about(self, pending: Pending, act: Callable[[], None]) -> None:
        """Do ``act`` (which speaks about ``pending``): what it says goes to the phone of the
        seat that said the command, not to another seat's phone being answered now."""
        current = self.current
        answering = current.seat if current is not None and current.phone and \
            self.speaking.collected is not None else None
        if pending.seat is not None and pending.seat == answering:
            act()   # its own seat is speaking: the answer to its line carries it
            return
        with self.speaking.aside() as said:
            act()
        self._tell_owner(pending, said)

    def _verdict_if_ready(self) -> None:
        pending = self.pendings.current
        if pending is not None and pending.verification is not None and pending.verification.ready(self.now()):
            self._settle_verdict()

    def _settle_verdict(self) -> None:
        """The second engine's verdict on the echo (waited for if still out): it keeps the
        echo, turns it into a question, asks about another command, or withdraws it."""
        pending = self.pendings.current
        verification = self.pendings.take_verification()
        if verification is None or pending is None or self.state is not LoopState.HOLDING:
            return
        self._about(pending, lambda: self._verdict(pending, verification))

    def _verdict(self, pending: Pending, verification: Verification) -> None:
        hyp = verification.result()
        if pending.segment is not None:   # figures: when the verdict was in, at what cost
            self.verdicts.append((pending.segment, verification.started, verification.ready_at,
                                  verification.cpu_seconds))
        _, rest = self.ears.split_wake(hyp)
        heard = self.ears.command(rest) if hyp is not None and rest.strip() else None
        if heard is not None and self._who(heard, pending.segment) != "take":
            heard = None
        held = pending.command
        differs = heard is not None and heard.canonical.lower() != held.canonical.lower()
        verdict = after_verify(held=held.canonical, verified=heard.canonical if heard else None,
                               sure=hyp is not None and hyp.sure,
                               aside=heard is not None and heard.intent in self._asides(),
                               acceptable=heard is not None and (not differs or self.ears.acceptable(heard)))
        if verdict is VerifyTake.KEEP:
            self.verified += 1
            ready = verification.ready_at   # the window never closes before the verdict is in
            if pending.deadline is not None and ready is not None:
                self.pendings.change(deadline=max(pending.deadline, ready))
            return
        self.asked += 1 if verdict is not VerifyTake.WITHDRAW else 0
        if verdict is VerifyTake.ASK:
            self._ask("verify-ask")
        elif verdict is VerifyTake.CORRECT:
            self.pendings.change(command=heard)
            self._ask("verify-did-you-say")
        else:
            self.withdrawn += 1
            self.pendings.close()
            self.state = LoopState.LISTENING
            self._speak([self._phrase("verify-withdrawn")], remember=False)
            self._after_command()

    def question_intents(self) -> frozenset[str]:
        """What can be said while a question is open: the answers, and asides that leave it
        open (repeat, help, paging, the game's queries).  The asked command said again is
        heard apart (``_said_again``), so the question's grammar stays small."""
        queries: frozenset[str] = getattr(self.session.referee, "queries", frozenset())
        return CONFIRM_INTENTS | QUESTION_ASIDES | (frozenset(queries) & self.session.legal_intents())

    def _from_another_seat(self, pending: Pending, segment: Segment, answer: str | None,
                           command: Command | None) -> bool:
        """A line while ``pending`` waits, as ``pending.other_seat`` says; True when it was
        taken here (refused on its own, ignored, or the table took the command back)."""
        refused = answer is None and command is not None and self._who(command, segment) in ("refuse", "chatter")
        other = other_seat(owner=pending.seat, speaker=segment.seat if segment.phone else None,
                           answer=answer, refused=refused)
        if other is Other.REFUSE_ALONE:
            assert command is not None
            self._stop_for_seat(command, segment)   # the pending command keeps its window
        elif other is Other.TAKE_BACK:
            self.pendings.close()
            self.state = LoopState.LISTENING
            self.undone += 1
            self._earcon("understood")
            said = [self._phrase("pending-taken-back", name=seat_name(self.session, segment.seat or 0))]
            self._speak(said, remember=False)
            self._tell_owner(pending, said)
            self._after_command()
        return other is not Other.OWN

    def _hear_answer(self, segment: Segment) -> None:
        pending = self.pendings.current
        if pending is None:
            return
        another = segment.phone and pending.seat is not None and segment.seat != pending.seat
        if another and self._refused_first(segment, self.ears.first(segment, self.listening_grammar(None))):
            return   # another seat's command it may not give: refused at once, the question stays
        command = self._decode_as(segment, self.question_intents(), answering=True)
        if command is None and another:
            hyp = self._decode_line(segment, self.listening_grammar(None))
            if hyp is None:
                return   # nothing heard, or refused from the fast hearing already
            _, rest = self.ears.split_wake(hyp)
            line = self.ears.command(rest) if rest.strip() else None
            if line is not None:
                self._caption(hyp.text)   # its phone shows what was heard beside the answer
            if line is None or not self._from_another_seat(pending, segment, None, line):
                self._chatter()   # another seat's talk is no answer to this seat's question
            return
        if pending.question in LIGHT_QUESTIONS and (command is None or command.intent not in CONFIRM_INTENTS):
            # "Did you ask ...?" and "Did you mean ...?" are light questions: a line that is no
            # yes or no closes it quietly and is heard as any line is (the player said the
            # next command instead)
            if pending.by_meaning:
                self.understanding.declined(pending.command)
            self.pendings.close()
            self.state = LoopState.LISTENING
            self._hear_listening(segment)
            return
        if command is None:
            command = self._said_again(segment, pending)
        if command is None:
            self._unheard_answer(pending)
            return
        intent = command.intent
        answer = answer_again(answer=intent if intent in CONFIRM_INTENTS else None,
                              heard=command.canonical, asked=pending.command.canonical)
        if self._from_another_seat(pending, segment, answer, None):
            return
        if answer == "yes" and not self._yes_of(pending, segment):
            self.pendings.change(unheard=True)   # not that seat's yes: asked once more at the timeout
            self._chatter()
            return
        self._answered(pending, command, answer, segment)

    def _yes_of(self, pending: Pending, segment: Segment) -> bool:
        """Whether a yes said in ``segment`` may answer ``pending``: a question asked by name is
        answered only from that seat's place at the array (``VoiceRuling.from_seat``) or its
        phone (``pending.other_seat``); every other question, by anyone at the table."""
        if pending.by_name is None or segment.phone or self.voices is None:
            return True
        return self.voices.from_seat(pending.by_name, segment)

    def _answered(self, pending: Pending, command: Command, answer: str | None, segment: Segment) -> None:
        """The open question about ``pending`` answered with ``command`` (``answer``: what it
        counts as, ``policy.answer_again``), said in ``segment`` or tapped on the phone of
        the seat that spoke the command."""
        intent = command.intent
        self._earcon("understood")
        if answer == "yes" and intent not in CONFIRM_INTENTS:
            self.repeated += 1   # the command said again: a yes the recognizer cannot miss
        elif intent == "repeat":
            self._ask()
            return
        elif intent == "help":
            end = self._speak([self._phrase("confirm-help", command=self._said_form())], remember=False)
            self.pendings.change(deadline=end + self.voice.confirm_timeout_seconds)
            return
        elif intent not in CONFIRM_INTENTS:   # a query, or another command of its kind
            if intent == pending.command.intent:
                self.pendings.change(command=command)   # the player's correction: asked again
                self._ask()
                return
            reply = self._execute(command, segment)
            end = self._speak(reply.public, remember=False) if reply.public else self.now()
            self.pendings.change(deadline=end + self.voice.confirm_timeout_seconds)
            return
        self.pendings.close()
        self.state = LoopState.LISTENING
        if answer == "yes":
            self._apply_asked(pending)
            return
        if pending.by_meaning:
            self.understanding.declined(pending.command)
        self._speak([self._phrase("confirm-cancelled")], remember=False)
        self._after_command()

    def _said_again(self, segment: Segment, pending: Pending) -> Command | None:
        """A line the question's own hearing did not take, heard again against the answers
        and the asked command's kind, with the decoder's usual filler: the asked command
        said again is a yes (``policy.answer_again``), another of its kind a correction, and
        an answer the filler-tolerant hearing lost (a clean "no" taken as filler) is that
        answer.  Under the asked intent alone a missed "no" was forced onto the asked
        command, and taken as its yes."""
        command = self._decode_as(segment, self.question_intents() | {pending.command.intent})
        if command is None or command.intent not in CONFIRM_INTENTS | {pending.command.intent}:
            return None
        return command

    def _unheard_answer(self, pending: Pending) -> None:
        """Something was said to the question that is no yes or no the referee heard."""
        prompts = pending.prompts + 1
        self.pendings.change(prompts=prompts, unheard=True)
        if prompts > self.settings.max_yes_or_no_prompts or pending.asked_again:
            self._timeout()   # asked once more, then closed, saying what was cancelled
            return
        self._earcon("not-understood")
        end = self._speak([self._phrase("confirm-yes-or-no")], remember=False)
        # the prompt takes its own time, but does not start the timeout afresh
        self.pendings.change(deadline=max(pending.deadline or end, end + self.settings.answer_seconds))

    def _hear_during_hold(self, segment: Segment) -> None:
        """While an echoed command waits, as ``policy.during_hold`` says: yes applies it now,
        no / undo / cancel takes it back, repeat says the echo again, the same command said
        again applies it once, another of its kind replaces it, any other command closes the
        window first (the held one is applied), chatter changes nothing.  A line from another
        seat is taken as ``pending.other_seat`` says first."""
        pending = self.pendings.current
        hyp = self._decode_line(segment, self.listening_grammar(None))
        woke, rest = self.ears.split_wake(hyp)
        if hyp is None or not rest.strip() or pending is None:
            return
        self._caption(hyp.text)
        held = pending.command
        answer = self.ears.answer(rest, HOLD_ANSWERS)
        command = self.ears.command(rest) if answer is None else None
        if self._from_another_seat(pending, segment, answer.intent if answer else None, command):
            return
        if answer is not None:
            self._earcon("understood")
            verdict = during_hold(answer=answer.intent, heard=None, heard_intent=None, held=held.canonical,
                                  held_intent=held.intent, acceptable=False)
            if verdict is HoldTake.ECHO_AGAIN:
                self._hold()
            else:
                self._end_hold(apply=verdict is HoldTake.APPLY_NOW)
            return
        same_kind = command is not None and command.intent == held.intent
        verdict = during_hold(
            answer=None, heard=command.canonical if command else None,
            heard_intent=command.intent if command else None, held=held.canonical,
            held_intent=held.intent, acceptable=same_kind and command is not None and self.ears.acceptable(command))
        if command is None or verdict is HoldTake.KEEP:
            return   # chatter, or a correction the rules refuse: the held command keeps waiting
        hearing = Hearing(sure=hyp.sure, addressed=woke or segment.phone, repeated=self._repeated(command),
                          can_be_sure=self.ears.can_be_sure)
        if verdict is HoldTake.APPLY_NOW:
            self.repeated += 1
            self._earcon("understood")
            self._end_hold(apply=True)
        elif verdict is HoldTake.REPLACE:
            self.corrected += 1
            self.pendings.close()
            self.state = LoopState.LISTENING
            self._route(command, hearing)
        else:
            self._release_hold()
            if self.state is not LoopState.DONE:
                self._route(command, hearing)

    def _end_hold(self, *, apply: bool) -> None:
        """Close the undo window at once: apply the held command, or take it back."""
        pending = self.pendings.close()
        self.state = LoopState.LISTENING
        if apply and pending is not None:
            self._apply(pending.command, source=pending.segment)
        else:
            self.undone += 1
            self._speak([self._phrase("confirm-cancelled")], remember=False)
            self._after_command()

    def _release_hold(self, at: float | None = None) -> None:
        self._settle_verdict()   # the window closes only on a verdict
        if self.state is not LoopState.HOLDING:
            return
        pending = self.pendings.close()
        if pending is not None and pending.deadline is not None:
            self._released = (pending.command.canonical, pending.deadline)
        self.state = LoopState.LISTENING
        if pending is not None:
            self.released += 1
            held = pending   # its result goes to the phone that said it, not only the echo
            self._about(held, lambda: self._apply(held.command, at=at, source=held.segment))

    def _timeout(self, at: float | None = None, *, final: bool = False) -> None:
        """The question's time is up.  When the player said something the referee could not
        hear as yes or no, it says so and asks once more (unless the input ended: ``final``);
        else it cancels, saying what."""
        pending = self.pendings.current
        if pending is not None and pending.unheard and not pending.asked_again and not final:
            end = self._speak([self._phrase("confirm-not-caught", command=self._said_form())],
                              remember=False, at=at)
            self.pendings.change(asked_again=True, prompts=0,
                                 deadline=end + self.voice.confirm_timeout_seconds)
            return
        self.pendings.close()
        self.state = LoopState.LISTENING
        if pending is not None and pending.by_meaning:
            self.understanding.declined(pending.command)
        if pending is not None and pending.question in LIGHT_QUESTIONS and not pending.unheard:
            self._after_command()   # "Did you ask ...?" met with silence: it was table talk
            return
        key = "confirm-not-caught-cancelled" if pending is not None and pending.unheard else "confirm-timeout"
        said = self._said_form(pending.command, capital=False) if pending is not None else ""
        self._speak([self._phrase(key, command=said)], remember=False, at=at)
        self._after_command()
