"""In voice play a clicked command goes to the listen loop like a typed line: the loop
applies it (through the screens' shared session) and speaks its announcements, and
the click gets the reply for its screen."""

from __future__ import annotations

import threading
import time

from loop.loop_fakes import CaptionLog, RecordingSpeaker, ScriptedRecognizer, compass_session

from facilitator.screens import Hub, Seats
from facilitator.session import Reply
from facilitator.speech.base import VoiceSettings
from facilitator.speech.loop.listen import ListenLoop, LoopSettings, Tick


def test_a_click_in_voice_play_is_applied_and_spoken_by_the_loop(tmp_path):
    session = compass_session(tmp_path)               # machine keeper, leg 1 hides E S N W
    try:
        hub = Hub(session, Reply(), Seats(4))
        voice = VoiceSettings(confirm_timeout_seconds=8.0, deaf_after_speech_seconds=0.3)
        speaker = RecordingSpeaker(voice)
        loop = ListenLoop(hub.shared, ScriptedRecognizer(), speaker, voice, CaptionLog(),
                          LoopSettings(earcon_seconds=0.0))
        hub.shared.attach_loop(loop)
        replies: list[Reply | None] = []
        clicker = threading.Thread(target=lambda: replies.append(hub.submit("send NESW", wait=30)))
        clicker.start()
        deadline = time.monotonic() + 30
        while not hub._tickets and time.monotonic() < deadline:   # the click is queued for the loop
            time.sleep(0.01)
        loop.run([Tick(1.0), Tick(2.0)])
        clicker.join(30)
        assert replies and replies[0] is not None and replies[0].accepted
        assert "North east south west: 1 anchor, 2 clockwise steps." in speaker.spoken        # said aloud
        assert "North east south west: 1 anchor, 2 clockwise steps." in hub.announcements     # and shown
        assert hub._tickets == []
    finally:
        session.log.close()


def test_a_click_the_loop_has_not_reached_returns_none_and_is_not_lost(tmp_path):
    session = compass_session(tmp_path)
    try:
        hub = Hub(session, Reply(), Seats(4))
        queued: list[str] = []
        hub.dispatch = queued.append
        assert hub.submit("status", wait=0.05) is None
        assert queued == ["status"] and hub._tickets == []
    finally:
        session.log.close()
