"""The lock files agree with pyproject.toml, and setup installs from them.

A fresh machine must install the versions the suite was run with: .ci/setup installs
requirements/lock-<machine>.txt (every package pinned, with hashes), which
``bash requirements/refresh`` makes from pyproject.toml.  A dependency added to
pyproject.toml without a refresh, or a lock edited by hand, fails here.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from support import deadline

ROOT = Path(__file__).resolve().parents[2]
LOCKS = {machine: ROOT / "requirements" / f"lock-{machine}.txt" for machine in ("x86_64", "aarch64")}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")
#: what the README's two commands install: the project and its `test` extra
LOCKED_EXTRA = "test"


def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def requirements_locked() -> list[Requirement]:
    """The project's dependencies, its test extra and its build backend."""
    project = pyproject()["project"]
    lines = project["dependencies"] + project["optional-dependencies"][LOCKED_EXTRA]
    build = (ROOT / "requirements" / "build.in").read_text().splitlines()
    lines += [line for line in build if line.strip() and not line.startswith("#")]
    return [Requirement(line) for line in lines]


def read_lock(path: Path) -> dict[str, tuple[str, int]]:
    """name -> (pinned version, number of hashes) for each package of a lock file."""
    pins: dict[str, tuple[str, int]] = {}
    name = ""
    for line in path.read_text().splitlines():
        match = PIN.match(line)
        if match:
            name = canonicalize_name(match.group(1))
            assert name not in pins, f"{path.name} pins {name} twice"
            pins[name] = (match.group(2), 0)
        elif line.strip().startswith("--hash=sha256:") and name:
            version, hashes = pins[name]
            pins[name] = (version, hashes + 1)
    return pins


@pytest.mark.parametrize("machine", sorted(LOCKS))
def test_every_requirement_of_pyproject_is_pinned_within_its_range(machine: str) -> None:
    pins = read_lock(LOCKS[machine])
    for req in requirements_locked():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req} is in pyproject.toml but not in {LOCKS[machine].name}: " \
            "run bash requirements/refresh"
        version = pins[name][0]
        assert req.specifier.contains(version, prereleases=True), \
            f"{LOCKS[machine].name} pins {name}=={version}, outside pyproject.toml's {req}"


@pytest.mark.parametrize("machine", sorted(LOCKS))
def test_every_pin_carries_hashes(machine: str) -> None:
    pins = read_lock(LOCKS[machine])
    assert len(pins) > len(requirements_locked())   # the dependencies' dependencies too
    unhashed = [name for name, (_, hashes) in pins.items() if hashes == 0]
    assert unhashed == [], f"{LOCKS[machine].name} pins without a hash: {unhashed}"


def test_both_machines_pin_the_same_versions() -> None:
    """A Pi runs what a laptop runs (the aarch64 lock only adds the rule: wheels only)."""
    assert read_lock(LOCKS["x86_64"]).keys() == read_lock(LOCKS["aarch64"]).keys()
    x86 = {name: version for name, (version, _) in read_lock(LOCKS["x86_64"]).items()}
    arm = {name: version for name, (version, _) in read_lock(LOCKS["aarch64"]).items()}
    assert x86 == arm


def test_the_optional_engines_and_speakers_are_inside_the_locked_extra() -> None:
    """Everything .ci/setup installs is locked: the whisper, vosk and speakers extras are
    parts of the test extra (bench, for the session benchmark's Piper voice, is not locked)."""
    extras = pyproject()["project"]["optional-dependencies"]
    test = {canonicalize_name(Requirement(line).name): str(Requirement(line).specifier)
            for line in extras[LOCKED_EXTRA]}
    for extra in ("whisper", "vosk", "speakers"):
        for line in extras[extra]:
            req = Requirement(line)
            assert test.get(canonicalize_name(req.name)) == str(req.specifier), \
                f"the {extra} extra's {req} is not in the test extra as it is"


def in_the_setup_venv() -> bool:
    return Path(sys.prefix).resolve() == (ROOT / ".venv").resolve()


@pytest.mark.skipif(not in_the_setup_venv(), reason="checks the .venv that .ci/setup made")
def test_the_environment_running_the_suite_is_the_lock() -> None:
    lock = LOCKS.get(platform.machine())
    if lock is None:
        pytest.skip(f"no lock for {platform.machine()}: setup installed from pyproject.toml")
    differ = {}
    for name, (version, _) in read_lock(lock).items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "missing"
        if installed != version:
            differ[name] = f"{installed}, locked {version}"
    assert differ == {}, f"installed packages differ from {lock.name}: {differ}"


def test_setup_stops_at_once_on_32_bit_arm(tmp_path: Path) -> None:
    """On 32-bit Raspberry Pi OS setup says in one line that a 64-bit OS is needed and
    installs nothing (no apt-get, no virtual environment)."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "uname").write_text("#!/bin/sh\necho armv7l\n")
    for tool in ("apt-get", "sudo", "python3"):
        (fake / tool).write_text(f"#!/bin/sh\necho {tool} >> {tmp_path / 'called'}\nexit 1\n")
    for tool in fake.iterdir():
        tool.chmod(0o755)
    # a copy of the project's setup, so that no .venv appears in the real tree
    (tmp_path / "proj" / ".ci").mkdir(parents=True)
    (tmp_path / "proj" / ".ci" / "setup").write_text((ROOT / ".ci" / "setup").read_text())
    env = {"PATH": f"{fake}:{os.environ['PATH']}", "HOME": str(tmp_path)}
    proc = subprocess.run(["bash", "-c", "source proj/.ci/setup; echo went-on"], check=False,
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=deadline(30))
    assert proc.returncode == 1
    assert "went-on" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "64-bit" in lines[0] and "armv7l" in lines[0], proc.stderr
    assert not (tmp_path / "called").exists()
    assert not (tmp_path / "proj" / ".venv").exists()
