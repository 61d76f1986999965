"""The hub: every caller shares one lock, each reply reaches the screens once, a
resumed game's screens show the private messages from before, and a seat can be
released by voice or typed line (a table control: it logs nothing)."""

from __future__ import annotations

import threading

import pytest

from facilitator.command import Command
from facilitator.screens import Hub, Seats
from facilitator.screens.talk import TalkRefused
from facilitator.session import Session

ROUTES = {"keeper": "human", "mode": "standard", "routes": ["ESNW", "NESW", "WSEN"]}


@pytest.fixture
def made(tmp_path):
    session, opening = Session.start("compass-code", players=3, seed=1, options=dict(ROUTES),
                                     log_path=tmp_path / "cc.jsonl")
    yield Hub(session, opening, Seats(3)), opening
    session.log.close()


def test_replies_reach_the_screens_after_they_are_logged(tmp_path, made):
    hub, opening = made
    assert hub.announcements == opening.public
    assert [line.type for line in hub.private_for(1)] == ["leg-started"]
    version = hub.version
    reply = hub.submit("send N E S W")
    assert hub.version > version
    assert hub.announcements[-1] == reply.public[-1]
    logged = (tmp_path / "cc.jsonl").read_text(encoding="utf-8")
    marks = hub.private_for(1)[-1]
    assert marks.type == "guess-marked" and f'"seq":{marks.seq}' in logged
    assert hub.private_for(2) == []


def test_a_resumed_game_shows_the_private_messages_from_before(tmp_path, made):
    hub, _ = made
    hub.submit("send N E S W")
    hub.submit("feedback 0 2")
    before = [(p.seq, p.text) for p in hub.private_for(1)]
    hub.session.log.close()
    session, reply, _ = Session.resume(tmp_path / "cc.jsonl")
    try:
        late = Hub(session, reply, Seats(3))
        assert [(p.seq, p.text) for p in late.private_for(1)] == before
        assert "Recount" in before[-1][1]
    finally:
        session.log.close()


def test_release_by_voice_or_typed_line_logs_nothing(tmp_path, made):
    hub, _ = made
    token = hub.seats.seats[2].token
    assert hub.seats.claim(token) is not None
    lines = (tmp_path / "cc.jsonl").read_text(encoding="utf-8")
    spoken = hub.shared.execute(Command("release seat", "release seat 2", {"number": "2"}, "release seat two"))
    assert spoken.public == ["Seat 2 is free: the table screen shows its new join link."]
    assert hub.seats.claim(token) is None                    # the released device's link is dead
    assert hub.seats.claim(hub.seats.seats[2].token) is not None   # the new link works
    typed = hub.shared.handle("release seat 2")                # typed, as on stdin
    assert typed.public == spoken.public and not typed.accepted and not typed.logged
    assert hub.shared.handle("release seat 3").public == ["Seat 3 is not held by any device."]
    assert hub.shared.handle("release seat 9").public == ["There is no seat 9."]
    assert (tmp_path / "cc.jsonl").read_text(encoding="utf-8") == lines
    assert hub.shared.handle("repeat").public == ["There is no seat 9."]


def test_concurrent_callers_are_serialised(tmp_path, made):
    hub, _ = made
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            for _ in range(20):
                hub.shared.handle("status")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    hub.submit("send N E S W")
    for t in threads:
        t.join()
    assert not errors
    seqs = [int(line.split('"seq":')[1].split(",")[0])
            for line in (tmp_path / "cc.jsonl").read_text(encoding="utf-8").splitlines()]
    assert seqs == list(range(1, len(seqs) + 1))
    assert hub.session.state.pending == "NESW"


def _play_leg_one(hub):
    """Leg 1 (keeper: seat 1, route E S N W): a wrong total (Recount), then solved;
    leg 2's keeper is seat 2."""
    hub.submit("send N E S W")
    hub.submit("feedback 0 2")          # wrong: the marks are C C - A
    hub.submit("feedback 1 2")
    hub.submit("send E S N W")
    hub.submit("feedback 4 0")
    assert hub.session.state.keeper == 2


def test_private_messages_stay_with_the_seat_they_were_addressed_to(tmp_path, made):
    hub, _ = made
    _play_leg_one(hub)
    first = [line.text for line in hub.private_for(1)]
    second = [line.text for line in hub.private_for(2)]
    assert any("Recount" in text for text in first)
    # the new keeper reads the keeper role now, but not what was said to the old one
    assert not any("Recount" in text for text in second)
    assert [line.type for line in hub.private_for(2)] == ["leg-started"]
    # nor does the old keeper read leg 2's route
    assert all(line.seats == frozenset({1}) for line in hub.private_for(1))
    # after a restart each seat still has its own history, and only its own
    hub.session.log.close()
    session, reply, _ = Session.resume(tmp_path / "cc.jsonl")
    try:
        late = Hub(session, reply, Seats(3))
        assert [line.text for line in late.private_for(1)] == first
        assert [line.text for line in late.private_for(2)] == second
    finally:
        session.log.close()


def test_a_resumed_game_shows_what_was_announced_before(tmp_path, made):
    hub, _ = made
    hub.submit("send N E S W")
    said = list(hub.announcements)
    hub.session.log.close()
    session, reply, _ = Session.resume(tmp_path / "cc.jsonl")
    try:
        late = Hub(session, reply, Seats(3))
        guess = next(line for line in said if line.startswith("Guess 1"))
        assert guess in late.announcements
        # the earlier lines come first, the resumed opening last
        assert late.announcements[-len(reply.public):] == reply.public
        assert late.announcements.index(guess) < len(late.announcements) - len(reply.public)
    finally:
        session.log.close()


def test_two_windows_messages_stay_with_the_round_s_informants(tmp_path):
    """Report A changes hands each round: round 1's "Your slip is locked" stays with the
    seat that held report A then, never the seat holding it next."""
    session, opening = Session.start("two-windows", players=3, seed=2, log_path=tmp_path / "tw.jsonl")
    try:
        hub = Hub(session, opening, Seats(3))
        referee = session.referee
        first = {h: next(s for s in (1, 2, 3) if h in referee.seat_audiences(session.state, s)) for h in "ab"}
        fact = referee.private_view(session.state, "a")["facts"][0]
        assert hub.submit(f"a sends {fact}").accepted
        assert hub.submit(f"b sends {referee.private_view(session.state, 'b')['facts'][0]}").accepted
        names = referee.deck(False).names
        for name in names:                                  # answer until the round ends
            if session.state.round != 1:
                break
            hub.submit(f"final {name}")
            if session.state.round == 1 and "more" in referee.legal_intents(session.state):
                hub.submit("more")
        assert session.state.round == 2
        now = next(s for s in (1, 2, 3) if "a" in referee.seat_audiences(session.state, s))
        assert now != first["a"]
        locked = [line for line in hub.private_for(first["a"]) if fact in line.text and line.type == "fact-locked"]
        assert locked, [line.text for line in hub.private_for(first["a"])]
        assert not any(line.type == "fact-locked" and line.seq == locked[0].seq for line in hub.private_for(now))
    finally:
        session.log.close()


class _AskingLoop:
    """A listener whose question is opened and closed by hand (the loop's own side is
    tested with the real loop in test_browser_talk_loop.py)."""

    def __init__(self) -> None:
        self.asking: int | None = None
        self.taps: list[tuple[int, bool]] = []

    def phone_press(self, seat: int) -> None: ...

    def phone_utterance(self, seat: int, pcm: bytes) -> None: ...

    def asking_seat(self) -> int | None:
        return self.asking

    def seat_answer(self, seat: int, yes: bool) -> None:
        self.taps.append((seat, yes))


def test_a_phone_question_that_closes_without_a_tap_redraws_the_screens(made):
    hub, _ = made
    loop = _AskingLoop()
    hub.listener = loop
    hub.notice_question()
    version = hub.version
    loop.asking = 2                       # the referee asks seat 2 about what its phone said
    hub.notice_question()
    assert hub.version > version and hub.asking_seat() == 2
    with pytest.raises(TalkRefused) as refused:   # another seat's tap answers nothing, and says why
        hub.answer_tap(1, True)
    assert refused.value.key == "not-yours" and refused.value.fields == {"name": "Player 2"}
    hub.answer_tap(2, False)
    assert loop.taps == [(2, False)]
    version = hub.version
    hub.notice_question()
    assert hub.version == version         # nothing changed, nothing redrawn
    loop.asking = None                    # it timed out, or a voice at the table answered it
    hub.notice_question()
    assert hub.version > version and hub.asking_seat() is None
    with pytest.raises(TalkRefused) as refused:
        hub.answer_tap(2, True)
    assert refused.value.key == "no-question" and loop.taps == [(2, False)]
