"""``facilitator play GAME`` without ``--text``: the listen loop on real devices.

Input is the microphone (``--input-device`` by name or index) or a recording
(``--audio-in FILE.wav``, fed through the same endpointer and recognizer).
Output is the speaker (``--output-device``) or WAV files (``--speech-out DIR``).
Every spoken sentence is also printed (captions).

When the microphone or the speaker cannot be used, one line on stderr says why
and play continues in text mode on stdin: the game is never lost for want of a
device.  With ``--audio-in`` and no speaker, the file is still heard and the
announcements are printed only.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ...errors import DeviceError, OptionsError, SpeechError
from ...session import Reply, Session
from ..base import VoiceSettings
from ..voices.direction import Geometry, find_geometry
from .listen import ListenLoop, LoopSettings, StreamCaptions


def add_arguments(play: argparse.ArgumentParser) -> None:
    """The voice flags of ``facilitator play``."""
    v = play.add_argument_group("voice play (without --text)")
    v.add_argument("--audio-in", type=Path, metavar="FILE.wav",
                   help="hear a recording instead of the microphone")
    v.add_argument("--input-device", metavar="NAME|INDEX", help="microphone by name or index")
    v.add_argument("--input-channel", type=int, metavar="N",
                   help="keep channel N (from 0) of a multi-channel microphone (a microphone array's)")
    v.add_argument("--array", metavar="GEOMETRY",
                   help="the microphone (or --audio-in's recording) is a microphone array: respeaker-4mic-hat, "
                        "respeaker-usb-v2, ps3-eye or positions in mm \"x,y; x,y; ...\"; each voice's "
                        "bearing names its seat, live or recorded (this turns voice turns on: not with "
                        "--voices off; docs/voice-loop.md)")
    v.add_argument("--ptt-input", metavar="NAME|INDEX",
                   help="a second microphone (a headset, a handheld) heard only while push-to-talk is held")
    v.add_argument("--output-device", metavar="NAME|INDEX", help="speaker by name or index")
    v.add_argument("--speech-out", type=Path, metavar="DIR",
                   help="write the assistant's speech as WAV files in DIR instead of playing it")
    v.add_argument("--vosk-model", type=Path, metavar="DIR", help="recognize with this Vosk model")
    v.add_argument("--second-engine", choices=("auto", "off", "always"), metavar="MODE",
                   help="Whisper beside pocketsphinx: auto (always when installed), off or always "
                        "(see docs/speech.md)")
    v.add_argument("--second-model", choices=("tiny", "base"), metavar="MODEL",
                   help="the second engine's Whisper: tiny (default) or base (the whisper-base extra)")
    v.add_argument("--voices", choices=("auto", "on", "off"), metavar="MODE",
                   help="learn each seat's voice so a role's command is taken only from that seat: "
                        "auto (on with the speakers extra or a microphone array, off in the light mode "
                        "and for a recording without --array), on or off (see docs/speakers.md)")
    v.add_argument("--wake-phrase", action="store_true",
                   help="listen for a command only after the wake phrase (grammars/common.toml, "
                        "[lists.wake])")
    v.add_argument("--push-to-talk", nargs="?", const="key", metavar="key|gpio:PIN|evdev:DEV",
                   help="listen only after a key press (Enter), a GPIO button or an input-device key")
    v.add_argument("--rate", type=int, metavar="WPM", help="speech rate in words per minute (default 165)")
    v.add_argument("--volume", type=float, metavar="0-1", help="speech volume from 0.1 to 1 (default 0.5)")
    v.add_argument("--voice", metavar="NAME", help="an espeak-ng voice (espeak-ng --voices)")


def voice_settings(args: argparse.Namespace) -> VoiceSettings:
    voice = VoiceSettings()
    if args.rate is not None:
        if not 80 <= args.rate <= 400:
            raise OptionsError(f"--rate {args.rate} is out of range: 80 to 400 words per minute")
        voice.rate_wpm = args.rate
    if args.volume is not None:
        if not 0.1 <= args.volume <= 1.0:
            raise OptionsError(f"--volume {args.volume} is out of range: 0.1 to 1")
        voice.volume = args.volume
    if getattr(args, "voice", None):
        voice.voice = args.voice
    if args.push_to_talk:
        from ..audio.push_to_talk import check_available

        check_available(args.push_to_talk)
    if getattr(args, "ptt_input", None) and not args.push_to_talk:
        raise OptionsError("--ptt-input needs --push-to-talk: the second microphone is heard only while "
                           "its button is held")
    channel = getattr(args, "input_channel", None)
    if channel is not None and channel < 0:
        raise OptionsError(f"--input-channel {channel}: channels are numbered from 0")
    array_geometry(args)
    return voice


def array_geometry(args: argparse.Namespace) -> Geometry | None:
    """The microphone array ``--array`` (or ``devices.array``) names; None without one.  An
    array names each seat by where it speaks, which is voice turns: with ``--voices off``
    it is refused in one line."""
    text = getattr(args, "array", None)
    if not text:
        return None
    try:
        geometry = find_geometry(text)
    except ValueError as exc:
        raise OptionsError(f"--array: {exc}") from None
    if getattr(args, "voices", None) == "off":
        raise OptionsError(f"--array {text}: the array names each seat by where it speaks, which needs "
                           "voice turns; --voices off (or listening.voices = \"off\") turns them off: "
                           "leave out one of the two")
    return geometry


def run(session: Session, opening: Reply, args: argparse.Namespace,
        out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Play ``session`` by voice; fall back to text play when a device is missing.

    With ``--screens`` every seat's phone is a microphone too (its talk button), so a
    table without a microphone of its own, or without a speaker, still plays by voice:
    the phones hear, and the screens and captions show what would have been said."""
    out = out or sys.stdout
    err = err or sys.stderr

    def note(message: str) -> None:
        print(f"facilitator: {message}", file=err, flush=True)

    voice = voice_settings(args)
    loop_settings = LoopSettings(wake_phrase=bool(args.wake_phrase), push_to_talk=bool(args.push_to_talk))
    phones = getattr(session, "attach_loop", None) is not None   # --screens: the seats' phones hear too
    mic = args.audio_in is None
    recording = getattr(args, "recording", None) or (None if mic else _source(args))  # unreadable: exit 2
    table_mic = mic
    try:
        if mic:
            from ..audio.devices import find_device

            try:
                find_device(args.input_device, "input")   # no microphone: say so before loading more
            except DeviceError as exc:
                if not phones:
                    raise
                note(f"{exc}; the seats' phones are the microphones (their talk buttons)")
                table_mic = False
        try:
            speaker = _speaker(args, voice, err)
        except DeviceError as exc:
            if not phones:
                raise
            note(f"{exc}; announcements are shown on the screens and printed only")
            speaker = PrintedOnly(voice)
    except (DeviceError, SpeechError) as exc:
        return _text_fallback(session, opening, str(exc), out, err)

    from ..audio.endpoint import Endpointer
    from ..engines.recognize import make_recognizer

    recognizer = make_recognizer(vosk_model=args.vosk_model, second_engine=args.second_engine,
                                 second_model=getattr(args, "second_model", None), warn=note)
    try:
        source = recording or (_source(args) if table_mic else _silence())   # capturing from here: time 0
    except DeviceError as exc:
        _close_speaker(speaker)
        return _text_fallback(session, opening, str(exc), out, err)
    loop = ListenLoop(session, recognizer, speaker, voice, StreamCaptions(out), loop_settings,
                      wall_clock=time.monotonic if mic else None, warn=note)
    from ..voices.voice_turns import VoiceTurns

    turns = VoiceTurns.attach(loop, voices_mode(args, live=table_mic), second_engine=engine_mode(args),
                              warn=note, array=array_geometry(args))
    attach = getattr(session, "attach_loop", None)
    if attach is not None:   # --screens: clicks and the phones' utterances go through this loop
        attach(loop)
    stop_ptt: Callable[[], None] = _nothing
    held = None
    try:
        if args.push_to_talk:
            from ..audio import push_to_talk

            if getattr(args, "ptt_input", None):
                from ..audio.held import HeldMicrophone

                held = HeldMicrophone(loop, args.ptt_input)   # the button gates the second microphone
            stop_ptt = push_to_talk.start(args.push_to_talk, held or loop)
        elif mic and not table_mic:   # only the phones hear: typed lines too, and their end ends play
            from ..audio.push_to_talk import read_lines

            read_lines(sys.stdin, loop, tap_on_empty=False, on_end=loop.end_input)
        elif mic and sys.stdin.isatty():
            from ..audio.push_to_talk import read_lines

            read_lines(sys.stdin, loop, tap_on_empty=False)   # typed lines still work
        loop.announce(opening.public)
        if turns is not None:
            turns.begin()      # each seat asked by name to say its line
        loop.run_audio(source, Endpointer(complete=loop.complete))
    except DeviceError as exc:
        note(str(exc))
        return 2
    finally:
        stop_ptt()
        if held is not None:
            held.close()
        source.close()
        session.log.close()
        _close_speaker(speaker)
    return 0


def _silence() -> Any:
    from ..audio.devices import SilentSource

    return SilentSource()


def voices_mode(args: argparse.Namespace, *, live: bool) -> str:
    """``--voices`` as play runs it: ``auto`` asks the seats at a live table (a microphone),
    and at a microphone array (``--array``, ``devices.array``) live or recorded alike: a
    table recorded at an array holds its enrollment lines, and its directions are what
    the array is for.  A recording without an array has nobody to ask (``on`` is
    needed there)."""
    mode = getattr(args, "voices", None) or "auto"
    return "off" if mode == "auto" and not live and not getattr(args, "array", None) else str(mode)


def engine_mode(args: argparse.Namespace) -> str:
    """The second engine's mode as play runs it (``auto`` is off without the whisper extra)."""
    mode = args.second_engine or "auto"
    if mode == "auto":
        import importlib.util

        return "always" if importlib.util.find_spec("faster_whisper") is not None else "off"
    return str(mode)


def _close_speaker(speaker: Any) -> None:
    synthesizer = getattr(speaker, "synthesizer", None)
    if synthesizer is not None:
        synthesizer.close()


def _nothing() -> None:
    return None


def _speaker(args: argparse.Namespace, voice: VoiceSettings, err: IO[str]) -> Any:
    from ..voice_out import tts

    try:
        if args.speech_out is not None:
            return tts.FileSpeaker(args.speech_out, voice)
        return tts.SoundSpeaker(voice, device=args.output_device)
    except (DeviceError, SpeechError) as exc:
        if args.audio_in is None:
            raise
        print(f"facilitator: {exc}; announcements are printed only", file=err)
        return PrintedOnly(voice)


def open_recording(args: argparse.Namespace) -> Any:
    """``--audio-in`` read before the game starts (so that a missing or unreadable file is
    refused before anything is written), or None for the microphone."""
    if args.audio_in is None:
        return None
    return _source(args)


def _source(args: argparse.Namespace) -> Any:
    from ..audio.devices import MicSource, WavSource

    array = array_geometry(args)
    if args.audio_in is not None:
        return WavSource(args.audio_in, channel=getattr(args, "input_channel", None), array=array)
    return MicSource(device=args.input_device, channel=getattr(args, "input_channel", None), array=array)


def _text_fallback(session: Session, opening: Reply, reason: str, out: IO[str], err: IO[str]) -> int:
    from ... import textplay

    print(f"facilitator: {reason}; continuing in text mode: type each command on a line", file=err)
    err.flush()
    try:
        textplay.show(opening, out)
        return textplay.run(session, out=out)
    finally:
        session.log.close()


class PrintedOnly:
    """A speaker for when there is none: the caption is the announcement.

    ``speak`` returns how long the sentence would take at the current rate, so the
    loop's timing (deaf window, confirmation timeout) is what a table would get.
    """

    def __init__(self, voice: VoiceSettings) -> None:
        self.voice = voice

    def speak(self, text: str) -> float:
        return len(text.split()) * 60.0 / max(self.voice.rate_wpm, 1)

    def earcon(self, name: str) -> None:
        return None
