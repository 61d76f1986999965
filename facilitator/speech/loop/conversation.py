"""The listen loop's conversation about a pending command, and applying commands.

A command heard unsure, or one that cannot be taken back, is asked ("... Is that
right?", CONFIRMING); a sure, undoable one is echoed and waits out its undo window
(HOLDING); one echoed from the fast engine's first hearing waits for the second
engine's verdict too (``policy.after_verify``).  Answers to the question, and what is
said inside the window, follow ``policy.during_hold``; nothing is applied or logged
until the question is answered "yes" or the window closes.
"""

from __future__ import annotations

from ...command import Command
from ...session import Reply
from ..base import Segment
from .core import CONFIRM_INTENTS, HOLD_ANSWERS, QUESTION_ASIDES, LoopCore, LoopState
from .policy import Hearing, HoldTake, VerifyTake, after_verify, during_hold
from .voice_controls import step


class Conversation(LoopCore):
    """The question, the echo and its window; applying what was agreed."""

    def _said_form(self, command: Command | None = None, *, capital: bool = True) -> str:
        command = command or self.pending
        assert command is not None
        said = self.session.grammar.render(command.canonical, lists=self.ears.lists()) or command.canonical
        if not capital:
            return said
        return said[:1].upper() + said[1:]

    def _ask(self, key: str = "confirm-ask") -> None:
        self.state = LoopState.CONFIRMING
        self._prompts = 0
        # "Send north east south west. Is that right?"; "Sorry, did you say send west ...?"
        said = self._said_form(capital=key != "verify-did-you-say")
        end = self._speak([self._phrase(key, command=said)], remember=False)
        self._deadline = end + self.voice.confirm_timeout_seconds

    def _hold(self) -> None:
        """The implicit echo: nothing is applied or logged until the window closes."""
        self.state = LoopState.HOLDING
        end = self._speak([self._phrase("confirm-echo", command=self._said_form())], remember=False)
        self._deadline = end + self.settings.implicit_window_seconds

    def _verdict_if_ready(self) -> None:
        if self._verification is not None and self._verification.ready(self.now()):
            self._settle_verdict()

    def _settle_verdict(self) -> None:
        """The second engine's verdict on the echo (waited for if still out): it keeps the
        echo, turns it into a question, asks about another command, or withdraws it."""
        verification, self._verification = self._verification, None
        if verification is None or self.state is not LoopState.HOLDING or self.pending is None:
            return
        hyp = verification.result()
        if self.pending_from is not None:   # figures: when the verdict was in, at what cost
            self.verdicts.append((self.pending_from, verification.started, verification.ready_at,
                                  verification.cpu_seconds))
        _, rest = self.ears.split_wake(hyp)
        heard = self.ears.command(rest) if hyp is not None and rest.strip() else None
        if heard is not None and self._who(heard, self.pending_from) != "take":
            heard = None
        differs = heard is not None and heard.canonical.lower() != self.pending.canonical.lower()
        verdict = after_verify(held=self.pending.canonical, verified=heard.canonical if heard else None,
                               sure=hyp is not None and hyp.sure,
                               aside=heard is not None and heard.intent in self._asides(),
                               acceptable=heard is not None and (not differs or self.ears.acceptable(heard)))
        if verdict is VerifyTake.KEEP:
            self.verified += 1
            ready = verification.ready_at   # the window never closes before the verdict is in
            if self._deadline is not None and ready is not None:
                self._deadline = max(self._deadline, ready)
            return
        self.asked += 1 if verdict is not VerifyTake.WITHDRAW else 0
        if verdict is VerifyTake.ASK:
            self._ask("verify-ask")
        elif verdict is VerifyTake.CORRECT:
            self.pending = heard
            self._ask("verify-did-you-say")
        else:
            self.withdrawn += 1
            self.pending, self.pending_from, self._deadline = None, None, None
            self.state = LoopState.LISTENING
            self._speak([self._phrase("verify-withdrawn")], remember=False)
            self._after_command()

    def question_intents(self) -> frozenset[str]:
        """What can be said while a question is open: the answers, and asides that
        leave it open (repeat, help, paging, the game's queries)."""
        queries: frozenset[str] = getattr(self.session.referee, "queries", frozenset())
        return CONFIRM_INTENTS | QUESTION_ASIDES | (frozenset(queries) & self.session.legal_intents())

    def _hear_answer(self, segment: Segment) -> None:
        command = self._decode_as(segment, self.question_intents(), answering=True)
        if command is None:
            self._prompts += 1
            if self._prompts > self.settings.max_yes_or_no_prompts:
                self._timeout()   # talk that is no answer, again and again: the question closes
                return
            self._earcon("not-understood")
            end = self._speak([self._phrase("confirm-yes-or-no")], remember=False)
            # the prompt takes its own time, but does not start the timeout afresh
            self._deadline = max(self._deadline or end, end + self.settings.answer_seconds)
            return
        self._answered(command, segment)

    def _answered(self, command: Command, segment: Segment) -> None:
        """The open question answered with ``command`` (said in ``segment``, or tapped on
        the phone of the seat that spoke it)."""
        self._earcon("understood")
        pending, intent = self.pending, command.intent
        if intent == "repeat":
            self._ask()
            return
        if intent == "help":
            end = self._speak([self._phrase("confirm-help", command=self._said_form())], remember=False)
            self._deadline = end + self.voice.confirm_timeout_seconds
            return
        if intent not in CONFIRM_INTENTS:   # a query: answered, the question stays open
            reply = self._execute(command, segment)
            end = self._speak(reply.public, remember=False) if reply.public else self.now()
            self._deadline = end + self.voice.confirm_timeout_seconds
            return
        source = self.pending_from
        self.pending, self.pending_from, self._deadline = None, None, None
        self.state = LoopState.LISTENING
        if intent == "yes" and pending is not None:
            self._apply(pending, source=source)
        else:
            self._speak([self._phrase("confirm-cancelled")], remember=False)
        self._after_command()

    def _hear_during_hold(self, segment: Segment) -> None:
        """While an echoed command waits, as ``policy.during_hold`` says: yes applies it now,
        no / undo / cancel takes it back, repeat says the echo again, the same command said
        again applies it once, another of its kind replaces it, any other command closes the
        window first (the held one is applied), chatter changes nothing."""
        hyp = self.ears.decode(segment, self.listening_grammar(None))
        woke, rest = self.ears.split_wake(hyp)
        if hyp is None or not rest.strip() or self.pending is None:
            return
        self._caption(hyp.text)
        pending = self.pending
        answer = self.ears.answer(rest, HOLD_ANSWERS)
        if answer is not None:
            self._earcon("understood")
            verdict = during_hold(answer=answer.intent, heard=None, heard_intent=None, held=pending.canonical,
                                  held_intent=pending.intent, acceptable=False)
            if verdict is HoldTake.ECHO_AGAIN:
                self._hold()
            else:
                self._end_hold(apply=verdict is HoldTake.APPLY_NOW)
            return
        command = self.ears.command(rest)
        same_kind = command is not None and command.intent == pending.intent
        verdict = during_hold(
            answer=None, heard=command.canonical if command else None,
            heard_intent=command.intent if command else None, held=pending.canonical,
            held_intent=pending.intent, acceptable=same_kind and command is not None and self.ears.acceptable(command))
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
            self.pending, self.pending_from, self._deadline = None, None, None
            self.state = LoopState.LISTENING
            self._route(command, hearing)
        else:
            self._release_hold()
            if self.state is not LoopState.DONE:
                self._route(command, hearing)

    def _end_hold(self, *, apply: bool) -> None:
        """Close the undo window at once: apply the held command, or take it back."""
        pending, source = self.pending, self.pending_from
        self.pending, self.pending_from, self._deadline = None, None, None
        self.state = LoopState.LISTENING
        if apply and pending is not None:
            self._apply(pending, source=source)
        else:
            self.undone += 1
            self._speak([self._phrase("confirm-cancelled")], remember=False)
            self._after_command()

    def _release_hold(self, at: float | None = None) -> None:
        self._settle_verdict()   # the window closes only on a verdict
        if self.state is not LoopState.HOLDING:
            return
        pending, source, closed = self.pending, self.pending_from, self._deadline
        self.pending, self.pending_from, self._deadline = None, None, None
        if pending is not None and closed is not None:
            self._released = (pending.canonical, closed)
        self.state = LoopState.LISTENING
        if pending is not None:
            self.released += 1
            self._apply(pending, at=at, source=source)

    def _timeout(self, at: float | None = None) -> None:
        self.pending, self.pending_from, self._deadline = None, None, None
        self.state = LoopState.LISTENING
        self._speak([self._phrase("confirm-timeout")], remember=False, at=at)
        self._after_command()

    def _execute(self, command: Command, source: Segment | None) -> Reply:
        self.applying_from = source
        try:
            return self.session.execute(command)
        finally:
            self.applying_from = None

    def _apply(self, command: Command, at: float | None = None, source: Segment | None = None) -> None:
        """Apply ``command``, heard in ``source`` (None: typed); ``applying_from`` says so meanwhile."""
        reply = self._execute(command, source)
        extra: list[str] = []
        if reply.accepted:
            self.hints.succeeded()
        elif reply.logged:   # refused by the rules: a failure too
            usage = getattr(self.session, "usage_line", None)
            extra = self.hints.failed(usage(command.intent) if usage is not None else None, self._moment_help)
        if reply.public or extra:
            self._speak(reply.public + extra, remember=True, at=at)
            if extra:
                self.speaking.last_said = list(reply.public)
        if reply.quit or self.session.over:
            self.state = LoopState.DONE
        else:
            self._after_command()

    def _failed(self, said: list[str], usage: str | None) -> None:
        """A command addressed to the referee was not understood: say so, with a hint
        after two failures in a row."""
        self._speak(said + self.hints.failed(usage, self._moment_help), remember=False)

    def _moment_help(self) -> str:
        reply = self.session.execute(Command("help", "help", {}, "help"))
        return reply.public[0] if reply.public else self._phrase("usage-help")

    def _usage_for(self, text: str) -> str | None:
        find = getattr(self.session, "usage_key", None)
        key = find(text) if find is not None else None
        return self._phrase(key[0], **key[1]) if key is not None else None

    def _typed_line(self, line: str) -> None:
        text = line.strip()
        if not text or text.startswith("#"):
            return
        if self.voices is not None and self.voices.typed(text):
            return
        if self.state is LoopState.HOLDING:
            self._release_hold()   # a typed line closes the window: the held command first
            if self.done:
                return
        reply = self.session.handle(text)
        if reply.public:
            self._speak(reply.public)
        if reply.quit or self.session.over:
            self.state = LoopState.DONE

    def _after_command(self) -> None:
        if self.state is LoopState.LISTENING and self.gated:
            self.state = LoopState.DORMANT

    def _control(self, intent: str) -> None:
        """A voice control: volume and rate as ``voice_controls.step`` says; pausing."""
        self.voice.volume, self.voice.rate_wpm, key = step(intent, self.voice.volume, self.voice.rate_wpm,
                                                           self.settings)
        if intent == "stop listening":
            self._speak([self._phrase(key)], remember=False)
            self.state = LoopState.PAUSED
            return
        if intent == "start listening":
            self.state = LoopState.LISTENING
        self._speak([self._phrase(key)], remember=False)
        self._after_command()

    def _heard_seat(self) -> tuple[bool, int | None]:
        """For the session's log: (a voice command, the seat that said it or None)."""
        segment = self.applying_from
        if segment is not None and segment.phone:
            return True, segment.seat
        if self.voices is not None:
            return self.voices.heard_seat(segment)
        return False, None

