"""Two Windows through the real CLI: the rules' worked example as golden files,
options, the data directory, private output, bad arguments, and resume after SIGKILL."""

from __future__ import annotations

import signal
import tempfile
from pathlib import Path

import pytest
from support import kill_while_playing, read_jsonl, run_cli

#: hidden information needs somewhere to go (a game without --private or --screens does not start)
PRIVATE = ["--private", str(Path(tempfile.mkdtemp(prefix="private-")) / "private.jsonl")]

GOLDEN = Path(__file__).parent / "golden"
PRACTICE = ["play", "two-windows", "--text", *PRIVATE, "--practice", "--names", "Ann,Bea,Cal"]


def _answers(log: Path) -> list[tuple[int, str, bool, int]]:
    return [(e["stage"], e["name"], e["correct"], e["points"]) for e in read_jsonl(log)
            if e["type"] == "answer-given"]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "answer"), [("worked_example", (1, "Brook", True, 2)),
                                              ("worked_example_more", (2, "Brook", True, 1))])
def test_worked_example_golden(tmp_path: Path, name: str, answer: tuple) -> None:
    """FORM ROUND with SURFACE STRIPED identifies Brook at the first stage for 2 points;
    asking for more first reduces a correct answer to 1 point."""
    log = tmp_path / "log.jsonl"
    done = run_cli([*PRACTICE, "--log", str(log)], (GOLDEN / f"{name}.in").read_text())
    assert done.returncode == 0, done.stderr
    assert done.stdout == (GOLDEN / f"{name}.out").read_text()
    assert _answers(log) == [answer]
    ended = [e for e in read_jsonl(log) if e["type"] == "game-ended"]
    assert [(e["points"], e["possible"]) for e in ended] == [(answer[3], 2)]


@pytest.mark.slow
def test_packets_private_and_stdout(tmp_path: Path) -> None:
    log, private = tmp_path / "log.jsonl", tmp_path / "private.jsonl"
    script = "a sends form round\nb sends surface striped\nfinal alder\nstatus\n"
    done = run_cli(["play", "two-windows", "--text", *PRIVATE, "--packets", "1,8,13,4,17,10", "--players", "4",
                    "--seed", "3", "--log", str(log), "--private", str(private)], script)
    assert done.returncode == 0, done.stderr
    started = [e for e in read_jsonl(log) if e["type"] == "round-started"]
    assert [(e["round"], e["packet"]) for e in started] == [(1, 1), (2, 8)]
    lines = read_jsonl(private)
    assert [(p["type"], p["audience"]) for p in lines] == [
        ("report-dealt", "a"), ("report-dealt", "b"), ("fact-locked", "a"), ("fact-locked", "b"),
        ("report-dealt", "a"), ("report-dealt", "b")]
    assert lines[-2]["text"] == ("Round 2, packet 8, report A: the target has both FORM SQUARE and "
                                 "EDGE NOTCHED. Lock one of them first; if more is asked, the other is sent.")
    assert "FORM SQUARE" not in done.stdout and "form square" not in done.stdout
    assert done.stdout.splitlines()[-1] == ("Round 2 of 6, Pine decodes: waiting for report A and "
                                            "report B; score 2 of 12.")


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), [
    (["--packets", "1,2,3"], "--packets needs 6 packet numbers, got 3"),
    (["--packets", "1,2,3,4,5,x"], "--packets: 'x' is not a packet number"),
    (["--packets", "1,2,3,4,5,19"], "--packets: 19 is not a packet (1 to 18)"),
    (["--packets", "1,2,3,4,5,5"], "--packets needs six different packets"),
    (["--practice", "--packets", "1,2,3,4,5,6"], "--practice plays the practice packet; leave out --packets"),
    (["--players", "7"], "two-windows takes 3 to 6 players, not 7"),
    (["--players", "2"], "two-windows takes 3 to 6 players, not 2"),
    (["--mode", "gentle"], "--mode is not an option of two-windows"),
])
def test_bad_arguments_exit_2_with_one_line(args: list[str], message: str) -> None:
    done = run_cli(["play", "two-windows", "--text", *PRIVATE, *args], "")
    assert done.returncode == 2
    assert done.stderr.strip() == f"facilitator: {message}"


@pytest.mark.slow
def test_data_dir_flag_and_environment_keep_the_record(tmp_path: Path) -> None:
    flag_dir, env_dir = tmp_path / "flag", tmp_path / "env"
    done = run_cli(["play", "two-windows", "--text", *PRIVATE, "--seed", "1", "--data-dir", str(flag_dir)], "",
                   env={"FACILITATOR_DATA_DIR": str(env_dir)})
    assert done.returncode == 0, done.stderr
    assert (flag_dir / "two-windows.json").exists() and not env_dir.exists()
    done = run_cli(["play", "two-windows", "--text", *PRIVATE, "--seed", "1"], "",
                   env={"FACILITATOR_DATA_DIR": str(env_dir)})
    assert done.returncode == 0 and (env_dir / "two-windows.json").exists()




SCRIPT = [
    "a sends form round", "b sends surface striped", "more", "final alder",       # round 1: packet 1
    "a sends edge notched", "b sends size large", "final elm",                     # round 2: packet 8
    "a sends form round",                                                           # round 3: half locked
    "b sends surface striped", "final gorse",                                      # packet 13
    "a sends size small", "b sends edge smooth", "final birch",                    # packet 4
    "a sends edge smooth", "b sends surface striped", "final birch",               # packet 17: a miss
    "a sends form square", "b sends edge notched", "more", "final fern",           # packet 10
]
ARGS = ["play", "two-windows", "--text", *PRIVATE, "--seed", "4", "--players", "5", "--packets", "1,8,13,4,17,10"]


@pytest.mark.slow
def test_sigkill_mid_round_then_resume_loses_nothing(tmp_path: Path) -> None:
    straight = tmp_path / "straight.jsonl"
    whole = run_cli([*ARGS, "--log", str(straight)], "\n".join(SCRIPT) + "\n")
    assert whole.returncode == 0, whole.stderr
    assert whole.stdout.splitlines()[-1] == "Game over: 8 of 12 points."

    log = tmp_path / "killed.jsonl"
    status = kill_while_playing(                   # round 3 with report A's slip locked
        [*ARGS, "--log", str(log)], SCRIPT[:8],
        lambda: log.exists() and '"type":"slip-locked","seq":29,"audience":"public","round":3,"report":"A"'
        in log.read_text())
    assert status == -signal.SIGKILL
    killed = read_jsonl(log)
    assert killed[-1]["type"] == "slip-locked" and killed[-1]["report"] == "A"

    resumed = run_cli(["play", "two-windows", "--text", *PRIVATE, "--resume", str(log)], "\n".join(SCRIPT[8:]) + "\n")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.splitlines()[:3] == [
        "Resuming the game.",
        "Report A's slip is locked.",      # the last command before the kill, said again
        "Round 3 of 6, Reed decodes: waiting for report B; score 3 of 12."]
    assert resumed.stdout.splitlines()[-1] == "Game over: 8 of 12 points."
    assert read_jsonl(log) == read_jsonl(straight)


@pytest.mark.slow
def test_resume_refuses_a_finished_game_and_a_half_line_is_dropped(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    run_cli([*PRACTICE, "--log", str(log)], (GOLDEN / "worked_example.in").read_text())
    over = run_cli(["play", "two-windows", "--text", *PRIVATE, "--resume", str(log)], "")
    assert over.returncode == 2 and "is over; nothing to resume" in over.stderr

    cut = tmp_path / "cut.jsonl"
    run_cli([*PRACTICE, "--log", str(cut)], "a sends form round\n")
    with open(cut, "ab") as f:
        f.write(b'{"type":"fact-locked","seq":')
    done = run_cli(["play", "two-windows", "--text", *PRIVATE, "--resume", str(cut)],
                   "b sends edge notched\nfinal brook\n")
    assert done.returncode == 0
    assert "dropped a half-written last line" in done.stderr
    assert _answers(cut) == [(1, "Brook", True, 2)]


#: a round played blind: each informant tries every fact (the ones not on its report, or
#: sent after its slip locked, are refused at no cost), then the decoder answers
BLIND_ROUND = ([f"a sends {f}" for f in ("form round", "form square", "size small", "size large",
                                         "surface plain", "surface striped", "edge smooth", "edge notched")]
               + [f"b sends {f}" for f in ("edge notched", "edge smooth", "surface striped", "surface plain",
                                           "size large", "size small", "form square", "form round")]
               + ["final alder"])


@pytest.mark.slow
def test_three_games_at_one_table_through_the_cli_then_the_record_starts_over(tmp_path: Path) -> None:
    data = tmp_path / "table"
    played: list[int] = []
    for seed in (21, 22, 23):
        log = tmp_path / f"game{seed}.jsonl"
        done = run_cli(["play", "two-windows", "--text", *PRIVATE, "--seed", str(seed), "--data-dir", str(data),
                        "--log", str(log)], "\n".join(BLIND_ROUND * 6) + "\n")
        assert done.returncode == 0, done.stderr
        assert "starts over" not in done.stdout
        assert done.stdout.splitlines()[-1].startswith("Game over: ")
        events = read_jsonl(log)
        packets = [e["packet"] for e in events if e["type"] == "round-started"]
        assert len(packets) == 6 and not set(packets) & set(played)
        played += packets
        assert sum(e["type"] == "transmission-revealed" for e in events) == 6
    assert sorted(played) == list(range(1, 19))
    fourth = run_cli(["play", "two-windows", "--text", *PRIVATE, "--seed", "24", "--data-dir", str(data)], "")
    assert fourth.returncode == 0
    assert ("The packet record starts over: fewer than six packets were left unplayed."
            in fourth.stdout.splitlines())
