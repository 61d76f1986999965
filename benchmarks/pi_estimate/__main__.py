"""``python -m benchmarks.pi_estimate``: what each recognition stage would cost on a Raspberry Pi 4 and 5.

Nobody here has a Pi.  So the guest instructions of each stage are counted on aarch64
under qemu-user (the TCG plugin ``stagecount.c``, on QEMU's Cortex-A72 for a Pi 4 and
its Cortex-A76 for a Pi 5), and turned into seconds with the instructions per second a
Pi reaches on the same kind of code: faster-whisper's tiny.en (int8) transcribing a
sentence, counted here and timed on Pis by others (see ``estimate.py`` for the sources,
the derivation and the ranges).  The same stages are counted on x86_64 (valgrind's
callgrind) and timed there in CPU seconds, as a cross-check.

    python -m benchmarks.pi_estimate count --root ROOT [--only aarch64|x86_64] [--cpus cortex-a72,cortex-a76]
                                           [--runs baseline,recognition,calibration,echo]
    python -m benchmarks.pi_estimate report

``--runs`` counts some runs only: the calibration (faster-whisper's own ``transcribe``) and
the echo (espeak-ng) do not depend on the product's code, so a change of the product needs
``--runs baseline,recognition`` alone; ``report`` reads the newest record of each run and
names each record it read (its commit, date and counter) under its tables.

``count`` needs root (chroot, mounts) and an arm64 root made by
``bash benchmarks/pi_estimate/make_root.sh ROOT``; it appends its counts to
``benchmarks/aarch64/pi_estimate.txt`` and ``benchmarks/x86_64/pi_estimate.txt`` (one
JSON object a line, after the comment lines), which ``report`` reads to print the table
(``--write`` also puts it in benchmarks/RESULTS.md, between its markers).  Under
emulation the whole count takes about an hour per CPU model.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Self

from . import estimate, inputs

HERE = Path(__file__).resolve().parent
ROOT = inputs.ROOT
IN_ROOT = "/opt/pi-estimate"          # the counter's folder inside the arm64 root (make_root.sh)
PROJECT_IN_ROOT = "/src/facilitator"
RAW = {"aarch64": ROOT / "benchmarks/aarch64/pi_estimate.txt", "x86_64": ROOT / "benchmarks/x86_64/pi_estimate.txt"}
#: one thread for OpenMP (Whisper's intra_threads is 1 too), and the same string hashes in every run
ENV = {"HOME": "/root", "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
       "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}

#: what a Pi shows in /proc/cpuinfo (qemu-user shows the host's): the Pi 4's BCM2711, the Pi 5's BCM2712
CPUINFO = {
    "cortex-a72": ("fp asimd evtstrm crc32 cpuid", "0x0", "0xd08", "3", "Raspberry Pi 4 Model B"),
    "cortex-a76": (("fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc "
                    "dcpop asimddp"), "0x4", "0xd0b", "1", "Raspberry Pi 5 Model B"),
}


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def _append(machine: str, record: dict[str, object]) -> None:
    path = RAW[machine]
    if not path.exists():
        path.write_text(f"# Counted by python -m benchmarks.pi_estimate count ({machine}); one JSON object a line.\n"
                        "# marks: [label, clip, instructions of the segment the mark closes, of the main thread];\n"
                        "# the estimate (python -m benchmarks.pi_estimate report) reads the newest run of each kind.\n",
                        encoding="utf-8")
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, separators=(",", ":")) + "\n")


def _segments(labels: list[dict[str, object]], totals: list[tuple[int, int]]) -> list[list[object]]:
    """Each mark with the instructions since the mark before it (all threads, and the marking thread)."""
    out, last = [], (0, 0)
    for mark, (total, own) in zip(labels, totals):
        out.append([mark["label"], mark["clip"], total - last[0], own - last[1]])
        last = (total, own)
    return out


class Root:
    """The arm64 root, with /proc, /sys, /dev and a Pi's /proc/cpuinfo mounted while it counts."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.mounted: list[Path] = []
        if not (path / IN_ROOT.lstrip("/") / "qemu-aarch64").exists():
            raise SystemExit(f"{path} has no counting qemu: make it with bash benchmarks/pi_estimate/make_root.sh {path}")

    def inside(self, where: str) -> Path:
        return self.path / where.lstrip("/")

    def __enter__(self) -> Self:
        for fs in ("proc", "sys", "dev"):
            target = self.path / fs
            if subprocess.run(["mountpoint", "-q", str(target)], check=False).returncode != 0:
                subprocess.run(["mount", "--bind", f"/{fs}", str(target)], check=True)
                self.mounted.append(target)
        return self

    def cpuinfo(self, cpu: str) -> None:
        features, variant, part, revision, model = CPUINFO[cpu]
        text = "".join(f"processor\t: {n}\nBogoMIPS\t: 108.00\nFeatures\t: {features}\nCPU implementer\t: 0x41\n"
                       f"CPU architecture: 8\nCPU variant\t: {variant}\nCPU part\t: {part}\nCPU revision\t: {revision}\n\n"
                       for n in range(4)) + f"Model\t\t: {model} (as shown to the emulated root)\n"
        fake = self.inside(f"{IN_ROOT}/cpuinfo-{cpu}")
        fake.write_text(text, encoding="utf-8")
        target = self.path / "proc/cpuinfo"
        subprocess.run(["umount", str(target)], capture_output=True, check=False)
        subprocess.run(["mount", "--bind", str(fake), str(target)], check=True)

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["umount", str(self.path / "proc/cpuinfo")], capture_output=True, check=False)
        for target in reversed(self.mounted):
            subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)

    def count(self, cpu: str, name: str, program: list[str]) -> tuple[list[tuple[int, int]], int, float]:
        """Run ``program`` in the root under the counting qemu: the (total, own) count at each mark,
        the process's total, and the host's wall seconds."""
        log = f"{IN_ROOT}/runs/{name}.log"
        self.inside(f"{IN_ROOT}/runs").mkdir(parents=True, exist_ok=True)
        env = [f"{k}={v}" for k, v in ENV.items()]
        command = ["chroot", str(self.path), "/usr/bin/env", "-i", *env, f"{IN_ROOT}/qemu-aarch64", "-cpu", cpu,
                   "-plugin", f"{IN_ROOT}/libstagecount.so", "-d", "plugin", "-D", log, *program]
        began = time.monotonic()
        done = subprocess.run(command, cwd="/", capture_output=True, text=True, check=False)
        wall = time.monotonic() - began
        if done.returncode != 0:
            raise SystemExit(f"{name} on {cpu} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        marks, total = [], None
        for line in self.inside(log).read_text().splitlines():
            parts = line.split()
            if parts[:1] == ["mark"]:
                marks.append((int(parts[3]), int(parts[4])))
            elif parts[:1] == ["exit"]:
                total = int(parts[1])   # the first exit is the process's own (children are not counted)
                break
        if total is None:
            raise SystemExit(f"{name} on {cpu}: the plugin wrote no total (see {log} in the root)")
        return marks, total, wall


RUNS = ("baseline", "recognition", "calibration", "echo")


def count_aarch64(root_path: Path, cpus: list[str], rounds: int, only: tuple[str, ...] = RUNS) -> None:
    commit = _git("rev-parse", "--short", "HEAD", cwd=root_path / PROJECT_IN_ROOT.lstrip("/"))
    product = _git("rev-parse", "--short", "HEAD:facilitator", cwd=root_path / PROJECT_IN_ROOT.lstrip("/"))
    with Root(root_path) as root:
        qemu = root.inside(f"{IN_ROOT}/qemu-version").read_text().strip()
        work = root.inside(f"{IN_ROOT}/inputs")
        shutil.rmtree(work, ignore_errors=True)
        calibration = inputs.make_calibration(work)
        echo_once, echo_many = inputs.make_echo(work)
        array = inputs.make_array(work)
        shutil.copy(HERE / "workload.py", root.inside(f"{IN_ROOT}/workload.py"))
        python = [f"{PROJECT_IN_ROOT}/.venv/bin/python", f"{IN_ROOT}/workload.py", "--mark", "qemu"]
        clips = [f"{PROJECT_IN_ROOT}/{c}" for c in inputs.CLIPS]
        files = [f"{IN_ROOT}/inputs/{p.name}" for p in calibration]
        for cpu in cpus:
            root.cpuinfo(cpu)
            common = {"machine": "aarch64", "counter": f"qemu-user {qemu}, TCG plugin stagecount.c", "cpu": cpu,
                      "commit": commit, "product_tree": product, "threads": 1}
            at_array = ["--array", f"{IN_ROOT}/inputs/{array.name}", "--geometry", inputs.ARRAY]
            runs = {
                "baseline": ["--what", "baseline"] + at_array + clips[:1],
                "recognition": ["--what", "recognition", "--rounds", str(rounds)] + at_array + clips,
                "calibration": ["--what", "calibration"] + files,
            }
            for name, args in runs.items():
                if name not in only:
                    continue
                out = f"{IN_ROOT}/runs/{name}-{cpu}.json"
                marks, total, wall = root.count(cpu, f"{name}-{cpu}", python + ["--out", out] + args)
                result = json.loads(root.inside(out).read_text())
                labels = result.pop("marks")
                _append("aarch64", {**common, "run": name, "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                                    "rounds": rounds if name == "recognition" else None,
                                    "inputs": [Path(a).name for a in args if a.endswith(".wav")],
                                    "exit": total, "emulated_wall_s": round(wall), "marks": _segments(labels, marks),
                                    "result": result})
                print(f"[pi-estimate] {cpu} {name}: {total:,} instructions ({wall:.0f} s emulated)", file=sys.stderr)
            espeak = {"echo-argument": inputs.ESPEAK_ECHO + ["-w", "/tmp/echo.wav", "--", inputs.ECHO],
                      "echo-file-1": inputs.ESPEAK_ECHO + ["-w", "/tmp/echo.wav", "-f", f"{IN_ROOT}/inputs/{echo_once.name}"],
                      f"echo-file-{inputs.ECHO_REPEATS}": inputs.ESPEAK_ECHO + [
                          "-w", "/tmp/echo.wav", "-f", f"{IN_ROOT}/inputs/{echo_many.name}"]}
            for name, program in espeak.items():
                if "echo" not in only:
                    continue
                program = ["/usr/bin/espeak-ng", *program[1:]]
                _, total, wall = root.count(cpu, f"{name}-{cpu}", program)
                _append("aarch64", {**common, "run": name, "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                                    "command": program, "exit": total, "emulated_wall_s": round(wall)})
                print(f"[pi-estimate] {cpu} {name}: {total:,} instructions", file=sys.stderr)


def _callgrind(name: str, program: list[str], marks: bool, env: dict[str, str]) -> tuple[list[int], int]:
    """``program`` under callgrind: the instructions between marks (one dump a mark) and in all."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "cg.out"
        command = ["valgrind", "--tool=callgrind", "--dump-instr=no", "--dump-line=no",
                   f"--callgrind-out-file={base}", *program]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{name} under callgrind failed: {done.stderr.strip()[-2000:]}")
        dumps: dict[int, int] = {}
        final = 0
        for path in Path(tmp).glob("cg.out*"):
            text = path.read_text(errors="replace")
            trigger = next((ln for ln in text.splitlines() if ln.startswith("desc: Trigger:")), "")
            totals = int(next(ln for ln in text.splitlines() if ln.startswith("totals:")).split()[1])
            if "mark" in trigger:
                dumps[int(trigger.rsplit(" ", 1)[1])] = totals
            else:
                final = totals
        segments = [dumps[k] for k in sorted(dumps)]
        return segments, sum(segments) + final


def count_x86(rounds: int, cpu_repeats: int, only: tuple[str, ...] = RUNS) -> None:
    commit = _git("rev-parse", "--short", "HEAD")
    product = _git("rev-parse", "--short", "HEAD:facilitator")
    version = subprocess.run(["valgrind", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    model = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                  if ln.startswith("model name")), "unknown")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        calibration = inputs.make_calibration(work)
        echo_once, echo_many = inputs.make_echo(work)
        array = inputs.make_array(work)
        lib = work / "libcallgrind_mark.so"
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", str(HERE / "callgrind_mark.c"), "-o", str(lib)], check=True)
        env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0", "PI_ESTIMATE_MARK_LIB": str(lib)}
        python = [str(ROOT / ".venv/bin/python"), str(HERE / "workload.py")]
        clips = [str(ROOT / c) for c in inputs.CLIPS]
        common = {"machine": "x86_64", "cpu": f"{model}, {os.cpu_count()} cores", "commit": commit,
                  "product_tree": product, "threads": 1}
        at_array = ["--array", str(array), "--geometry", inputs.ARRAY]
        runs = {"baseline": ["--what", "baseline"] + at_array + clips[:1],
                "recognition": ["--what", "recognition", "--rounds", str(rounds)] + at_array + clips,
                "calibration": ["--what", "calibration"] + [str(p) for p in calibration]}
        for name, args in runs.items():
            if name not in only:
                continue
            out = work / f"{name}.json"
            segments, total = _callgrind(name, python + ["--mark", "callgrind", "--out", str(out)] + args, True, env)
            result = json.loads(out.read_text())
            labels = result.pop("marks")
            # CPU seconds of the same process, run natively (no counter) cpu_repeats times
            seconds = []
            for _ in range(cpu_repeats):
                subprocess.run(python + ["--mark", "none", "--out", str(out)] + args, cwd=ROOT, env=env, check=True,
                               capture_output=True)
                timed = json.loads(out.read_text())["marks"]
                seconds.append([round(b["cpu"] - a["cpu"], 4) for a, b in zip([{"cpu": 0.0}] + timed, timed)])
            marks = [[m["label"], m["clip"], n] for m, n in zip(labels, segments)]
            _append("x86_64", {**common, "run": name, "counter": f"{version} callgrind",
                               "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                               "rounds": rounds if name == "recognition" else None,
                               "inputs": [Path(a).name for a in args if a.endswith(".wav")],
                               "exit": total, "marks": marks, "cpu_seconds": seconds, "result": result})
            print(f"[pi-estimate] x86_64 {name}: {total:,} instructions", file=sys.stderr)
        espeak = {"echo-argument": inputs.ESPEAK_ECHO + ["-w", str(work / "echo.wav"), "--", inputs.ECHO],
                  "echo-file-1": inputs.ESPEAK_ECHO + ["-w", str(work / "echo.wav"), "-f", str(echo_once)],
                  f"echo-file-{inputs.ECHO_REPEATS}": inputs.ESPEAK_ECHO + ["-w", str(work / "echo.wav"),
                                                                            "-f", str(echo_many)]}
        for name, program in espeak.items():
            if "echo" not in only:
                continue
            _, total = _callgrind(name, program, False, env)
            seconds = []
            for _ in range(cpu_repeats):
                before = os.times()
                subprocess.run(program, check=True, capture_output=True)
                after = os.times()
                seconds.append(round(after.children_user + after.children_system
                                     - before.children_user - before.children_system, 4))
            _append("x86_64", {**common, "run": name, "counter": f"{version} callgrind",
                               "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                               "command": ["espeak-ng", *program[1:]], "exit": total, "cpu_seconds": seconds})
            print(f"[pi-estimate] x86_64 {name}: {total:,} instructions", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pi_estimate", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    count = sub.add_parser("count", help="count the stages (aarch64 in ROOT under qemu; x86_64 under callgrind)")
    count.add_argument("--root", type=Path, help="the arm64 root made by make_root.sh")
    count.add_argument("--only", choices=("aarch64", "x86_64"))
    count.add_argument("--cpus", default="cortex-a72,cortex-a76", help="QEMU CPU models (a Pi 4's, a Pi 5's)")
    count.add_argument("--rounds", type=int, default=1, help="passes over the clips")
    count.add_argument("--cpu-repeats", type=int, default=3, help="native runs timed on x86_64 (the fastest is kept)")
    count.add_argument("--runs", default=",".join(RUNS),
                       help="the runs to count (the calibration and the echo do not depend on the product)")
    report = sub.add_parser("report", help="the estimate from the counts")
    report.add_argument("--write", action="store_true", help="also rewrite the table in benchmarks/RESULTS.md")
    args = parser.parse_args(argv)
    if args.command == "count":
        if args.only != "x86_64":
            if args.root is None:
                parser.error("--root is needed for aarch64 (make it with benchmarks/pi_estimate/make_root.sh)")
            count_aarch64(args.root, args.cpus.split(","), args.rounds, tuple(args.runs.split(",")))
        if args.only != "aarch64":
            count_x86(args.rounds, args.cpu_repeats, tuple(args.runs.split(",")))
        return 0
    text = estimate.report(estimate.load(RAW["aarch64"]), estimate.load(RAW["x86_64"]))
    print(text)
    if args.write:
        estimate.write_results(ROOT / "benchmarks/RESULTS.md", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
