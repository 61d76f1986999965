"""The systemd user unit: its content, and installing it with and without systemd."""

from __future__ import annotations

import configparser
import subprocess
from collections.abc import Sequence
from pathlib import Path

from support import run_cli

from facilitator import systemd_unit


def parse_unit(text: str) -> configparser.ConfigParser:
    unit = configparser.ConfigParser(strict=True, interpolation=None, comment_prefixes=("#",))
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read_string(text)
    return unit


def test_the_unit_runs_serve_from_this_installation_and_restarts_on_failure() -> None:
    unit = parse_unit(systemd_unit.unit_text(["/home/pi/facilitator/.venv/bin/facilitator"]))
    assert unit["Service"]["ExecStart"] == "/home/pi/facilitator/.venv/bin/facilitator serve --service"
    assert unit["Service"]["Restart"] == "on-failure"
    assert unit["Service"]["RestartSec"] == "10"
    assert unit["Unit"]["StartLimitIntervalSec"] == "0"   # a late microphone is found at the next try
    after = unit["Unit"]["After"].split()     # after the user's sound server, where there is one
    assert after[0] == "sound.target" and {"pipewire.service", "pulseaudio.service"} <= set(after)
    assert unit["Install"]["WantedBy"] == "default.target"   # a user unit: default.target, with linger
    assert unit["Service"]["StandardInput"] == "null"


def test_settings_file_and_data_directory_are_passed_and_quoted() -> None:
    text = systemd_unit.unit_text(["/opt/my venv/bin/facilitator"], config=Path("/home/pi/table config.toml"),
                             data_dir=Path("/srv/facilitator"))
    exec_start = parse_unit(text)["Service"]["ExecStart"]
    assert exec_start == ('"/opt/my venv/bin/facilitator" serve --service '
                          '--config "/home/pi/table config.toml" --data-dir /srv/facilitator')
    assert systemd_unit._quote("50%$x") == '"50%%$$x"'


def test_the_executable_is_the_running_environments_own(tmp_path: Path) -> None:
    command = systemd_unit.executable()
    assert Path(command[0]).is_absolute()
    assert command[0].endswith("facilitator") or command[1:] == ["-m", "facilitator"]


class FakeSystemctl:
    """Records systemctl calls; ``running`` says whether a user manager answers."""

    def __init__(self, running: bool, fail: str | None = None) -> None:
        self.running = running
        self.fail = fail
        self.calls: list[list[str]] = []

    def __call__(self, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
        self.calls.append(list(args))
        if args[2] == "show-environment" and not self.running:
            return subprocess.CompletedProcess(list(args), 1, "", "Failed to connect to bus: No medium found\n")
        if self.fail and self.fail in args:
            return subprocess.CompletedProcess(list(args), 1, "", f"Failed to {self.fail}\n")
        return subprocess.CompletedProcess(list(args), 0, "", "")


def test_install_writes_enables_and_starts_when_systemd_runs(tmp_path: Path) -> None:
    path = tmp_path / "systemd" / "user" / "facilitator.service"
    systemctl = FakeSystemctl(running=True)
    done = systemd_unit.install("[Unit]\n", path, runner=systemctl, which=lambda p: "/usr/bin/systemctl", user="pi")
    assert path.read_text() == "[Unit]\n"
    assert done.enabled
    assert systemctl.calls == [["systemctl", "--user", "show-environment"],
                               ["systemctl", "--user", "daemon-reload"],
                               ["systemctl", "--user", "enable", "--now", "facilitator.service"]]
    assert "sudo loginctl enable-linger pi" in done.notes[-1]


def test_install_without_a_user_manager_writes_the_unit_and_says_what_to_run(tmp_path: Path) -> None:
    path = tmp_path / "facilitator.service"
    done = systemd_unit.install("x", path, runner=FakeSystemctl(running=False), which=lambda p: "/usr/bin/x",
                           user="pi")
    assert path.exists() and not done.enabled
    assert any("systemctl --user enable --now facilitator.service" in n for n in done.notes)
    assert any("No medium found" in n for n in done.notes)
    assert any("loginctl enable-linger pi" in n for n in done.notes)


def test_install_without_systemd_at_all(tmp_path: Path) -> None:
    done = systemd_unit.install("x", tmp_path / "u.service", runner=FakeSystemctl(True), which=lambda p: None)
    assert not done.enabled and "no systemd" in done.notes[-1]


def test_a_failed_enable_is_reported_not_raised(tmp_path: Path) -> None:
    done = systemd_unit.install("x", tmp_path / "u.service", runner=FakeSystemctl(True, fail="enable"),
                           which=lambda p: "/usr/bin/systemctl", user="pi")
    assert not done.enabled and any("failed: Failed to enable" in n for n in done.notes)


def test_install_service_print_and_install_through_the_cli(tmp_path: Path) -> None:
    shown = run_cli(["install-service", "--print"])
    assert shown.returncode == 0
    assert "Restart=on-failure" in shown.stdout and " serve --service" in shown.stdout
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg"), "PATH": "/nonexistent"}
    done = run_cli(["install-service"], env=env)
    assert done.returncode == 0, done.stderr
    unit = tmp_path / "cfg" / "systemd" / "user" / "facilitator.service"
    assert unit.read_text() == shown.stdout
    assert "no systemd" in done.stdout


def test_the_unit_carries_facilitator_config_and_can_run_with_screens(tmp_path: Path) -> None:
    config = tmp_path / "my settings %.toml"
    shown = run_cli(["install-service", "--print", "--screens", "--lan", "--port", "8769"],
                    env={"FACILITATOR_CONFIG": str(config)})
    assert shown.returncode == 0, shown.stderr
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.read_string(shown.stdout)
    assert unit["Service"]["ExecStart"].endswith(" serve --service --screens --lan --port 8769")
    assert f'Environment="FACILITATOR_CONFIG={str(config).replace("%", "%%")}"' in shown.stdout
    plain = run_cli(["install-service", "--print"], env={"FACILITATOR_CONFIG": ""})
    assert "FACILITATOR_CONFIG" not in plain.stdout


def test_settings_that_would_make_the_service_exit_at_every_start_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[listening]\ngate = "push-to-talk"\npush_to_talk = "key"\n', encoding="utf-8")
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg"), "PATH": "/nonexistent"}
    refused = run_cli(["install-service", "--config", str(config)], env=env)
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "needs a terminal" in refused.stderr and "gpio:PIN" in refused.stderr
    assert not (tmp_path / "cfg" / "systemd" / "user" / "facilitator.service").exists()
    # settings check: a note while no service is installed, refused once one is
    noted = run_cli(["settings", "check", "--config", str(config)], env=env)
    assert noted.returncode == 0 and "needs a terminal" in noted.stderr
    fine = tmp_path / "fine.toml"
    fine.write_text('[listening]\ngate = "wake-phrase"\n', encoding="utf-8")
    assert run_cli(["install-service", "--config", str(fine)], env=env).returncode == 0
    checked = run_cli(["settings", "check", "--config", str(config)], env=env)
    assert checked.returncode == 2 and "needs a terminal" in checked.stderr
