"""One utterance through the listen loop's stages: admit (half duplex, gating, a phone's
press), who spoke (a phone's seat, a voiceprint), hear (``Ears``; with two engines a fast
first hearing that may be echoed at once), decide (``policy.take``) and hand it on to be
asked, held or applied (``conversation.py``).
"""

from __future__ import annotations

from ...command import Command
from ...session import CONTROLS, Reply
from ..base import FirstHearing, Hypothesis, RecognitionGrammar, Segment
from ..engines.short_answers import answer_grammar
from ..voices.refusal import refuse
from .core import CONFIRM_INTENTS, PAUSED_INTENTS, Discarded, LoopCore, LoopState
from .half_duplex import admit, admit_pressed
from .policy import Hearing, Short, Take, addressed, late_repeat, short_answer, take
from .understanding import VOICE_CONTROLS, Heard
from .verify import Verification


class Routing(LoopCore):
    """Hearing an utterance and deciding what it is."""

    def hear(self, segment: Segment) -> None:
        """One utterance, from any microphone."""
        if self.state is LoopState.DONE:
            return
        self._timers(segment.start)  # a timeout due before the utterance began fires first
        if self.done:
            return
        if segment.source == "table" and self._on_a_phone(segment):
            self.discarded.append(Discarded(segment, "phone"))   # its phone hears it: heard once
            return
        self.clock.heard_until(segment.end)
        self.heard_segments += 1
        self.current = segment
        if segment.phone:
            self._heard_text = None
            self.speaking.collect()
        try:
            self._hear(segment)
        finally:
            if segment.phone:
                said = self.speaking.collected_since()
                if self.on_phone is not None and segment.seat is not None:
                    self.on_phone(segment.seat, self._heard_text, said)

    def _hear(self, segment: Segment) -> None:
        admitted = self._admit(segment)
        if admitted is None:
            return
        self.current = segment = admitted
        if self.voices is not None and self.voices.enrolling and not segment.phone \
                and self.state in (LoopState.LISTENING, LoopState.DORMANT):
            self._enrolment_line(segment)
            return
        self._settle_verdict()   # nothing is heard over an echo whose verdict is still out
        if self.state is LoopState.CONFIRMING:
            self._hear_answer(segment)
        elif self.state is LoopState.HOLDING:
            self._hear_during_hold(segment)
        elif self.state is LoopState.PAUSED:
            command = self._decode_as(segment, PAUSED_INTENTS)
            if command is None:
                self.discarded.append(Discarded(segment, "paused"))
            else:
                self._control(command.intent)
        else:
            self._hear_listening(segment)

    def _admit(self, segment: Segment) -> Segment | None:
        """Half duplex (invariant 6): a table utterance overlapping the assistant's sound is
        dropped or trimmed (``half_duplex.admit``); a phone's press stopped the assistant, so
        only the part of it said over the assistant's last sound is trimmed off."""
        if segment.phone:
            kept = admit_pressed(segment, self.clock.sounds, self.voice.deaf_after_speech_seconds,
                                 self.settings.min_trimmed_seconds)
            beyond = kept is not None
        else:
            kept, beyond = admit(segment, self.clock.sounds, self.settings.min_trimmed_seconds)
        if kept is None:
            self.discarded.append(Discarded(segment, "half-duplex"))
            if beyond and self._expecting(segment):
                self._earcon("not-understood")   # someone spoke to us: never silence
            return None
        if kept is not segment:
            self.trimmed += 1
        return kept

    def _enrolment_line(self, segment: Segment) -> None:
        assert self.voices is not None
        hyp = self.ears.decode(segment, self.ears.recognition(CONFIRM_INTENTS))
        answer = self.ears.answer(hyp.text, CONFIRM_INTENTS) if hyp is not None else None
        if answer is not None and answer.intent in ("no", "cancel"):
            self._caption(hyp.text if hyp is not None else "no")
        self._speak(self.voices.line(segment, answer, hyp is not None and hyp.sure), remember=False)

    def _hear_listening(self, segment: Segment) -> None:
        armed = segment.phone or self.gate.is_armed(segment.start)
        if self.gated and not armed:
            hyp = self.ears.decode(segment, self.wake_grammar())
            woke, rest = self.ears.split_wake(hyp)
            if not woke or hyp is None:
                self.discarded.append(Discarded(segment, "not-armed"))
                return
            self._caption(hyp.text)
            if not rest:
                self._earcon("listening")
                self._rearm()
                return
            self.gate.disarm()
            self.state = LoopState.LISTENING
            # the wake phrase in the same breath counts only from a sure hearing: chatter
            # forced onto "hello facilitator what is the score" must not be answered
            self._understand(Heard(segment, hyp, rest, addressed=hyp.sure))
            self._after_command()
            return
        if not segment.phone:
            self.gate.disarm()
        if self.state is LoopState.DORMANT:
            self.state = LoopState.LISTENING
        grammar = self.listening_grammar()
        first = self.ears.first(segment, grammar)
        first_intent: str | None = None
        if first is not None:
            if self._echo_first(segment, grammar, first, armed):
                return
            first_intent = self._intent_of(first.hypothesis)
            hyp = self.ears.verify(segment, grammar, first)
        else:
            hyp = self.ears.decode(segment, grammar)
        woke, rest = self.ears.split_wake(hyp)
        if woke and not rest:
            assert hyp is not None
            self._caption(hyp.text)
            self._earcon("listening")
            self.gate.arm(self.now())
            return
        if hyp is not None and hyp.text.strip():
            self._caption(hyp.text)
        elif hyp is not None and hyp.free:
            self._caption(hyp.free[0])   # what the free transcriber wrote: the meaning stage reads it
        self._understand(Heard(segment, hyp, rest, addressed(woke=woke, sure=hyp is not None and hyp.sure,
                                                             armed=armed), first_intent))

    def _intent_of(self, hyp: Hypothesis | None) -> str | None:
        _, rest = self.ears.split_wake(hyp)
        command = self.ears.command(rest) if hyp is not None and rest.strip() else None
        return command.intent if command is not None else None

    def _echo_first(self, segment: Segment, grammar: RecognitionGrammar, first: FirstHearing,
                    armed: bool) -> bool:
        """Answer at once: an undoable command the fast engine heard is echoed now and verified
        while the echo is said (``verify.py``); a command a phone's seat may not give is
        refused now.  False: wait for both engines as usual."""
        if self._refused_first(segment, first):
            return True
        hyp = first.hypothesis
        _, rest = self.ears.split_wake(hyp)
        command = self.ears.command(rest) if hyp is not None and rest.strip() else None
        if command is None or self._who(command, segment) != "take" or self._late_repeat(command):
            return False
        intent = command.intent
        if take(Hearing(first=True, addressed=armed), aside=intent in self._asides(), confirm=self._confirm(intent),
                acceptable=self.ears.acceptable(command)) is not Take.HOLD_FIRST:
            return False
        assert hyp is not None
        self._caption(hyp.text)
        self._unanswered = None
        self._earcon("understood")
        self.held += 1
        self._open(command, segment, Verification(lambda: self.ears.verify(segment, grammar, first), self.now(),
                                                  threaded=self.clock.wall,
                                                  cpu_scale=self.settings.verify_cpu_scale))
        self._hold()
        return True

    def _refused_first(self, segment: Segment, first: FirstHearing | None) -> bool:
        """A seat's refusal at once: a phone's seat is certain, so a command the fast engine
        heard that this seat may not give is refused without waiting for the second engine
        (which is then not asked: nothing more is said).  True when it was refused."""
        hyp = first.hypothesis if first is not None else None
        if not segment.phone or hyp is None:
            return False
        _, rest = self.ears.split_wake(hyp)
        command = self.ears.command(rest) if rest.strip() else None
        if command is None or self._who(command, segment) != "refuse" or self._late_repeat(command):
            return False
        self._caption(hyp.text)
        self._stop_for_seat(command, segment)
        return True

    def _decode_line(self, segment: Segment, grammar: RecognitionGrammar) -> Hypothesis | None:
        """``segment`` under ``grammar``, by both engines; None also when a phone's line was
        refused from the fast hearing already (``_refused_first``)."""
        first = self.ears.first(segment, grammar) if segment.phone else None
        if first is None:
            return self.ears.decode(segment, grammar)
        if self._refused_first(segment, first):
            return None
        return self.ears.verify(segment, grammar, first)

    def _understand(self, heard: Heard) -> None:
        """Words heard while listening, through the understand stage (``understanding.py``):
        chatter is met with silence, a command by how sure the hearing was, how costly a
        mistake would be and how it was found (``_route``); a line clearly said to the
        referee that nothing placed gets "Say again?" and, after failures, how to say it."""
        hyp = heard.hypothesis
        if hyp is None or not (heard.words.strip() or heard.free):
            if heard.addressed:
                self._not_understood()
            else:
                self._chatter()
            return
        understood = self.understanding.of(heard)
        command = understood.command
        if command is None:
            if not heard.addressed:
                self._chatter()
                return
            text = heard.words if heard.words.strip() else heard.free[0]
            self._earcon("not-understood")
            reply = self.session.reject(text, "say-again", "not understood")
            self._failed(reply.public, self._usage_for(text))
            self._rearm()
            return
        if not self.understanding.said_freely(command, heard):
            self._chatter()   # a voice control the free words do not say: the closed set's guess
            return
        found_by_meaning = understood.by == "meaning"
        sure = not found_by_meaning and understood.verdict != "contradicted" and \
            self.understanding.sure_of(command, heard)
        self._route(command, Hearing(sure=sure,
                                     addressed=heard.addressed, repeated=self._repeated(command),
                                     can_be_sure=self.ears.can_be_sure,
                                     agreed=heard.first_intent == command.intent, meaning=found_by_meaning))

    def _route(self, command: Command, hearing: Hearing) -> None:
        """Take a heard command as ``policy.take`` says: silence, an answer, a question,
        an implicit echo, or at once.  A command that is not the speaker's seat's stops
        first (``_stop_for_seat``), unless it repeats the command just applied: said again
        inside its window, it is that command's, whoever's turn it is now."""
        if self._late_repeat(command):
            self.repeated += 1   # said again inside the window, heard after it closed: applied once
            self._released = None
            return
        if self._stop_for_seat(command, self.current):
            return
        intent = command.intent
        aside = intent in self._asides()
        confirm = self._confirm(intent)
        quiet_refusal = getattr(self.session, "acceptable", None) is None
        needs_check = not aside and (confirm is not None or
                                     (quiet_refusal and not (hearing.sure or hearing.addressed)))
        acceptable = self.ears.acceptable(command) if needs_check else True
        if hearing.meaning:
            acceptable = self.ears.acceptable(command)
        verdict = take(hearing, aside=aside, confirm=confirm, acceptable=acceptable,
                       quiet_refusal=quiet_refusal, control=intent in VOICE_CONTROLS)
        if verdict is Take.CHATTER:
            if aside or confirm == "always":   # remembered: said again soon, it is heard
                self._unanswered = (command.canonical.lower(), self.now())
            self._short_answer(command, hearing, aside=aside, acceptable=acceptable)
            return
        self._unanswered = None
        if self._who(command, self.current) == "ask":   # who spoke is unsure: its one seat is asked
            self._ask_by_name(command)
            return
        if verdict in (Take.ASK, Take.HOLD):
            self._earcon("understood")
            self._open(command, self.current)
            if verdict is Take.ASK:
                self.asked += 1
                if hearing.meaning:
                    self.pendings.change(by_meaning=True)
                    self._ask("meaning-did-you-mean")
                elif intent in VOICE_CONTROLS and not hearing.sure:
                    self._ask("confirm-did-you-ask")
                else:
                    self._ask()
            else:
                self.held += 1
                self._hold()
        else:
            self._command(command)

    def _short_answer(self, command: Command, hearing: Hearing, *, aside: bool, acceptable: bool) -> None:
        """A command or query met with silence so far (``take`` said chatter): clearly this
        game's, it gets a short answer (``policy.short_answer``); table talk stays silent."""
        queries: frozenset[str] = getattr(self.session.referee, "queries", frozenset())
        short = short_answer(clear=hearing.agreed, aside=aside, acceptable=acceptable,
                             query=command.intent in queries and command.intent not in ("help", "read rules"))
        if short is Short.SILENCE:
            self._chatter()   # an aside heard unsure; "yes" with nothing asked; an illegal route
        elif short is Short.DID_YOU_ASK:
            self._earcon("understood")
            self.asked += 1
            self._open(command, self.current)
            self._ask("confirm-did-you-ask")
        else:
            self._earcon("not-understood")
            self._speak([self._phrase("say-again")], remember=False)
            self._after_command()

    def _stop_for_seat(self, command: Command, segment: Segment | None) -> bool:
        """A stranger's voice is chatter; a role's command from another seat (its phone, or
        its voice) is refused in words once; True when the command stops here."""
        ruling = self._who(command, segment)
        if ruling in ("take", "ask"):
            return False
        reply: Reply | None = None
        if segment is not None and segment.phone:
            acting = self._acting(command) or frozenset()
            self.applying_from = segment
            try:
                reply = refuse(self.session, command, acting, segment.seat, "another seat's phone")
            finally:
                self.applying_from = None
        elif self.voices is not None:
            reply = self.voices.refusal(command, segment)   # None: a stranger, or said once already
        if reply is None:
            self._chatter()
            return True
        self._earcon("not-understood")
        self._speak(reply.public, remember=False)
        self._after_command()
        return True

    def _late_repeat(self, command: Command) -> bool:
        return self._released is not None and self.current is not None and late_repeat(
            heard=command.canonical, started=self.current.start, released=self._released)

    def _command(self, command: Command) -> None:
        intent = command.intent
        self._earcon("understood")
        if intent == "repeat":
            self._speak(self.last_said or [self._phrase("nothing-to-repeat")], remember=False)
        elif intent in CONTROLS:
            self._control(intent)
        else:
            self._apply(command, source=self.current)

    def _decode_as(self, segment: Segment, intents: frozenset[str], *, answering: bool = False) -> Command | None:
        """``segment`` as one of ``intents``; ``answering``: an answer to the open question,
        heard with the talk around it taken as filler (``engines/short_answers.py``)."""
        grammar = self.recognition_grammar(intents)
        hyp = self.ears.decode(segment, answer_grammar(grammar) if answering else grammar)
        self.free_heard = hyp.free if hyp is not None else ()
        if hyp is None or not hyp.text.strip():
            if answering and self.free_heard:   # no answer of the grammar: meaning may take a no
                command = self.understanding.answer(self.free_heard, intents)
                if command is not None:
                    self._caption(self.free_heard[0])
                return command
            return None
        self._caption(hyp.text)
        return self.ears.answer(hyp.text, intents)

    def _expecting(self, segment: Segment) -> bool:
        """Whether the table is talking to the referee now (a question or an echo is
        open, or the loop was woken or pressed), so a lost utterance gets a sound."""
        return (self.state in (LoopState.CONFIRMING, LoopState.HOLDING) or segment.phone
                or self.gate.is_armed(segment.start))

    def _not_understood(self) -> None:
        """Addressed, but no words were heard: a sound and "Say again?"."""
        self._earcon("not-understood")
        self._failed([self._phrase("say-again")], None)
        self._rearm()

    def _rearm(self) -> None:
        """With the wake phrase: the next utterance may follow without a new wake phrase.
        With push-to-talk alone the player presses again (arming the loop after each
        "Say again?" let the next chatter line in)."""
        if self.settings.wake_phrase and self.state is not LoopState.DONE:
            self.gate.arm(self.now())
            self.state = LoopState.LISTENING
