"""Scoring a table session from what was observable: who said what when, what the
loop applied and because of which utterance, and what it said.

A session leaves a *trace* (plain JSON, so a real run can be kept as a test
fixture and scored again after the scorer changes):

* ``said``: every line a player said, with its kind (``command``, ``answer``,
  ``chatter``), its stream times, the command it belongs to (``command``: an
  index into ``commands``, -1 for none), what it meant and which try it was (``attempt``);
* ``commands``: the commands the players set out to give, in order;
* ``executed``: everything ``Session.execute`` ran during the loop, with the
  utterance the loop said it was heard in (``loop.applying_from``; a query
  answered while a question was open is the utterance being heard), whether the
  referee accepted it and whether it only answers (a query, help);
* ``sounds``: what the assistant said, the utterance being heard when it said it
  (``cause``; none when it spoke as time passed) and the utterance a pending command was heard in (``about``:
  ``loop.pending_from``, for questions and echoes);
* ``segments``: the utterances the endpointer cut; ``ended_at``: the stream time
  the run stopped (the end of the game or of the session).

The rules (``score``), each stated by a test in tests/loop/test_session_benchmark.py:

* an application is credited to the utterance it was heard in, never to the
  last one heard (a held command released when its window closes was heard in
  the player's line, not in the assistant's echo or the next chatter line);
* the trace is scored after the run, so a command that ends the game is credited
  like any other (the players' own bookkeeping never runs after game over);
* a command counts as said from its first try the loop could have heard: a try
  that ended ``HEARD_GRACE`` seconds before the run stopped, or one an utterance
  the endpointer cut overlaps; a command the game ended before is not counted;
* a command applied again because of another try of the same command counts as
  *applied twice* (the product confirms a repeat inside the undo window; outside
  it the repeat is a second command);
* a *wrong action* is a move the referee accepted, or a voice control obeyed,
  that nobody meant: *from chatter* when the utterance it was heard in is a
  chatter line, background talk or the assistant's own voice; *from mishearing*
  when it is a player's command or answer that meant something else.  Queries and
  help change nothing in the game: answered for the wrong line they are
  chatter reaching the referee, not wrong actions;
* in phone mode, a line of kind ``intruder`` is a role's command said on the phone
  of a seat that may not give it (in array mode, from that seat at the table): each
  one applied is a *wrong seat* action; a refusal of another seat's command ("That is
  Ann's guess to send.") met by a player's own command or answer is the *right seat
  refused*, unless the line was a try said when its seat no longer might give the
  command (its first try applied meanwhile and the turn moved on: *late refused*);
* a *question's yes* is a player's answer line meaning "yes" (said to a question about the
  command meant, or to "Ann, was that you?" about her own line); it is *heard* when the
  loop applied the command while hearing that line; a question *by name* is counted by
  the line it asks about (a player's own command, or an intruder's line);
* latency is counted from the end of the line, or for a phone from its release
  (the press gives the utterance's end: the endpointer waits for nothing);
* *chatter reaching the referee*: chatter lines that caused anything to be
  executed (accepted or refused), a question or an echo, a voice control, or any
  other spoken answer (a repeat); "Say again?" has its own count.  A sound's
  cause is the utterance the loop was hearing when it spoke, none when it spoke
  as time passed (a held command released, a question timed out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: a try that ended this long before the run stopped could have been heard
HEARD_GRACE = 1.0


@dataclass
class CommandTry:
    canonical: str
    text: str
    tries: int = 0
    understood_at: int = 0   # the try whose hearing the referee applied (0: never)
    applied: int = 0         # how many times it was applied for this command
    voice: str = ""          # the voice that said it


@dataclass
class Score:
    commands: list[CommandTry] = field(default_factory=list)
    applied_twice: int = 0
    wrong_chatter: int = 0
    wrong_misheard: int = 0
    chatter_lines: int = 0
    chatter_seconds: float = 0.0
    chatter_reached: int = 0
    say_again_chatter: int = 0
    say_again_unprompted: int = 0
    wrong_seat: int = 0
    #: lines of kind ``intruder`` the loop could have heard (phone and array modes)
    intruder_lines: int = 0
    #: the right seat's command or answer refused as another seat's (array mode)
    right_seat_refused: int = 0
    #: a player's command said again after the turn had moved on (its first try applied
    #: meanwhile, heard in another line), refused as the rules say: not counted above
    late_refused: int = 0
    #: a player's "yes" to a question ("... Is that right?", "Ann, was that you: ...?"), and
    #: how many of those the loop heard as the answer (the command applied in that line)
    yes_said: int = 0
    yes_heard: int = 0
    #: questions by name ("Ann, was that you: ...?") about a player's own command, and about
    #: an intruder's line (array mode)
    by_name_right: int = 0
    by_name_intruder: int = 0
    #: CPU seconds of each recognition stage, one dict per utterance decoded
    stage_cpu: list[dict[str, float]] = field(default_factory=list)
    #: end of a line to the echo of its first hearing (the fast path), seconds
    echo_latencies: list[float] = field(default_factory=list)
    #: end of a line to the second engine's verdict on its echo, seconds
    verdict_seconds: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    segments: int = 0
    capped_segments: int = 0
    stream_seconds: float = 0.0

    @property
    def wrong_actions(self) -> int:
        return self.wrong_chatter + self.wrong_misheard


Span = list[float] | tuple[float, float] | None


def line_of(span: Span, said: list[dict[str, Any]]) -> int | None:
    """Index of the line that overlaps ``span`` the most (None: background, leak, noise)."""
    if span is None:
        return None
    start, end = span
    best, overlap = None, 0.0
    for i, u in enumerate(said):
        o = min(end, u["end"]) - max(start, u["start"])
        if o > overlap:
            best, overlap = i, o
    return best


def could_be_heard(u: dict[str, Any], trace: dict[str, Any]) -> bool:
    if u["end"] + HEARD_GRACE <= trace["ended_at"]:
        return True
    return any(s < u["end"] and e > u["start"] for s, e in trace.get("segments", []))


def score(trace: dict[str, Any]) -> Score:
    said: list[dict[str, Any]] = trace["said"]
    out = Score(stream_seconds=float(trace["ended_at"]))
    cap = float(trace.get("cap", 8.0))
    segments = trace.get("segments", [])
    out.segments = len(segments)
    out.capped_segments = sum(1 for s, e in segments if e - s >= cap - 0.35)

    # commands said, and their tries, as far as the loop could have heard them
    tries: dict[int, int] = {}
    for line in said:
        if line["kind"] == "command" and line["command"] >= 0 and could_be_heard(line, trace):
            tries[line["command"]] = max(tries.get(line["command"], 0), int(line["attempt"]))
    numbered: dict[int, CommandTry] = {}
    for i, c in enumerate(trace["commands"]):
        if i in tries:
            numbered[i] = CommandTry(c["canonical"].lower(), c["text"], tries=tries[i], voice=c.get("voice", ""))
    out.commands = list(numbered.values())

    chatter = [u for u in said if u["kind"] == "chatter"]
    out.chatter_lines = len(chatter)
    out.chatter_seconds = sum(u["end"] - u["start"] for u in chatter)
    reached: set[int] = set()

    for done in trace["executed"]:
        if done["how"] == "internal":
            continue
        k = line_of(done["cause"], said)
        u: dict[str, Any] | None = said[k] if k is not None else None
        if u is not None and u["kind"] == "chatter":
            assert k is not None
            reached.add(k)
        attempt = numbered.get(u["command"]) if u is not None else None
        if attempt is not None and done["canonical"].lower() == attempt.canonical:
            attempt.applied += 1
            if attempt.applied == 1:
                attempt.understood_at = int(u["attempt"]) if u is not None else 0
            else:
                out.applied_twice += 1
            continue
        if not done["accepted"] or done["query"]:
            continue   # refused, or an answer that changes nothing: no action taken
        if u is not None and u["kind"] == "intruder":
            out.wrong_seat += 1
            continue
        if u is None or u["kind"] == "chatter":
            out.wrong_chatter += 1
        else:
            out.wrong_misheard += 1

    out.intruder_lines = sum(1 for u in said if u["kind"] == "intruder" and could_be_heard(u, trace))
    refusals = trace.get("refusal_texts", [])
    for sound in trace["sounds"]:
        if any(r in sound["text"] for r in refusals):
            k = line_of(sound["cause"], said)
            if k is not None and said[k]["kind"] in ("command", "answer"):
                if said[k].get("may_act", True):
                    out.right_seat_refused += 1
                else:
                    out.late_refused += 1

    heard_in = {line_of(done.get("heard_in"), said) for done in trace["executed"] if done["how"] == "applied"}
    for k, u in enumerate(said):
        if u["kind"] == "answer" and u["meant"] == "yes" and could_be_heard(u, trace):
            out.yes_said += 1
            out.yes_heard += k in heard_in
    by_name = trace.get("by_name_texts", [])
    for sound in trace["sounds"]:
        if by_name and any(sound["text"].startswith(b) for b in by_name):
            k = line_of(sound.get("about"), said)
            kind = said[k]["kind"] if k is not None else None
            out.by_name_right += kind == "command"
            out.by_name_intruder += kind == "intruder"

    controls = set(trace.get("control_texts", []))
    for sound in trace["sounds"]:
        if sound["text"] not in controls:
            continue
        k = line_of(sound["cause"], said)
        v = said[k] if k is not None else None
        if v is not None and v["meant"] in trace.get("control_intents", []):
            continue
        if v is None or v["kind"] == "chatter":
            out.wrong_chatter += 1
            if k is not None:
                reached.add(k)
        else:
            out.wrong_misheard += 1

    say_again = trace.get("say_again", "")
    for sound in trace["sounds"]:
        k = line_of(sound["cause"], said)
        if k is None and sound["cause"] is not None and sound["text"] == say_again:
            out.say_again_unprompted += 1
        if k is not None and said[k]["kind"] == "chatter":
            if sound["text"] == say_again:
                out.say_again_chatter += 1
            elif not sound["text"].startswith("<"):
                reached.add(k)   # answered aloud: a repeat, a query, a refusal
        about = line_of(sound.get("about"), said)
        if about is not None and said[about]["kind"] == "chatter":
            reached.add(about)   # a question or an echo about what a chatter line was heard as
    out.chatter_reached = len(reached)

    phone = trace.get("mode") == "phone"
    for name, into in (("latencies", out.latencies), ("echo_latencies", out.echo_latencies)):
        for start, end, latency in trace.get(name, []):
            k = line_of((start, end), said)
            if k is not None and said[k]["kind"] in ("command", "answer"):
                into.append(latency + (0.0 if phone else end - said[k]["end"]))
    for start, end, _began, ready, _cpu in trace.get("verdicts", []):
        k = line_of((start, end), said)
        if k is not None and ready is not None and said[k]["kind"] in ("command", "answer"):
            out.verdict_seconds.append(ready - (end if phone else said[k]["end"]))
    out.stage_cpu = [dict(stages) for _s, _e, stages in trace.get("costs", [])]
    return out


def transcript(trace: dict[str, Any]) -> list[str]:
    """The session as a table would have heard it, with what the loop applied and why."""
    said = trace["said"]
    lines: list[tuple[float, int, str]] = []
    for i, u in enumerate(said):
        lines.append((u["start"], 0, f"{u['start']:7.2f}-{u['end']:7.2f} {u['kind']:8s} {u['voice']}: {u['text']}"))
    for sound in trace["sounds"]:
        if not sound["text"].startswith("<"):
            lines.append((sound["at"], 1, f"{sound['at']:7.2f}         assistant: {sound['text']}"))
    for done in trace["executed"]:
        if done["how"] == "internal":
            continue
        k = line_of(done["cause"], said)
        by = f"line at {said[k]['start']:.2f}" if k is not None else "no player's line"
        state = "" if done["accepted"] or done["query"] else ", refused"
        lines.append((done["at"], 2, f"{done['at']:7.2f}         applied: {done['canonical']} (heard in {by}{state})"))
    lines.append((trace["ended_at"], 3, f"{trace['ended_at']:7.2f}         end of the run"
                  + (" (game over)" if trace.get("over") else "")))
    return [line for _, _, line in sorted(lines)]
