"""Run the test files in shards side by side, in chunks that a later sitting can resume.

    python3 split.py run KEEP INNER SHARDS DURATIONS ROOT-DIR -- PYTEST-ARGS... -- IN-ROOT-COMMAND...
    python3 split.py resume KEEP PROJECT
    python3 split.py commits KEEP

fresh-root/run.sh calls them.  Round robin in collection order left one emulated shard
with every heavy voice test while the other sat idle.  So the test files are cut into
chunks of about ten minutes by the times of earlier runs, kept in DURATIONS (a line per
test file: seconds, a space, the path; a file with no time on record counts as the median),
the longest first, and each shard takes the next chunk that is left when it is free, so
the shards even out even where the times are wrong.  A chunk is one ``bash .ci/run``; a
chunk whose pytest printed its summary is done.  What a later sitting needs (the plan, and
each done chunk's summary, exit status, sitting and times) is kept in KEEP, a folder of the
project on the host (benchmarks/MACHINE/chunks), so it outlives the root: a sitting that is
cut off (the machine's session ends, and may take the root with it) loses only the chunks
it was in, and the next sitting, at the same commit and in the same root or a fresh one,
runs those not done.  Inside the root, INNER holds the JUnit reports and the shards' logs
(ROOT-DIR/INNER on the host).  Host Python, standard library only: it runs outside the root.

``resume`` lets a later sitting go on at the project's HEAD when HEAD differs from the
commit each done chunk was run at only in the run's records (results, times, chunks), the
docs, this driver, and test files the plan holds.  A done chunk is run again at HEAD if one
of its test files changed, or names a changed doc or driver file (a test may read the
README or split.py); anything else (the package, grammars, content, the lock, a conftest
or a test's support module, a test file the plan does not hold) makes the whole run start
again.  Each done chunk records
the commit it ran at, and ``commits`` says which commits the results line adds up.
"""

from __future__ import annotations

import fnmatch
import json
import queue
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

CHUNK_SECONDS = 600.0
CHUNK_FILES = 6
SUMMARY = re.compile(r"\b\d+ (passed|failed|errors?|skipped)\b")
# what a sitting may change and keep its done chunks (fnmatch: "*" crosses "/"): the run's own
# records, which only this driver reads; and the docs and the driver, which a test may read
# (the README's tables, docs/settings.md, split.py itself), so a chunk whose test files name
# a changed one by its file name runs again
RECORDS = ("benchmarks/*/results.txt", "benchmarks/*/durations.txt", "benchmarks/*/chunks/*")
NAMED = ("*.md", "docs/*", "benchmarks/fresh-root/run.sh", "benchmarks/fresh-root/split.py",
         "benchmarks/aarch64/run.sh")


def read_times(path: Path) -> dict[str, float]:
    times: dict[str, float] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            seconds, _, name = line.partition(" ")
            if name:
                times[name] = float(seconds)
    return times


def median_guess(files: list[str], times: dict[str, float]) -> float:
    """The time counted for a file with none on record."""
    known = [times[f] for f in files if f in times]
    return statistics.median(known) if known else 1.0


def chunks(files: list[str], times: dict[str, float]) -> list[list[str]]:
    """Consecutive runs of ``files`` of at most CHUNK_SECONDS (a longer file is a chunk alone)
    or CHUNK_FILES files."""
    guess = median_guess(files, times)
    out: list[list[str]] = []
    load = 0.0
    for name in files:
        cost = times.get(name, guess)
        if not out or load + cost > CHUNK_SECONDS or len(out[-1]) >= CHUNK_FILES:
            out.append([])
            load = 0.0
        out[-1].append(name)
        load += cost
    return out


def junit_times(paths: list[Path]) -> dict[str, float]:
    """Seconds per test file from pytest's --junitxml reports (a report that is missing or
    torn, as after a killed run, adds nothing)."""
    times: dict[str, float] = {}
    for path in paths:
        try:
            cases = list(ET.parse(path).getroot().iter("testcase"))
        except (OSError, ET.ParseError):
            continue
        for case in cases:
            # classname is "tests.loop.test_x" or "tests.loop.test_x.TestClass"
            parts = [p for p in case.get("classname", "").split(".") if p]
            while parts and not parts[-1].startswith("test_"):
                parts.pop()
            if parts:
                file = "/".join(parts) + ".py"
                times[file] = times.get(file, 0.0) + float(case.get("time", "0") or 0)
    return times


def plan(keep: Path, times: dict[str, float]) -> list[dict[str, object]]:
    """The chunks of this run, longest first: made at its first sitting from keep/files.txt,
    then kept."""
    planned = keep / "plan.json"
    if planned.exists():
        return list(json.loads(planned.read_text(encoding="utf-8")))
    files = [line for line in (keep / "files.txt").read_text(encoding="utf-8").splitlines() if line]
    guess = median_guess(files, times)
    ordered = sorted(files, key=lambda f: -times.get(f, guess))
    made: list[dict[str, object]] = [{"id": f"{n:03d}", "files": part}
                                     for n, part in enumerate(chunks(ordered, times))]
    planned.write_text(json.dumps(made, indent=1) + "\n", encoding="utf-8")
    return made


def chunk_queue(chunk_list: list[dict[str, object]], keep: Path) -> queue.SimpleQueue[dict[str, object]]:
    """The chunks not yet done, for whichever shard is free."""
    left: queue.SimpleQueue[dict[str, object]] = queue.SimpleQueue()
    for chunk in chunk_list:
        if not (keep / f"{chunk['id']}.done").exists():
            left.put(chunk)
    return left


def run_shard(k: int, left: queue.SimpleQueue[dict[str, object]], keep: Path, inner: str, host_inner: Path,
              sitting: int, pytest_args: list[str], in_root: list[str]) -> None:
    commit = (keep / "commit").read_text(encoding="utf-8").strip()   # what the root's clone is at
    while True:
        try:
            chunk = left.get_nowait()
        except queue.Empty:
            return
        cid = str(chunk["id"])
        files = [str(f) for f in chunk["files"]]  # type: ignore[attr-defined]
        args = [*pytest_args, f"--basetemp=/tmp/shard-{k}", f"--junitxml={inner}/{cid}.xml", *files]
        command = [*in_root, f"HOME=/root/shard-{k}", "/bin/bash", "-c",
                   f"cd /src/facilitator && bash .ci/run {shlex.join(args)}"]
        proc = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace", check=False)
        with (host_inner / f"shard-{k}.log").open("a", encoding="utf-8") as out:
            out.write(f"== chunk {cid} (shard {k}): {' '.join(files)}\n{proc.stdout}")
        lines = [line for line in proc.stdout.splitlines() if SUMMARY.search(line)]
        if lines:      # pytest ran to its end: the chunk is done, passed or not
            record = {"status": proc.returncode, "summary": lines[-1].strip("= "), "sitting": sitting,
                      "commit": commit,
                      "ended": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
                      "times": junit_times([host_inner / f"{cid}.xml"])}
            (keep / f"{cid}.done").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n",
                                              encoding="utf-8")


def run(keep: Path, inner: str, shards: int, durations: Path, root: Path, pytest_args: list[str],
        in_root: list[str]) -> int:
    host_inner = root / inner.lstrip("/")
    host_inner.mkdir(parents=True, exist_ok=True)
    times = read_times(durations)
    chunk_list = plan(keep, times)
    left = chunk_queue(chunk_list, keep)
    sittings = int((keep / "sittings").read_text()) + 1 if (keep / "sittings").exists() else 1
    (keep / "sittings").write_text(f"{sittings}\n")
    threads = [threading.Thread(target=run_shard,
                                args=(k, left, keep, inner, host_inner, sittings, pytest_args, in_root))
               for k in range(shards)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results = [json.loads((keep / f"{c['id']}.done").read_text()) for c in chunk_list
               if (keep / f"{c['id']}.done").exists()]
    measured = {name: float(s) for r in results for name, s in dict(r.get("times", {})).items()}
    durations.write_text("".join(f"{s:.1f} {n}\n" for n, s in sorted({**times, **measured}.items())),
                         encoding="utf-8")
    counts: dict[str, int] = {}
    for r in results:
        for number, word in re.findall(r"(\d+) (passed|failed|errors?|skipped|deselected)", r["summary"]):
            word = "errors" if word.startswith("error") else word
            counts[word] = counts.get(word, 0) + int(number)
    missing = len(chunk_list) - len(results)
    total = ", ".join(f"{n} {w}" for w, n in sorted(counts.items()))
    said = f"{len(results)} of {len(chunk_list)} chunks in {shards} shards, {sittings} sitting(s): {total or 'nothing'}"
    if missing:
        said += f"; {missing} chunk(s) not run yet (--resume runs them)"
    print(said)
    failed = [r["status"] for r in results if r["status"] != 0]
    return failed[0] if failed else (3 if missing else 0)


def to_rerun(changed: list[str], chunk_list: list[dict[str, object]],
             sources: dict[str, str]) -> tuple[set[str], list[str]]:
    """For the paths that changed since a done chunk's commit: the chunks to run again (those
    holding a changed test file, or a test file whose text, in ``sources``, names a changed
    doc or driver file), and the paths no resume may step over (the whole run starts again)."""
    owner = {str(f): str(c["id"]) for c in chunk_list for f in c["files"]}  # type: ignore[attr-defined]
    rerun: set[str] = set()
    refused: list[str] = []
    for path in changed:
        if path in owner:
            rerun.add(owner[path])
        elif any(fnmatch.fnmatch(path, pattern) for pattern in NAMED):
            name = path.rsplit("/", 1)[-1]
            rerun |= {owner[test] for test, text in sources.items() if test in owner and name in text}
        elif not any(fnmatch.fnmatch(path, pattern) for pattern in RECORDS):
            refused.append(path)
    return rerun, refused


def done_records(keep: Path) -> tuple[list[dict[str, object]], dict[str, dict[str, object]]]:
    """The plan, and each done chunk's record with the commit it ran at (a chunk done before
    chunks recorded their commit ran at the run's)."""
    run_commit = (keep / "commit").read_text(encoding="utf-8").strip()
    chunk_list = list(json.loads((keep / "plan.json").read_text(encoding="utf-8")))
    records: dict[str, dict[str, object]] = {}
    for c in chunk_list:
        path = keep / f"{c['id']}.done"
        if path.exists():
            records[str(c["id"])] = {"commit": run_commit, **json.loads(path.read_text(encoding="utf-8"))}
    return chunk_list, records


def git(project: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True,
                          text=True).stdout


def resume(keep: Path, head: str, changed_since: Callable[[str], list[str]],
           sources: Callable[[], dict[str, str]]) -> int:
    """Move a cut-off run on to the project's ``head`` (see the module's doc): each done chunk
    is kept, or run again at ``head`` where what its tests read changed; 2 where the run cannot
    go on.  ``changed_since(commit)`` names the paths that differ between commit and head;
    ``sources()`` gives the text of each test file at head."""
    if not (keep / "commit").exists() or not (keep / "plan.json").exists():
        print(f"there is no cut-off sharded run to resume ({keep.name} has no plan)", file=sys.stderr)
        return 2
    chunk_list, records = done_records(keep)
    texts = sources()
    again: set[str] = set()
    for commit in sorted({str(r["commit"]) for r in records.values()} - {head}):
        rerun, refused = to_rerun(changed_since(commit), chunk_list, texts)
        if refused:
            shown = ", ".join(refused[:5]) + (f" and {len(refused) - 5} more" if len(refused) > 5 else "")
            print(f"the project has changed since the cut-off run at {commit[:7]} ({shown}): "
                  "run again without --resume", file=sys.stderr)
            return 2
        again |= {cid for cid in rerun if cid in records and records[cid]["commit"] == commit}
    for cid, record in records.items():
        path = keep / f"{cid}.done"
        if cid in again:
            path.unlink()
        else:   # written out with its commit, which an older record may lack
            path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (keep / "commit").write_text(head + "\n", encoding="utf-8")
    if again:
        print(f"chunk(s) {', '.join(sorted(again))} run again at {head[:7]}: what their tests read changed",
              file=sys.stderr)
    return 0


def commits(keep: Path) -> str:
    """The commit of the results line: the run's, and how many chunks were done at earlier ones."""
    head = (keep / "commit").read_text(encoding="utf-8").strip()
    chunk_list, records = done_records(keep)
    earlier: dict[str, int] = {}
    for record in records.values():
        if record["commit"] != head:
            earlier[str(record["commit"])] = earlier.get(str(record["commit"]), 0) + 1
    if not earlier:
        return head[:7]
    at = ", ".join(f"{n} at {c[:7]}" for c, n in sorted(earlier.items()))
    return (f"{head[:7]} ({sum(earlier.values())} of {len(chunk_list)} chunks done at earlier commits ({at}), "
            "which differ from it in nothing their tests read)")


def resume_at_head(keep: Path, project: Path) -> int:
    """``resume`` at the project's HEAD, with git telling what changed and what the tests say."""
    head = git(project, "rev-parse", "HEAD").strip()

    def changed_since(commit: str) -> list[str]:
        return [line for line in git(project, "diff", "--name-only", commit, head).splitlines() if line]

    def sources() -> dict[str, str]:
        planned = [str(f) for c in json.loads((keep / "plan.json").read_text(encoding="utf-8")) for f in c["files"]]
        tracked = set(git(project, "ls-tree", "-r", "--name-only", head).splitlines())
        return {f: git(project, "show", f"{head}:{f}") for f in planned if f in tracked}

    return resume(keep, head, changed_since, sources)


def main(argv: list[str]) -> int:
    if argv[:1] == ["resume"] and len(argv) == 3:
        return resume_at_head(Path(argv[1]), Path(argv[2]))
    if argv[:1] == ["commits"] and len(argv) == 2:
        print(commits(Path(argv[1])))
        return 0
    if argv[:1] == ["run"] and argv.count("--") == 2 and argv.index("--") == 6:
        first = argv.index("--")
        second = argv.index("--", first + 1)
        keep, inner, shards, durations, root = argv[1:first]
        return run(Path(keep), inner, int(shards), Path(durations), Path(root), argv[first + 1:second],
                   argv[second + 1:])
    print("\n".join(line.strip() for line in __doc__.strip().splitlines()[2:5]), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
