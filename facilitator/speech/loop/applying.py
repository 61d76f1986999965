"""Applying what the table agreed: a command executed and its reply said, typed lines, the
voice controls, and the seat the session's log names for a voice command.
"""

from __future__ import annotations

from ...command import Command
from ...session import CONTROLS, Reply
from ..base import Segment
from .core import CONFIRM_INTENTS, HOLD_ANSWERS, LoopCore, LoopState
from .pending import Pending
from .voice_controls import step


class Applying(LoopCore):
    """Executing commands and saying their replies."""

    def _execute(self, command: Command, source: Segment | None) -> Reply:
        self.applying_from = source
        try:
            return self.session.execute(command)
        finally:
            self.applying_from = None

    def _apply(self, command: Command, at: float | None = None, source: Segment | None = None) -> None:
        """Apply ``command``, heard in ``source`` (None: typed); ``applying_from`` says so meanwhile."""
        if self.voices is not None and self.voices.typed(command.canonical):   # "learn seat 2 again"
            self._after_command()
            return
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

    def _apply_asked(self, pending: Pending) -> None:
        """A pending command the table said yes to: a voice control changes the voice, a
        repeat says the last words again, anything else is applied."""
        intent = pending.command.intent
        if intent in CONTROLS:
            self._control(intent)
        elif intent == "repeat":
            self._speak(self.last_said or [self._phrase("nothing-to-repeat")], remember=False)
            self._after_command()
        else:
            self._apply(pending.command, source=pending.segment)

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
        if self._typed_answer(text):
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

    def _typed_answer(self, text: str) -> bool:
        """A typed or tapped answer while a question or an undo window is open ("yes", "yep",
        "that's right", "no", "cancel"): yes applies the pending command, no or cancel drops
        it.  True when ``text`` was such an answer; with nothing open it is no answer here
        (the session refuses a lone "yes" and does not know "yep")."""
        if self.state is LoopState.CONFIRMING:
            intents = CONFIRM_INTENTS
        elif self.state is LoopState.HOLDING:
            intents = HOLD_ANSWERS
        else:
            return False
        answer = self.ears.answer(text, intents - {"repeat"}, typed=True)
        if answer is None:   # "nah mate": a no in other words drops it (a yes must be plain)
            found = self.understanding.answer((text,), intents - {"repeat", "yes"})
            answer = found if found is not None and found.intent != "repeat" else None
        pending = self.pendings.current
        if answer is None or pending is None:
            return False
        holding = self.state is LoopState.HOLDING
        pending = self.pendings.close()
        self.state = LoopState.LISTENING
        if answer.intent == "yes" and pending is not None:
            self._apply_asked(pending)
            return True
        if pending is not None and pending.by_meaning:
            self.understanding.declined(pending.command)
        self.undone += 1 if holding else 0
        self._speak([self._phrase("confirm-cancelled")], remember=False)
        self._after_command()
        return True

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

