"""``facilitator install-service``: a systemd user unit that runs the lobby at every boot.

The unit starts ``facilitator serve`` from this installation (the virtual
environment's own ``facilitator``), restarts it on failure, and is enabled with
``systemctl --user enable --now`` when a systemd user manager is running.  A user
unit starts at boot, before anyone logs in, only with lingering on:
``sudo loginctl enable-linger USER``.  Game logs are in the data directory and
fsynced once per command, so a restart or a power cut offers the game again.
"""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

UNIT_NAME = "facilitator.service"

Runner = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


@dataclass(frozen=True)
class Installed:
    """What ``install`` did: the unit's path and what to tell the person."""

    path: Path
    enabled: bool
    notes: tuple[str, ...]


def executable() -> list[str]:
    """How to run this installation's ``facilitator``: the script beside the running
    Python (a virtual environment's bin/), else the one on PATH, else ``python -m``."""
    beside = Path(sys.executable).parent / "facilitator"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("facilitator")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "facilitator"]


def _quote(arg: str) -> str:
    """An ExecStart word: double-quoted when it holds spaces, quotes, backslashes or ``$``/``%``."""
    if arg and not any(c in arg for c in ' \t"\'\\$%;'):
        return arg
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("$", "$$").replace("%", "%%")
    return f'"{escaped}"'


def start_problem(settings: Any) -> str | None:
    """Why ``serve --service`` with these settings would exit 2 at every start (systemd
    would then restart it every 10 s forever), or None."""
    listening = settings.listening
    if listening.gate == "push-to-talk":
        from .errors import OptionsError
        from .speech.audio.push_to_talk import check_available

        if listening.push_to_talk == "key":
            return ("push-to-talk on 'key' needs a terminal, and a service has none: set "
                    "listening.push_to_talk = \"gpio:PIN\" or \"evdev:DEVICE\", or another listening.gate")
        try:
            check_available(listening.push_to_talk)
        except OptionsError as exc:
            return f"the service could not start: {exc}"
    return None


def _environment_line(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return f'Environment="{name}={escaped}"'


def unit_text(command: Sequence[str], *, config: Path | None = None, data_dir: Path | None = None,
              extra_args: Sequence[str] = (), environment: Mapping[str, str] | None = None) -> str:
    """The unit file: ``command serve`` with the given settings file and data directory;
    ``environment`` (e.g. ``FACILITATOR_CONFIG``) is carried into the service."""
    args = [*command, "serve", "--service"]
    if config is not None:
        args += ["--config", str(config)]
    if data_dir is not None:
        args += ["--data-dir", str(data_dir)]
    args += list(extra_args)
    exec_start = " ".join(_quote(a) for a in args)
    carried = "".join(_environment_line(k, v) + "\n" for k, v in sorted((environment or {}).items()))
    return f"""\
[Unit]
Description=facilitator, the voice referee for party games (lobby on the microphone)
# after the user's sound server, where there is one (PipeWire or PulseAudio)
After=sound.target pipewire.service pipewire-pulse.service wireplumber.service pulseaudio.service
# never give up: a microphone plugged in late is found at the next try
StartLimitIntervalSec=0

[Service]
Type=simple
ExecStart={exec_start}
Restart=on-failure
RestartSec=10
# captions and messages go straight to the journal: journalctl --user -u facilitator
Environment=PYTHONUNBUFFERED=1
{carried}# the lobby listens; without a terminal, stdin is empty
StandardInput=null

[Install]
WantedBy=default.target
"""


def unit_path(home: Path | None = None) -> Path:
    """``~/.config/systemd/user/facilitator.service`` (``$XDG_CONFIG_HOME`` respected)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str((home or Path.home()) / ".config")
    return Path(base) / "systemd" / "user" / UNIT_NAME


def _run(args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, timeout=30, check=False)


def install(text: str, path: Path, *, runner: Runner = _run, which: Callable[[str], str | None] = shutil.which,
            user: str | None = None) -> Installed:
    """Write the unit to ``path`` and enable it when systemd's user manager runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    user = user or getpass.getuser()
    linger = f"to start it at boot, before anyone logs in: sudo loginctl enable-linger {user}"
    notes: list[str] = [f"wrote {path}"]
    if which("systemctl") is None:
        notes.append("systemctl is not here (no systemd); start it by hand: facilitator serve")
        return Installed(path, False, tuple(notes))
    probe = runner(["systemctl", "--user", "show-environment"])
    if probe.returncode != 0:
        reason = (probe.stderr or probe.stdout).strip().splitlines()
        notes.append("systemd's user manager is not running for this user"
                     + (f" ({reason[0]})" if reason else "")
                     + "; after logging in on the Pi, run: systemctl --user daemon-reload && "
                       f"systemctl --user enable --now {UNIT_NAME}")
        notes.append(linger)
        return Installed(path, False, tuple(notes))
    for step in (["systemctl", "--user", "daemon-reload"],
                 ["systemctl", "--user", "enable", "--now", UNIT_NAME]):
        done = runner(step)
        if done.returncode != 0:
            notes.append(f"{' '.join(step)} failed: {(done.stderr or done.stdout).strip()}")
            notes.append(linger)
            return Installed(path, False, tuple(notes))
    notes.append(f"enabled and started; its messages: journalctl --user -u {UNIT_NAME}")
    notes.append(linger)
    return Installed(path, True, tuple(notes))
