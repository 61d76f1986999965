"""``facilitator doctor``: is this machine ready to referee a table?

Each check says in plain words what it found and, for a problem, the command that
fixes it: the settings file, the microphone (a level meter for a few seconds and
the sample rates it takes), the speaker (it plays a test phrase), espeak-ng, the
recognizer and its model, the data directory, and free memory.

The machine is reached through a ``Machine`` (real: ``SystemMachine``); tests pass
small fakes with made-up device lists.  Nothing here raises for a missing device:
every problem becomes a ``Check``.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from .errors import FacilitatorError

RATES_HZ = (8000, 16000, 22050, 32000, 44100, 48000)
LEVEL_SECONDS = 3.0
#: below this the microphone hears nothing useful (muted, or the gain is at zero)
QUIET_DBFS = -60.0
#: above this the microphone clips
LOUD_DBFS = -1.0
#: what an idle listening assistant needs, with room for speech synthesis (see benchmarks)
MIN_FREE_MB = 150
BARS = " ▁▂▃▄▅▆▇█"
#: the channels of a multi-channel input whose levels are listed
MAX_CHANNELS_SHOWN = 8


@dataclass(frozen=True)
class Check:
    """One finding: ``ok`` False is a problem (with its ``fix``), None a warning."""

    name: str
    ok: bool | None
    detail: str
    fix: str | None = None
    lines: tuple[str, ...] = ()


class Machine(Protocol):
    """What the doctor asks of the machine."""

    def devices(self) -> list[dict[str, Any]]:
        """Audio devices as ``speech.audio.list_devices`` gives them; DeviceError when PortAudio fails."""
        ...

    def input_rates(self, index: int) -> list[int]:
        """Which of ``RATES_HZ`` the input device ``index`` opens at, mono 16-bit."""
        ...

    def levels(self, index: int, seconds: float) -> list[float]:
        """Loudness in dBFS of each quarter second heard on input ``index``."""
        ...

    def channel_levels(self, index: int, seconds: float) -> list[float]:
        """Loudness in dBFS of each channel of input ``index`` (opened at its own channel
        count) over ``seconds``."""
        ...

    def array_bearing(self, index: int, seconds: float, array: str) -> tuple[float, float] | None:
        """Where the voice heard at the microphone array ``array`` on input ``index`` comes from
        over ``seconds``: (degrees, clarity), None for silence."""
        ...

    def play(self, index: int, text: str) -> float:
        """Speak ``text`` on output ``index``; return its length in seconds."""
        ...

    def which(self, program: str) -> str | None: ...

    def recognizer(self, vosk_model: Path | None) -> str:
        """Load the recognizer (and model) and decode a moment of silence; describe it."""
        ...

    def memory_mb(self) -> tuple[int, int]:
        """(available, total) memory in MiB."""
        ...

    def try_write(self, directory: Path) -> None:
        """Create ``directory`` if needed and write, fsync and remove a file there."""
        ...

    def free_disk_mb(self, directory: Path) -> int: ...

    def audio_group(self) -> tuple[bool, bool]:
        """(the system has an ``audio`` group, this user is in it)."""
        ...

    def is_root(self) -> bool:
        """Whether the doctor runs as root (who reaches every device and file without groups)."""
        ...

    def lan_address(self) -> str | None:
        """This machine's address on the local network (None: not on one)."""
        ...


ELSEWHERE = "or set data.directory in the settings file (or --data-dir) to a folder you can write"


def _write_fix(directory: Path, exc: OSError, *, root: bool) -> str:
    """What can make ``directory`` writable, by why it is not: ownership changes nothing on a
    read-only file system or for root, and ``chown`` without sudo changes no one's folder."""
    import errno

    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if exc.errno == errno.EROFS:
        mount = existing
        while not os.path.ismount(mount) and mount != mount.parent:
            mount = mount.parent
        return (f"the disk holding {directory} is mounted read-only, which no chown or chmod changes: "
                f"remount it read-write (sudo mount -o remount,rw {mount}), {ELSEWHERE}")
    if exc.errno == errno.ENOSPC:
        return f"free some space on the disk holding {directory}, {ELSEWHERE}"
    if exc.errno not in (errno.EACCES, errno.EPERM) or root:
        # root is refused only by what owners and modes do not decide (an immutable file, a mount)
        return f"check what keeps {directory} from being written (lsattr -d, mount), {ELSEWHERE}"
    try:
        mine = existing.stat().st_uid == os.geteuid()
    except OSError:
        mine = False
    if mine:
        return f"chmod u+w {existing} (it is yours, but not writable), {ELSEWHERE}"
    if existing == directory:
        return f"sudo chown -R $USER {directory} (it belongs to another user), {ELSEWHERE}"
    return (f"sudo mkdir -p {directory} && sudo chown $USER {directory} ({existing} belongs to another user), "
            f"{ELSEWHERE}")


def bar(levels: Sequence[float]) -> str:
    """A level meter: one character a quarter second, from -70 dBFS (blank) to 0 (full)."""
    out = []
    for level in levels:
        scaled = (max(-70.0, min(0.0, level)) + 70.0) / 70.0
        out.append(BARS[round(scaled * (len(BARS) - 1))])
    return "".join(out)


def dbfs(pcm: bytes) -> float:
    """Loudness of 16-bit PCM in dB below full scale (RMS); -120 for digital silence."""
    import numpy as np

    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    if samples.size == 0:
        return -120.0
    rms = float(np.sqrt(np.mean(samples * samples)))
    return 20 * math.log10(rms / 32768.0) if rms > 0 else -120.0


class Doctor:
    def __init__(self, machine: Machine, *, settings_path: Path, data_directory: Path,
                 input_device: str | None = None, output_device: str | None = None,
                 input_channel: int | None = None, ptt_input: str | None = None,
                 array: str | None = None, vosk_model: Path | None = None, settings_problem: str | None = None,
                 level_seconds: float = LEVEL_SECONDS, test_phrase: str = "",
                 listen: bool = True, speak: bool = True, screens: Any = None) -> None:
        """``screens``: the settings' ``[screens]`` (``settings.Screens``), for the
        address phones should use."""
        self.machine = machine
        self.screens = screens
        self.settings_path = settings_path
        self.data_directory = data_directory
        self.input_device = input_device
        self.output_device = output_device
        self.input_channel = input_channel
        self.array = array
        self.ptt_input = ptt_input
        self.vosk_model = vosk_model
        self.settings_problem = settings_problem
        self.level_seconds = level_seconds
        self.test_phrase = test_phrase
        self.listen = listen
        self.speak = speak

    def checks(self, progress: Callable[[Check], None] | None = None) -> list[Check]:
        out: list[Check] = []
        for check in (self.settings, *self.audio(), self.audio_group, self.espeak, self.recognizer, self.data,
                      self.memory, self.phones):
            found = check() if callable(check) else check
            out.append(found)
            if progress is not None:
                progress(found)
        return out

    # -- each check ---------------------------------------------------------------
    def settings(self) -> Check:
        if self.settings_problem:
            return Check("settings", False, self.settings_problem,
                         f"edit {self.settings_path} at that line, or start over: "
                         "facilitator settings init --force")
        if self.settings_path.exists():
            return Check("settings", True, f"{self.settings_path} is valid")
        return Check("settings", True, f"no settings file ({self.settings_path}); defaults are used. "
                                       "To make one: facilitator settings init")

    def audio(self) -> list[Callable[[], Check]]:
        try:
            devices = self.machine.devices()
        except FacilitatorError as exc:
            problem = str(exc)
            fix = ("sudo apt install libportaudio2" if "portaudio" in problem.lower()
                   else "check that the sound system works: aplay -l and arecord -l (sudo apt install alsa-utils)")
            return [lambda: Check("microphone", False, problem, fix),
                    lambda: Check("speaker", False, problem, fix)]
        found: list[Callable[[], Check]] = [lambda: self.microphone(devices), lambda: self.speaker(devices)]
        if self.ptt_input:
            found.insert(1, lambda: self.microphone(devices, "push-to-talk microphone", self.ptt_input, None))
        return found

    def microphone(self, devices: list[dict[str, Any]], role: str = "microphone", wanted: str | None = None,
                   channel: int | None = -1) -> Check:
        """The table's microphone (or, as ``role``, the second one read while push-to-talk is
        held): its sample rates, its channels and each one's level, and a level meter."""
        wanted = self.input_device if role == "microphone" else wanted
        channel = self.input_channel if channel == -1 else channel
        inputs = [d for d in devices if d["inputs"] > 0]
        if not inputs:
            group = "" if self.machine.is_root() else ("; if it is listed but not here, add yourself to the "
                                                      "audio group: sudo usermod -aG audio $USER (then log in again)")
            return Check(role, False, "no microphone: no audio input device is connected or visible",
                         "plug in a USB microphone, then check that it is seen: arecord -l "
                         f"(sudo apt install alsa-utils){group}")
        chosen = _pick(inputs, wanted, "input", "ptt_input" if role != "microphone" else "input")
        if isinstance(chosen, Check):
            return chosen
        name = f"{chosen['name']!r} (device {chosen['index']})"
        rates = self.machine.input_rates(int(chosen["index"]))
        lines = [f"sample rates it opens at: {', '.join(str(r) for r in rates) or 'none'} Hz"]
        count = int(chosen["inputs"])
        lines.append(f"channels: {count}" + ("" if channel is None else f"; the table hears channel {channel}"))
        if channel is not None and channel >= count:
            return Check(role, False, f"{name} has {count} channel(s): there is no channel {channel}",
                         f"set devices.input_channel to 0 to {count - 1}, or remove it", tuple(lines))
        geometry = None
        if self.array and role == "microphone":
            from .speech.voices.direction import find_geometry

            geometry = find_geometry(self.array)   # the settings file checked it
            mics = ", ".join(str(c) for c in geometry.channels)
            heard = channel if channel is not None else geometry.voice_channel
            lines.append(f"microphone array: {geometry.name}, its microphones on channels {mics}; "
                         f"the recognizer hears channel {heard}")
            if count < geometry.input_channels:
                return Check(role, False, f"{name} has {count} channel(s); the {geometry.name} array needs "
                                          f"{geometry.input_channels}",
                             "set devices.input to the array (facilitator devices lists them), or "
                             "devices.array to the array it is", tuple(lines))
        if not rates:
            return Check("microphone", False, f"{name} opens at none of the usual sample rates",
                         "it may be busy (another program records): fuser -v /dev/snd/*", tuple(lines))
        if not self.listen:
            return Check("microphone", True, name, None, tuple(lines))
        try:
            if count > 1:
                each = self.machine.channel_levels(int(chosen["index"]), min(1.0, self.level_seconds))
                shown = ", ".join(f"{n}: {level:.0f}" for n, level in enumerate(each[:MAX_CHANNELS_SHOWN]))
                more = f" (and {len(each) - MAX_CHANNELS_SHOWN} more)" if len(each) > MAX_CHANNELS_SHOWN else ""
                lines.append(f"level of each channel over {min(1.0, self.level_seconds):g} s, dBFS: {shown}{more}"
                             + ("" if channel is not None else "; devices.input_channel picks one"))
            if geometry is not None:
                found = self.machine.array_bearing(int(chosen["index"]), min(1.0, self.level_seconds),
                                                   str(self.array))
                lines.append("bearing of what it hears now: " + (
                    "nothing heard" if found is None else f"{found[0]:.0f} degrees (clarity {found[1]:.1f}); "
                    "speak from your seat and run doctor again: each seat shows its own bearing"))
            levels = self.machine.levels(int(chosen["index"]), self.level_seconds)
        except FacilitatorError as exc:
            return Check(role, False, f"{name} cannot record: {exc}",
                         "it may be busy (another program records): fuser -v /dev/snd/*", tuple(lines))
        peak = max(levels, default=-120.0)
        lines.append(f"level over {self.level_seconds:g} s: |{bar(levels)}| peak {peak:.0f} dBFS")
        if peak < QUIET_DBFS:
            return Check(role, False, f"{name} hears almost nothing (peak {peak:.0f} dBFS): "
                                      "muted, or its gain is at zero",
                         "raise the capture level: alsamixer (F4 for capture, M to unmute)", tuple(lines))
        if peak > LOUD_DBFS:
            return Check(role, None, f"{name} clips (peak {peak:.0f} dBFS): speech will distort",
                         "lower the capture level: alsamixer (F4 for capture)", tuple(lines))
        return Check(role, True, name, None, tuple(lines))

    def speaker(self, devices: list[dict[str, Any]]) -> Check:
        outputs = [d for d in devices if d["outputs"] > 0]
        if not outputs:
            return Check("speaker", False, "no speaker: no audio output device is connected or visible",
                         "plug in a USB or 3.5 mm speaker, then check that it is seen: aplay -l "
                         "(sudo apt install alsa-utils)")
        chosen = _pick(outputs, self.output_device, "output")
        if isinstance(chosen, Check):
            return chosen
        name = f"{chosen['name']!r} (device {chosen['index']})"
        if not self.speak:
            return Check("speaker", True, name)
        try:
            seconds = self.machine.play(int(chosen["index"]), self.test_phrase)
        except FacilitatorError as exc:
            return Check("speaker", False, f"{name} cannot play: {exc}",
                         "check the speaker and its volume: speaker-test -c 1 -t wav")
        return Check("speaker", True, f"{name}: played a test phrase ({seconds:.1f} s); "
                                      "if nobody heard it, raise the volume: alsamixer")

    def espeak(self) -> Check:
        path = self.machine.which("espeak-ng")
        if path is None:
            return Check("espeak-ng", False, "espeak-ng is not installed, so nothing can be spoken",
                         "sudo apt install espeak-ng")
        return Check("espeak-ng", True, path)

    def recognizer(self) -> Check:
        try:
            return Check("recognizer", True, self.machine.recognizer(self.vosk_model))
        except FacilitatorError as exc:
            if self.vosk_model is not None:
                fix = "facilitator models install vosk-small-en, or remove listening.vosk_model"
            else:
                fix = f"{sys.executable} -m pip install --force-reinstall pocketsphinx"
            return Check("recognizer", False, str(exc), fix)

    def data(self) -> Check:
        directory = self.data_directory
        try:
            self.machine.try_write(directory)
        except OSError as exc:
            return Check("data directory", False, f"{directory} is not writable: {exc.strerror or exc}",
                         _write_fix(directory, exc, root=self.machine.is_root()))
        free = self.machine.free_disk_mb(directory)
        if free < 50:
            return Check("data directory", False, f"{directory}: only {free} MiB free",
                         "free some space on that disk (game logs are small, but they need room)")
        return Check("data directory", True, f"{directory} is writable ({free} MiB free)")

    def audio_group(self) -> Check:
        """A service started at boot, before anyone logs in, reaches the sound devices
        only through the ``audio`` group (a login session gets them from logind)."""
        if self.machine.is_root():
            return Check("audio group", True, "running as root, which reaches the devices without the audio group")
        exists, member = self.machine.audio_group()
        if not exists:
            return Check("audio group", True, "this system has no audio group; devices are reached as the user")
        if member:
            return Check("audio group", True, "you are in the audio group (the service reaches the devices at boot)")
        return Check("audio group", None, "you are not in the audio group: the service may not reach the "
                                          "microphone or speaker before anyone logs in",
                     "sudo usermod -aG audio $USER (then log in again)")

    def phones(self) -> Check:
        """The address phones open to join (the screens' join links and QR codes)."""
        screens = self.screens
        port = getattr(screens, "port", 8000) or 8000
        lan = bool(getattr(screens, "lan", False))
        host = getattr(screens, "host", None) or self.machine.lan_address()
        if host is None:
            return Check("phones", None if lan else True,
                         "this machine has no network address: phones can join only on this machine",
                         "connect it to the table's Wi-Fi, or set screens.host" if lan else None)
        where = f"https://{host}:{port}/"   # with screens.lan the screens are served over https
        if lan:
            return Check("phones", True, f"phones on this network join at {where} (the QR codes say so)")
        return Check("phones", True, f"screens serve this machine only (screens.lan = false); with "
                                     f"screens.lan = true, phones would join at {where}")

    def memory(self) -> Check:
        available, total = self.machine.memory_mb()
        detail = f"{available} MiB available of {total} MiB"
        if available < MIN_FREE_MB:
            return Check("memory", False, f"{detail}; the assistant needs about {MIN_FREE_MB} MiB",
                         "stop other programs (top, sorted by memory: shift+M), or add swap: "
                         "sudo dphys-swapfile setup && sudo dphys-swapfile swapon")
        return Check("memory", True, detail)


def _pick(devices: list[dict[str, Any]], wanted: str | None, kind: str,
          key: str | None = None) -> dict[str, Any] | Check:
    role = "microphone" if kind == "input" else "speaker"
    if key == "ptt_input":
        role = "push-to-talk microphone"
    known = "; ".join(f"{d['index']}: {d['name']}" for d in devices)
    if wanted:
        text = str(wanted).strip()
        found = [d for d in devices if (text.isdigit() and d["index"] == int(text))
                 or (not text.isdigit() and text.lower() in str(d["name"]).lower())]
        if len(found) != 1:
            how = "matches none" if not found else "matches several"
            return Check(role, False, f"the settings' {key or kind} device {text!r} {how} of: {known}",
                         f"set devices.{key or kind} to one of those names or indexes: facilitator settings path")
        return found[0]
    for d in devices:
        if d.get(f"default_{kind}"):
            return d
    return devices[0]


def report(checks: Sequence[Check], out: IO[str]) -> int:
    """Print the findings; the exit status is 1 when any check found a problem."""
    problems = sum(1 for c in checks if c.ok is False)
    warnings = sum(1 for c in checks if c.ok is None)
    if problems:
        out.write(f"{problems} problem(s){f', {warnings} warning(s)' if warnings else ''}: "
                  "run the fix commands above, then facilitator doctor again\n")
    elif warnings:
        out.write(f"ready, with {warnings} warning(s)\n")
    else:
        out.write("ready: everything the table needs is here\n")
    return 1 if problems else 0


def show(check: Check, out: IO[str]) -> None:
    mark = {True: "ok     ", False: "PROBLEM", None: "warning"}[check.ok]
    out.write(f"{mark}  {check.name}: {check.detail}\n")
    for line in check.lines:
        out.write(f"           {line}\n")
    if check.fix:
        out.write(f"           fix: {check.fix}\n")
    out.flush()


class SystemMachine:
    """The real machine: PortAudio through sounddevice, espeak-ng, pocketsphinx or Vosk, /proc."""

    def __init__(self, voice: Any = None) -> None:
        self.voice = voice

    def devices(self) -> list[dict[str, Any]]:
        from .speech.audio.devices import list_devices

        return list_devices()

    def input_rates(self, index: int) -> list[int]:
        from .speech.audio.devices import _sounddevice

        sd = _sounddevice()
        rates = []
        for rate in RATES_HZ:
            try:
                sd.check_input_settings(device=index, samplerate=rate, channels=1, dtype="int16")
            except Exception:  # noqa: BLE001, S112 - PortAudioError: the device does not take this rate
                continue
            rates.append(rate)
        return rates

    def channel_levels(self, index: int, seconds: float) -> list[float]:
        from .speech.audio.devices import channel_levels

        return channel_levels(str(index), seconds)

    def array_bearing(self, index: int, seconds: float, array: str) -> tuple[float, float] | None:
        from .speech.audio.devices import array_bearing
        from .speech.voices.direction import find_geometry

        return array_bearing(str(index), seconds, find_geometry(array))

    def levels(self, index: int, seconds: float) -> list[float]:
        from .speech.audio.devices import MicSource
        from .speech.base import FRAME_MS

        mic = MicSource(device=str(index))
        out: list[float] = []
        chunk = b""
        per_quarter = round(250 / FRAME_MS)
        try:
            for n, frame in enumerate(mic.frames(), 1):
                chunk += frame.pcm
                if n % per_quarter == 0:
                    out.append(dbfs(chunk))
                    chunk = b""
                if frame.t >= seconds:
                    break
        finally:
            mic.close()
        return out

    def play(self, index: int, text: str) -> float:
        from .speech.base import VoiceSettings
        from .speech.voice_out import tts

        speaker = tts.SoundSpeaker(self.voice or VoiceSettings(), device=str(index))
        try:
            return float(speaker.speak(text))
        finally:
            speaker.synthesizer.close()

    def which(self, program: str) -> str | None:
        return shutil.which(program)

    def recognizer(self, vosk_model: Path | None) -> str:
        from .grammar import load_grammar
        from .speech.engines.grammar_build import recognition_grammar
        from .speech.engines.recognize import make_recognizer

        problems: list[str] = []
        engine = make_recognizer(vosk_model=vosk_model, warn=problems.append)
        if vosk_model is not None and problems:
            raise FacilitatorError("; ".join(problems))
        grammar = recognition_grammar(load_grammar("lobby"))
        engine.decode(b"\x00\x00" * 8000, grammar)   # half a second of silence
        return f"{engine.name} loaded and decoded a test clip under the lobby's grammar"

    def memory_mb(self) -> tuple[int, int]:
        info: dict[str, int] = {}
        try:
            with open("/proc/meminfo", encoding="ascii") as f:
                for line in f:
                    key, _, rest = line.partition(":")
                    info[key] = int(rest.split()[0]) // 1024
        except OSError:
            pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**20
            return pages, pages
        return info.get("MemAvailable", info.get("MemFree", 0)), info.get("MemTotal", 0)

    def try_write(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / ".doctor-write-test"
        with open(probe, "wb") as f:
            f.write(b"ok\n")
            f.flush()
            os.fsync(f.fileno())
        probe.unlink()

    def is_root(self) -> bool:
        return os.geteuid() == 0

    def audio_group(self) -> tuple[bool, bool]:
        import grp

        try:
            group = grp.getgrnam("audio")
        except KeyError:
            return False, False
        import getpass

        return True, group.gr_gid in os.getgroups() or getpass.getuser() in group.gr_mem

    def lan_address(self) -> str | None:
        from .screens.server import lan_address

        return lan_address()

    def free_disk_mb(self, directory: Path) -> int:
        return int(shutil.disk_usage(directory).free // 2**20)
