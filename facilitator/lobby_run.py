"""``facilitator serve``: the lobby and its games, by voice or (``--text``) by typed lines.

What a Raspberry Pi at a table runs as a service: the lobby chooses or resumes a
game, the game is played through the same session (and, by voice, the same listen
loop) as ``facilitator play``, and at its end, or on "quit", the lobby is back.
Every game's log is in the data directory, so a restart offers the interrupted game.

Text mode reads one utterance a line on stdin and prints every announcement; EOF
exits 0 with the game resumable.  Voice mode keeps one microphone stream, one
recognizer and one speaker for the lobby and every game.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from .errors import DeviceError, InUseError, LogError, OptionsError, SpeechError, WriteError
from .grammar import load_grammar
from .lobby import GameStore, Lobby
from .locks import lock_data_dir
from .paths import data_dir
from .phrases import Phrasebook
from .session import Reply, Session
from .settings import Settings


def add_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument("--text", action="store_true", help="read utterances from stdin, print announcements")
    serve.add_argument("--config", type=Path, metavar="PATH", help="settings file (default: the platform's)")
    serve.add_argument("--data-dir", type=Path, help="the table's data directory (game logs, records)")
    serve.add_argument("--seed", type=int, help="make the first game's draws reproducible")
    serve.add_argument("--private", type=Path, metavar="PATH", help="append private messages here")
    serve.add_argument("--input-device", metavar="NAME|INDEX", help="microphone by name or index")
    serve.add_argument("--output-device", metavar="NAME|INDEX", help="speaker by name or index")
    serve.add_argument("--vosk-model", type=Path, metavar="DIR", help="recognize with this Vosk model")
    serve.add_argument("--second-engine", choices=("auto", "off", "always"), metavar="MODE",
                       help="Whisper beside pocketsphinx: auto (always when installed), off or always "
                           "(see docs/speech.md)")
    serve.add_argument("--voices", choices=("auto", "on", "off"), metavar="MODE",
                       help="learn each seat's voice at the start of a game: auto (on with the "
                            "speakers extra or a microphone array, off in the light mode), on or off "
                            "(docs/speakers.md)")
    serve.add_argument("--wake-phrase", action="store_true", default=None,
                       help="listen for a command only after the wake phrase ('hey referee')")
    serve.add_argument("--push-to-talk", nargs="?", const="key", metavar="key|gpio:PIN|evdev:DEV",
                       help="listen only after a key press, a GPIO button or an input-device key")
    serve.add_argument("--rate", type=int, metavar="WPM", help="speech rate in words per minute")
    serve.add_argument("--volume", type=float, metavar="0-1", help="speech volume from 0.1 to 1")
    serve.add_argument("--voice", metavar="NAME", help="espeak-ng voice name")
    serve.add_argument("--audio-in", type=Path, metavar="FILE.wav",
                       help="hear a recording instead of the microphone")
    serve.add_argument("--array", metavar="GEOMETRY",
                       help="the microphone (or --audio-in's recording) is a microphone array: respeaker-4mic-hat, "
                            "respeaker-usb-v2, ps3-eye or positions in mm; each voice's bearing names its seat, "
                            "live or recorded (this turns voice turns on: not with --voices off)")
    serve.add_argument("--speech-out", type=Path, metavar="DIR",
                       help="write the assistant's speech as WAV files in DIR instead of playing it")
    serve.add_argument("--service", action="store_true",
                       help="run as a service: a missing microphone or speaker exits 1 (systemd retries) "
                            "instead of falling back to typed lines; \"quit\" in the lobby stops nothing")
    serve.add_argument("--screens", action="store_true", default=None,
                       help="serve the table screen and the players' phones for the life of the service")
    serve.add_argument("--lan", action="store_true", default=None,
                       help="with --screens: phones on the local network can join")
    serve.add_argument("--port", type=int, help="with --screens: the port (default 8000)")
    serve.add_argument("--host", metavar="ADDRESS",
                       help="with --screens --lan: the address phones use (default: this machine's LAN address)")


def run(args: argparse.Namespace, settings: Settings, stdin: IO[bytes] | None = None,
        out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr

    def warn(message: str) -> None:
        print(f"facilitator: {message}", file=err, flush=True)

    directory = data_dir(args.data_dir)
    try:
        lock = lock_data_dir(directory)       # one lobby per table, held while it runs
    except InUseError as exc:
        # said aloud (and shown), then the one line on stderr and exit 2
        phrases = Phrasebook(load_grammar("lobby").responses)
        _say_once(args, phrases.say("lobby-in-use", pid=exc.pid or "unknown"), out)
        raise
    try:
        store = GameStore(directory)
        store.table.clean_stale()
        return _run(args, settings, store, stdin, out, err, warn)
    finally:
        lock.release()


def _say_once(args: argparse.Namespace, sentence: str, out: IO[str]) -> None:
    """A sentence shown, and spoken when a speaker is at hand (best effort: the lobby stops)."""
    try:
        out.write(sentence + "\n")
        out.flush()
    except OSError:
        pass
    if args.text:
        return
    try:
        from .speech.base import VoiceSettings
        from .speech.voice_out import tts

        voice = VoiceSettings()
        speaker: Any = (tts.FileSpeaker(args.speech_out, voice) if args.speech_out is not None
                        else tts.SoundSpeaker(voice, device=args.output_device))
        speaker.speak(sentence)
        _close(speaker)
    except Exception:  # noqa: BLE001, S110 - no speaker: the sentence was shown and the line goes to stderr
        pass


def _run(args: argparse.Namespace, settings: Settings, store: GameStore, stdin: IO[bytes] | None,
         out: IO[str], err: IO[str], warn: Callable[[str], None]) -> int:
    screens_on = bool(args.screens) if args.screens is not None else settings.screens.enabled
    if not screens_on:
        for flag in ("lan", "port", "host"):
            if getattr(args, flag, None) not in (None, False):
                raise OptionsError(f"--{flag} is for the screens: add --screens (or screens.enabled = true)")
    quit_stops = not args.service or settings.service.quit_stops
    lobby = Lobby(store, settings, seed=args.seed, private_path=args.private,
                  warn=warn, quit_stops=quit_stops, screens=screens_on)
    screens = None
    if screens_on:
        from .lobby_screens import TableScreens

        args.lan = args.lan if args.lan is not None else settings.screens.lan
        args.port = args.port if args.port is not None else settings.screens.port
        args.host = args.host or settings.screens.host
        args.keep_phone_audio = settings.screens.keep_phone_audio
        screens = TableScreens(lobby, args, err)
    try:
        if args.text:
            return _text(lobby, screens, stdin if stdin is not None else sys.stdin.buffer, out)
        return run_voice(lobby, args, out, err, warn, screens)
    finally:
        if screens is not None:
            screens.stop()


def _text(lobby: Lobby, screens: Any, stream: IO[bytes], out: IO[str]) -> int:
    if screens is None:
        return run_text(lobby, stream, out)
    from .lobby_screens import run_text as run_text_with_screens

    return run_text_with_screens(lobby, screens, stream, out)


def _show(reply: Reply, out: IO[str]) -> None:
    from .textplay import show

    show(reply, out)


def run_text(lobby: Lobby, stream: IO[bytes], out: IO[str]) -> int:
    """The lobby and its games on typed lines, until "quit" in the lobby or EOF."""
    from .textplay import lines_of

    lines = (line.strip() for line in lines_of(stream))
    said = (line for line in lines if line and not line.startswith("#"))
    _show(lobby.opening(), out)
    while True:
        for text in said:
            _show(lobby.handle(text), out)
            if lobby.over:
                break
        if not lobby.over or lobby.closed:
            return 0
        session = lobby.take()
        try:
            finished = _play_text(session, said, out)
        except (WriteError, LogError) as exc:   # the disk failed: say so, keep the lobby up
            _show(lobby.failed(session, exc), out)
            continue
        finally:
            session.log.close()
        if not finished:
            return 0   # EOF mid-game: the log is complete and the next start offers it
        _show(lobby.back(session), out)


def _play_text(session: Session, said: Iterator[str], out: IO[str]) -> bool:
    """Play typed lines until the game ends or "quit" (True), or EOF (False)."""
    if session.over:
        return True
    for text in said:
        reply = session.handle(text)
        _show(reply, out)
        if session.over or reply.quit:
            return True
    return False


def open_recording(args: argparse.Namespace) -> Any:
    """``--audio-in`` read whole (a WavSource), or None for the microphone.  ``serve`` calls
    it before it takes the data directory, so that a file that cannot be heard (a FIFO, a
    device, an impossible rate) is refused in one line with nothing written or held."""
    if args.audio_in is None:
        return None
    from .speech.audio.devices import WavSource
    from .speech.loop.voice_play import array_geometry

    return WavSource(args.audio_in, array=array_geometry(args))


class _SharedStream:
    """One frame stream for the lobby and every game: each loop takes up where the last
    stopped (a loop closes its source when it ends, so closing here does nothing)."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.t = 0.0
        self._frames: Iterator[Any] | None = None
        self.ended = False

    def frames(self) -> Iterator[Any]:
        if self._frames is None:
            self._frames = iter(self.source.frames())
        for frame in self._frames:
            self.t = frame.t
            yield frame
        self.ended = True

    def close(self) -> None:
        return None


def run_voice(lobby: Lobby, args: argparse.Namespace, out: IO[str], err: IO[str],
              warn: Callable[[str], None], screens: Any = None) -> int:
    """The lobby and its games by voice; with no microphone or speaker, by typed lines.

    ``--audio-in FILE.wav`` hears a recording instead of the microphone and
    ``--speech-out DIR`` keeps the speech as WAV files (as ``play`` does).  With the
    screens, as with ``play --screens``, a table without a microphone of its own (or a
    speaker) still plays by voice: the seats' phones are the microphones (their talk
    buttons), and the screens and captions show what would have been said."""
    from .speech.audio.devices import MicSource, SilentSource, find_device
    from .speech.audio.endpoint import Endpointer
    from .speech.base import VoiceSettings
    from .speech.engines.recognize import make_recognizer
    from .speech.loop.listen import ListenLoop, LoopSettings, StreamCaptions
    from .speech.loop.voice_play import PrintedOnly, array_geometry, engine_mode, voices_mode
    from .speech.voice_out import tts
    from .speech.voices.voice_turns import Embeds, VoiceTurns

    voice = VoiceSettings(rate_wpm=args.rate or VoiceSettings.rate_wpm,
                          volume=args.volume if args.volume is not None else VoiceSettings.volume,
                          voice=args.voice)
    array = array_geometry(args)
    recording = getattr(args, "recording", None) or open_recording(args)
    table_mic = recording is None       # False: a recording, or only the phones hear
    speaker: Any
    try:
        if recording is None:
            try:
                find_device(args.input_device, "input")
            except DeviceError as exc:
                if screens is None:
                    raise
                warn(f"{exc}; the seats' phones are the microphones (their talk buttons)")
                table_mic = False
        if args.speech_out is not None:
            speaker = tts.FileSpeaker(args.speech_out, voice)
        else:
            speaker = tts.SoundSpeaker(voice, device=args.output_device)
    except (DeviceError, SpeechError) as exc:
        if recording is None and screens is None:
            return _no_device(lobby, str(exc), args, out, err, screens)
        warn(f"{exc}; announcements are printed only" if screens is None
             else f"{exc}; announcements are shown on the screens and printed only")
        speaker = PrintedOnly(voice)
    recognizer = make_recognizer(vosk_model=args.vosk_model, warn=warn, second_engine=args.second_engine)
    try:
        source = recording or (MicSource(device=args.input_device, array=array) if table_mic else SilentSource())
    except DeviceError as exc:
        if screens is None:
            _close(speaker)
            return _no_device(lobby, str(exc), args, out, err, screens)
        warn(f"{exc}; the seats' phones are the microphones (their talk buttons)")
        table_mic, source = False, SilentSource()
    stream = _SharedStream(source)
    gate = LoopSettings(wake_phrase=bool(args.wake_phrase), push_to_talk=bool(args.push_to_talk))
    captions = StreamCaptions(out)
    clock = time.monotonic if recording is None else None

    def loop_for(session: Any, previous: ListenLoop | None) -> ListenLoop:
        loop = ListenLoop(session, recognizer, speaker, voice, captions, gate, wall_clock=clock, warn=warn)
        if previous is not None:   # the stream goes on: its time, and deafness while we spoke
            loop.continue_from(previous)
        if screens is not None:    # what it makes of a phone's utterance goes back to that phone
            loop.on_phone = screens.hub.phone_heard
        return loop

    relay = _Relay()
    embedder: Embeds | None = None
    stop_ptt: Callable[[], None] = _nothing
    if screens is not None:   # clicks and phones go to whichever loop runs now, which speaks the replies
        screens.hub.dispatch = relay.submit_text
        screens.hub.listener = relay
    try:
        if args.push_to_talk:
            from .speech.audio import push_to_talk

            stop_ptt = push_to_talk.start(args.push_to_talk, relay)
        elif recording is None and sys.stdin.isatty():
            from .speech.audio.push_to_talk import read_lines

            read_lines(sys.stdin, relay, tap_on_empty=False)   # typed lines still work
        opening = lobby.opening().public
        shown = False
        if screens is not None:   # back into the game a crash interrupted, if any
            screens.show(lobby, opening)
            opening = screens.back_into(lobby) or opening   # resumed: not "say resume" first
            shown = True
        while True:
            if screens is not None and not shown:
                screens.show(lobby, opening)
            shown = False
            relay.loop = loop_for(screens.hub.shared if screens is not None else lobby, relay.loop)
            relay.loop.announce(opening)
            relay.loop.run_audio(stream, Endpointer(complete=relay.loop.complete))
            if not lobby.over or lobby.closed or stream.ended:
                return 0
            session = lobby.take()
            # the game's opening was said by the lobby
            relay.loop = loop_for(screens.show(session) if screens is not None else session, relay.loop)
            turns = VoiceTurns.attach(relay.loop, voices_mode(args, live=table_mic),
                                      second_engine=engine_mode(args),
                                      warn=warn, embedder=embedder, array=array)
            if turns is not None:   # each seat asked by name; one embedder for the night
                embedder = turns.embedder
                turns.begin()
            try:
                relay.loop.run_audio(stream, Endpointer(complete=relay.loop.complete))
            except (WriteError, LogError) as exc:   # the disk failed: say so, keep the lobby up
                opening = lobby.failed(session, exc).public
                continue
            finally:
                session.log.close()
            if stream.ended:
                return 0   # the recording ended mid-game: the game is kept for "resume"
            opening = lobby.back(session).public
    finally:
        stop_ptt()
        source.close()
        _close(speaker)


def _close(speaker: Any) -> None:
    synthesizer = getattr(speaker, "synthesizer", None)
    if synthesizer is not None:
        synthesizer.close()


def _no_device(lobby: Lobby, reason: str, args: argparse.Namespace, out: IO[str], err: IO[str],
               screens: Any = None) -> int:
    if args.service:
        print(f"facilitator: {reason}; exiting so that the service starts again "
              "(check the devices with: facilitator doctor)", file=err, flush=True)
        return 1
    print(f"facilitator: {reason}; continuing in text mode: type each command on a line", file=err)
    return _text(lobby, screens, sys.stdin.buffer, out)


def _nothing() -> None:
    return None


class _Relay:
    """Push-to-talk is started once; its presses go to whichever loop runs now, and so do
    clicks and the seats' phones (the screens' ``PhoneListener``)."""

    loop: Any = None

    def press(self, t: float | None = None) -> None:
        if self.loop is not None:
            self.loop.press(t)

    def release(self, t: float | None = None) -> None:
        if self.loop is not None:
            self.loop.release(t)

    def submit_text(self, line: str) -> None:
        if self.loop is not None:
            self.loop.submit_text(line)

    def phone_press(self, seat: int) -> None:
        if self.loop is not None:
            self.loop.phone_press(seat)

    def phone_utterance(self, seat: int, pcm: bytes) -> None:
        if self.loop is not None:
            self.loop.phone_utterance(seat, pcm)

    def asking_seat(self) -> int | None:
        seat: int | None = None if self.loop is None else self.loop.asking_seat()
        return seat

    def seat_answer(self, seat: int, yes: bool) -> None:
        if self.loop is not None:
            self.loop.seat_answer(seat, yes)
