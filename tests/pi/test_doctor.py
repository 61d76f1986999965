"""facilitator doctor, on small fake machines (made-up device lists), and its real run here."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from support import run_cli

from facilitator.doctor import Check, Doctor, bar, dbfs, report, show
from facilitator.errors import DeviceError, ModelError

USB_MIC = {"index": 1, "name": "USB PnP Sound Device: Audio (hw:1,0)", "inputs": 1, "outputs": 0,
           "default_rate": 44100, "default_input": True, "default_output": False}
HEADPHONES = {"index": 0, "name": "bcm2835 Headphones: - (hw:0,0)", "inputs": 0, "outputs": 2,
              "default_rate": 48000, "default_input": False, "default_output": True}


class FakeMachine:
    """A machine with the devices, levels and programs it is given."""

    def __init__(self, devices: list[dict[str, Any]] | Exception, *, rates: tuple[int, ...] = (16000, 44100, 48000),
                 levels: list[float] | None = None, espeak: bool = True, recognizer: Exception | None = None,
                 memory: tuple[int, int] = (3200, 3800), writable: bool = True, free_mb: int = 20000) -> None:
        self._devices = devices
        self.rates = list(rates)
        self._levels = levels if levels is not None else [-50, -30, -20, -25, -45, -60]
        self.espeak = espeak
        self._recognizer = recognizer
        self.memory = memory
        self.writable = writable
        self.free = free_mb
        self.played: list[tuple[int, str]] = []
        self.listened: list[tuple[int, float]] = []

    def devices(self) -> list[dict[str, Any]]:
        if isinstance(self._devices, Exception):
            raise self._devices
        return self._devices

    def input_rates(self, index: int) -> list[int]:
        return self.rates

    def levels(self, index: int, seconds: float) -> list[float]:
        self.listened.append((index, seconds))
        return self._levels

    def play(self, index: int, text: str) -> float:
        self.played.append((index, text))
        return 2.5

    def which(self, program: str) -> str | None:
        return f"/usr/bin/{program}" if self.espeak else None

    def recognizer(self, vosk_model: Path | None) -> str:
        if self._recognizer is not None:
            raise self._recognizer
        return "pocketsphinx loaded and decoded a test clip"

    def memory_mb(self) -> tuple[int, int]:
        return self.memory

    def try_write(self, directory: Path) -> None:
        if not self.writable:
            raise PermissionError(13, "Permission denied")

    def free_disk_mb(self, directory: Path) -> int:
        return self.free

    audio = (True, True)       # (the system has an audio group, the user is in it)
    address: str | None = "192.168.1.20"

    root = False

    def is_root(self) -> bool:
        return self.root

    def audio_group(self) -> tuple[bool, bool]:
        return self.audio

    def lan_address(self) -> str | None:
        return self.address


def run(machine: FakeMachine, **kw: Any) -> tuple[list[Check], str, int]:
    out = io.StringIO()
    doctor = Doctor(machine, settings_path=Path("cfg/config.toml"), data_directory=Path("data"),
                    test_phrase="This is the speaker test.", level_seconds=1.5, **kw)
    checks = doctor.checks(progress=lambda c: show(c, out))
    status = report(checks, out)
    return checks, out.getvalue(), status


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


def test_a_ready_pi_with_a_usb_microphone_and_headphone_jack() -> None:
    machine = FakeMachine([HEADPHONES, USB_MIC])
    checks, text, status = run(machine)
    assert status == 0
    assert [c.name for c in checks] == ["settings", "microphone", "speaker", "audio group", "espeak-ng",
                                        "recognizer", "data directory", "memory", "phones"]
    assert all(c.ok for c in checks)
    assert machine.played == [(0, "This is the speaker test.")]
    assert machine.listened == [(1, 1.5)]
    assert "ok       microphone: 'USB PnP Sound Device: Audio (hw:1,0)' (device 1)" in text
    assert "sample rates it opens at: 16000, 44100, 48000 Hz" in text
    assert "level over 1.5 s: |" + bar([-50, -30, -20, -25, -45, -60]) + "| peak -20 dBFS" in text
    assert "played a test phrase (2.5 s)" in text
    assert "memory: 3200 MiB available of 3800 MiB" in text
    assert text.rstrip().endswith("ready: everything the table needs is here")


def test_no_devices_at_all_names_both_problems_with_their_fixes() -> None:
    checks, text, status = run(FakeMachine([]))
    assert status == 1
    found = by_name(checks)
    assert found["microphone"].ok is False and "no microphone" in found["microphone"].detail
    assert "arecord -l" in (found["microphone"].fix or "")
    assert found["speaker"].ok is False and "aplay -l" in (found["speaker"].fix or "")
    assert "PROBLEM  microphone: no microphone" in text
    assert "fix: plug in a USB microphone" in text
    assert "2 problem(s)" in text


def test_portaudio_missing_says_which_package_to_install() -> None:
    error = DeviceError("no audio system: PortAudio is missing (libportaudio.so.2); install libportaudio2")
    checks, text, _ = run(FakeMachine(error))
    assert by_name(checks)["microphone"].fix == "sudo apt install libportaudio2"
    assert "PortAudio is missing" in text


def test_a_speaker_only_machine_has_no_microphone() -> None:
    checks, _, status = run(FakeMachine([HEADPHONES]))
    found = by_name(checks)
    assert status == 1 and found["microphone"].ok is False and found["speaker"].ok is True


def test_a_muted_microphone_and_a_clipping_one() -> None:
    quiet = by_name(run(FakeMachine([USB_MIC, HEADPHONES], levels=[-90, -85, -88]))[0])["microphone"]
    assert quiet.ok is False and "hears almost nothing" in quiet.detail and "alsamixer" in (quiet.fix or "")
    loud = by_name(run(FakeMachine([USB_MIC, HEADPHONES], levels=[-10, -0.2]))[0])["microphone"]
    assert loud.ok is None and "clips" in loud.detail


def test_a_microphone_that_opens_at_no_rate_is_busy() -> None:
    mic = by_name(run(FakeMachine([USB_MIC, HEADPHONES], rates=()))[0])["microphone"]
    assert mic.ok is False and "fuser" in (mic.fix or "")


def test_a_device_named_in_the_settings_that_is_not_there() -> None:
    found = by_name(run(FakeMachine([USB_MIC, HEADPHONES]), input_device="Blue Yeti")[0])
    assert found["microphone"].ok is False
    assert "'Blue Yeti' matches none of: 1: USB PnP" in found["microphone"].detail
    chosen = by_name(run(FakeMachine([USB_MIC, HEADPHONES]), input_device="usb pnp")[0])
    assert chosen["microphone"].ok is True


def test_missing_espeak_broken_model_full_disk_low_memory_and_a_bad_settings_file() -> None:
    machine = FakeMachine([USB_MIC, HEADPHONES], espeak=False, recognizer=ModelError("model 'x' has no am/"),
                          memory=(90, 900), writable=False)
    checks, text, status = run(machine, vosk_model=Path("x"),
                               settings_problem="settings cfg/config.toml, line 3: speech.speed: unknown key")
    found = by_name(checks)
    assert status == 1
    assert found["espeak-ng"].fix == "sudo apt install espeak-ng"
    assert "models install vosk-small-en" in (found["recognizer"].fix or "")
    assert found["data directory"].ok is False and "not writable" in found["data directory"].detail
    assert found["memory"].ok is False and "dphys-swapfile" in (found["memory"].fix or "")
    assert found["settings"].ok is False and "line 3" in found["settings"].detail
    assert "5 problem(s)" in text


def test_quiet_mode_neither_plays_nor_listens() -> None:
    machine = FakeMachine([USB_MIC, HEADPHONES])
    run(machine, listen=False, speak=False)
    assert machine.played == [] and machine.listened == []


def test_levels_and_meter() -> None:
    assert dbfs(b"") == -120.0
    assert dbfs(b"\x00\x00" * 100) == -120.0
    full = (32767).to_bytes(2, "little", signed=True) * 100
    assert -0.01 < dbfs(full) <= 0
    assert bar([-120, -35, 0]) == " ▄█"


def test_the_real_run_here_explains_the_missing_microphone(tmp_path: Path) -> None:
    """This machine has no sound card: a clear explanation and the fixing command, no traceback."""
    done = run_cli(["doctor", "--quiet", "--data-dir", str(tmp_path / "data")], timeout=120)
    assert "Traceback" not in done.stderr + done.stdout
    assert done.returncode == 1
    assert "PROBLEM  microphone: no microphone" in done.stdout or "PortAudio is missing" in done.stdout
    assert "fix: " in done.stdout
    assert "ok       data directory:" in done.stdout


GOLDEN = Path(__file__).parent / "golden"


def test_golden_output_of_a_ready_pi_and_of_a_machine_without_devices() -> None:
    """The whole report, as a person reads it (tests/pi/golden/doctor_*.txt)."""
    ready = run(FakeMachine([HEADPHONES, USB_MIC]))[1]
    bare = run(FakeMachine([]))[1]
    assert ready == (GOLDEN / "doctor_ready.txt").read_text(encoding="utf-8")
    assert bare == (GOLDEN / "doctor_no_devices.txt").read_text(encoding="utf-8")


def test_the_doctor_warns_when_the_user_is_not_in_the_audio_group() -> None:
    machine = FakeMachine([USB_MIC, HEADPHONES])
    machine.audio = (True, False)
    checks, _text, status = run(machine)
    found = next(c for c in checks if c.name == "audio group")
    assert found.ok is None and "usermod -aG audio" in (found.fix or "")
    assert status == 0                       # a warning: the table may still work in a login session
    machine.audio = (False, False)
    assert next(c for c in run(machine)[0] if c.name == "audio group").ok is True


def test_the_doctor_reports_the_address_phones_should_use() -> None:
    from facilitator.settings import Screens

    machine = FakeMachine([USB_MIC, HEADPHONES])
    _checks, text, _ = run(machine, screens=Screens(lan=True, port=8769))
    assert "https://192.168.1.20:8769/" in text      # the LAN is served over https
    named = run(machine, screens=Screens(lan=True, host="10.1.2.3"))[1]
    assert "https://10.1.2.3:8000/" in named
    machine.address = None
    lost = next(c for c in run(machine, screens=Screens(lan=True))[0] if c.name == "phones")
    assert lost.ok is None and "screens.host" in (lost.fix or "")


class _Refusing(FakeMachine):
    """A machine whose data directory cannot be written, for the reason given."""

    def __init__(self, error: OSError, root: bool = False) -> None:
        super().__init__([USB_MIC, HEADPHONES])
        self.error, self.root = error, root

    def try_write(self, directory: Path) -> None:
        raise self.error


def _data_fix(machine: FakeMachine, directory: Path) -> str:
    doctor = Doctor(machine, settings_path=Path("cfg/config.toml"), data_directory=directory, listen=False,
                    speak=False)
    found = doctor.data()
    assert found.ok is False and found.fix is not None
    return found.fix


def test_a_data_directory_not_writable_gets_the_fix_that_helps(tmp_path: Path) -> None:
    """``chown -R $USER`` cannot help a read-only disk, root, or a folder that is already
    the user's (and without sudo it changes no one else's): each reason its own fix."""
    import errno

    mine = tmp_path / "mine"
    mine.mkdir()
    denied = PermissionError(errno.EACCES, "Permission denied")
    assert _data_fix(_Refusing(denied), mine).startswith(f"chmod u+w {mine} (it is yours")
    assert _data_fix(_Refusing(denied), mine / "data").startswith(f"chmod u+w {mine} (it is yours")
    read_only = OSError(errno.EROFS, "Read-only file system")
    fix = _data_fix(_Refusing(read_only), mine / "data")
    assert "mounted read-only, which no chown or chmod changes" in fix and "sudo mount -o remount,rw /" in fix
    fix = _data_fix(_Refusing(denied, root=True), mine)
    assert "chown" not in fix and "lsattr -d" in fix
    for fix in (_data_fix(_Refusing(e), mine) for e in (denied, read_only)):
        assert "set data.directory in the settings file (or --data-dir)" in fix
    if os.geteuid() == 0:   # a folder of another user: only sudo can give it over
        theirs = tmp_path / "theirs"
        theirs.mkdir()
        os.chown(theirs, 4321, 4321)
        assert _data_fix(_Refusing(denied), theirs).startswith(f"sudo chown -R $USER {theirs} (it belongs to")
        assert _data_fix(_Refusing(denied), theirs / "data").startswith(
            f"sudo mkdir -p {theirs / 'data'} && sudo chown $USER {theirs / 'data'}")


def test_root_is_not_asked_to_join_the_audio_group() -> None:
    machine = FakeMachine([])
    machine.audio, machine.root = (True, False), True
    checks, text, _ = run(machine)
    group = next(c for c in checks if c.name == "audio group")
    assert group.ok is True and "running as root" in group.detail
    assert "usermod" not in text and "not in the audio group" not in text
