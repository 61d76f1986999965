"""benchmarks/fresh-root/split.py: the emulated run's shards get even shares of the time,
in chunks that a later sitting resumes."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPLIT = ROOT / "benchmarks" / "fresh-root" / "split.py"


def module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("split", SPLIT)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def test_files_are_cut_into_chunks_of_about_ten_minutes_and_a_long_file_is_one_alone() -> None:
    split = module()
    times = {"a": 900.0, "b": 300.0, "c": 200.0, "d": 200.0, "e": 1.0}
    assert split.chunks(["a", "b", "c", "d", "e"], times) == [["a"], ["b", "c"], ["d", "e"]]
    many = [f"t{n}" for n in range(30)]
    assert [len(c) for c in split.chunks(many, {})] == [6, 6, 6, 6, 6]


def test_times_come_from_junit_reports_and_a_torn_report_adds_nothing(tmp_path: Path) -> None:
    report = tmp_path / "shard-0.xml"
    report.write_text('<?xml version="1.0"?><testsuites><testsuite>'
                      '<testcase classname="tests.loop.test_demo" name="one" time="12.5"/>'
                      '<testcase classname="tests.loop.test_demo" name="two" time="7.5"/>'
                      '<testcase classname="tests.screens.test_seam.TestSeats" name="x" time="3"/>'
                      "</testsuite></testsuites>")
    torn = tmp_path / "shard-1.xml"
    torn.write_text('<?xml version="1.0"?><testsuites><testsuite><testcase classname="tests.a')
    assert module().junit_times([report, torn]) == {"tests/loop/test_demo.py": 20.0, "tests/screens/test_seam.py": 3.0}


def test_a_resumed_run_keeps_its_plan_and_runs_only_the_chunks_not_done_even_in_a_fresh_root(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    split = module()
    keep = tmp_path / "benchmarks" / "aarch64" / "chunks"   # in the project: outlives the root
    keep.mkdir(parents=True)
    root = tmp_path / "root"                                 # a fresh root: nothing of the earlier one
    (keep / "files.txt").write_text("tests/test_a.py\ntests/test_b.py\n")
    (keep / "commit").write_text("c" * 40 + "\n")
    ran: list[list[str]] = []

    def fake_run(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        ran.append(command)
        (root / "src" / "run" / "001.xml").write_text(
            '<testsuites><testsuite><testcase classname="tests.test_b" name="x" time="410"/></testsuite></testsuites>')
        return subprocess.CompletedProcess(command, 0, "..\n2 passed in 1.0s\n")

    monkeypatch.setattr(split.subprocess, "run", fake_run)
    (keep / "sittings").write_text("1\n")
    (keep / "000.done").write_text(json.dumps({"status": 0, "summary": "5 passed, 1 skipped in 9s", "sitting": 1,
                                                "times": {"tests/test_a.py": 480.0}}))
    durations = tmp_path / "durations.txt"
    durations.write_text("400.0 tests/test_b.py\n500.0 tests/test_a.py\n")
    first_plan = split.plan(keep, split.read_times(durations))
    # longest first, and two files of 500 s and 400 s make two chunks of ten minutes
    assert first_plan == [{"id": "000", "files": ["tests/test_a.py"]}, {"id": "001", "files": ["tests/test_b.py"]}]
    status = split.run(keep, "/src/run", 2, durations, root, ["-q"], ["chroot", "x"])
    assert status == 0
    assert json.loads((keep / "plan.json").read_text()) == first_plan
    # chunk 000 (tests/test_a.py) was done in an earlier sitting: only b's chunk ran now
    assert len(ran) == 1 and ran[0][-1].endswith("tests/test_b.py")
    assert ran[0][:2] == ["chroot", "x"] and ran[0][2] in {"HOME=/root/shard-0", "HOME=/root/shard-1"}
    assert "--junitxml=/src/run/001.xml" in ran[0][-1]
    done = json.loads((keep / "001.done").read_text())
    assert (done["status"], done["summary"], done["sitting"], done["times"], done["commit"]) == (
        0, "2 passed in 1.0s", 2, {"tests/test_b.py": 410.0}, "c" * 40)
    assert (keep / "sittings").read_text().strip() == "2"
    assert "2 passed" in (root / "src" / "run" / f"shard-{ran[0][2][-1]}.log").read_text()
    # the times of every done chunk, of this sitting and the earlier one, are the next plan's
    assert split.read_times(durations) == {"tests/test_a.py": 480.0, "tests/test_b.py": 410.0}
    # the line adds up every done chunk, of this sitting and the earlier one
    assert capsys.readouterr().out.strip() == "2 of 2 chunks in 2 shards, 2 sitting(s): 7 passed, 1 skipped"


def test_a_chunk_cut_off_before_its_summary_is_not_done(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    split = module()
    keep = tmp_path / "chunks"
    keep.mkdir()
    (keep / "files.txt").write_text("tests/a.py\n")
    (keep / "commit").write_text("c" * 40 + "\n")
    monkeypatch.setattr(split.subprocess, "run", lambda command, **_: subprocess.CompletedProcess(command, -9, "...."))
    assert split.run(keep, "/src/run", 1, tmp_path / "durations.txt", tmp_path / "root", [], ["chroot", "x"]) == 3
    assert not (keep / "000.done").exists()


def test_a_failed_chunk_is_done_and_its_status_is_the_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    split = module()
    keep = tmp_path / "chunks"
    keep.mkdir()
    (keep / "files.txt").write_text("tests/a.py\n")
    (keep / "commit").write_text("c" * 40 + "\n")
    monkeypatch.setattr(split.subprocess, "run",
                        lambda command, **_: subprocess.CompletedProcess(command, 1, "F.\n1 failed, 1 passed in 2s\n"))
    assert split.run(keep, "/src/run", 1, tmp_path / "durations.txt", tmp_path / "root", [], ["chroot", "x"]) == 1
    assert json.loads((keep / "000.done").read_text())["summary"] == "1 failed, 1 passed in 2s"


PLAN = [{"id": "000", "files": ["tests/test_slow.py"]},
        {"id": "001", "files": ["tests/two_windows/test_recognize.py", "tests/two_windows/test_teams.py"]},
        {"id": "002", "files": ["tests/transcripts/test_transcripts.py"]}]
SOURCES = {"tests/test_slow.py": "def test_slow(): ...",
           "tests/two_windows/test_recognize.py": "# see docs/speech.md",
           "tests/two_windows/test_teams.py": "",
           "tests/transcripts/test_transcripts.py": 'readme = (ROOT / "README.md").read_text()'}


def test_a_changed_test_file_or_a_doc_its_test_names_runs_its_chunk_again_and_a_package_file_refuses() -> None:
    split = module()
    rerun, refused = split.to_rerun(["tests/two_windows/test_teams.py", "docs/table-service.md",
                                     "benchmarks/aarch64/results.txt", "benchmarks/aarch64/chunks/001.done",
                                     "benchmarks/aarch64/durations.txt"], PLAN, SOURCES)
    assert (rerun, refused) == ({"001"}, [])   # a changed test file; docs and records no test names
    # a doc (or the driver) that a test reads runs that test's chunk again
    assert split.to_rerun(["README.md"], PLAN, SOURCES) == ({"002"}, [])
    assert split.to_rerun(["docs/speech.md", "benchmarks/fresh-root/run.sh"], PLAN, SOURCES) == ({"001"}, [])
    # the package, the lock, a conftest, a test's support module, a test file the plan lacks
    for path in ["facilitator/speech/engines/hybrid.py", "requirements/lock-aarch64.txt", "tests/conftest.py",
                 "tests/support.py", "tests/test_new.py", "grammars/two_windows.jsgf"]:
        assert split.to_rerun([path], PLAN, SOURCES) == (set(), [path])


def _kept_run(keep: Path, commit: str) -> None:
    keep.mkdir(parents=True)
    (keep / "plan.json").write_text(json.dumps(PLAN))
    (keep / "commit").write_text(commit + "\n")
    for cid, status in [("000", 0), ("001", 1)]:   # done before chunks recorded their commit; 002 not done
        (keep / f"{cid}.done").write_text(json.dumps({"status": status, "summary": "1 passed", "sitting": 1}))


def test_a_resume_at_a_new_head_reruns_the_chunks_whose_tests_changed_and_the_line_names_both_commits(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    split = module()
    keep = tmp_path / "chunks"
    old, new = "a" * 40, "b" * 40
    _kept_run(keep, old)
    asked: list[str] = []

    def changed_since(commit: str) -> list[str]:
        asked.append(commit)
        return ["tests/two_windows/test_recognize.py", "README.md"]

    assert split.resume(keep, new, changed_since, lambda: SOURCES) == 0
    assert asked == [old]
    assert not (keep / "001.done").exists()                      # its test changed: run again at HEAD
    assert json.loads((keep / "000.done").read_text())["commit"] == old   # kept, with the commit it ran at
    assert (keep / "commit").read_text().strip() == new
    # 002 reads the README but was never done: it is run, not "run again"
    assert "chunk(s) 001 run again" in capsys.readouterr().err
    assert split.commits(keep) == (f"{new[:7]} (1 of 3 chunks done at earlier commits (1 at {old[:7]}), "
                                   "which differ from it in nothing their tests read)")
    # once chunk 001 is done at HEAD, a further resume at the same HEAD keeps both
    (keep / "001.done").write_text(json.dumps({"status": 0, "summary": "2 passed", "sitting": 2, "commit": new}))
    assert split.resume(keep, new, changed_since, lambda: SOURCES) == 0
    assert sorted(p.name for p in keep.glob("*.done")) == ["000.done", "001.done"]


def test_a_resume_after_the_package_changed_is_refused_and_keeps_every_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    split = module()
    keep = tmp_path / "chunks"
    old = "a" * 40
    _kept_run(keep, old)
    before = {p.name: p.read_text() for p in keep.iterdir()}
    assert split.resume(keep, "b" * 40, lambda _: ["tests/two_windows/test_teams.py", "facilitator/log.py"],
                        lambda: SOURCES) == 2
    assert "facilitator/log.py" in capsys.readouterr().err
    assert {p.name: p.read_text() for p in keep.iterdir()} == before
    assert split.commits(keep) == old[:7]
