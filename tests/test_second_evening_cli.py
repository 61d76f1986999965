"""What a careless or hostile user still met at the command line (issue 43, "Play and
the log" and "The command line"), through real subprocesses in temporary directories."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from support import ROOT, deadline

NEEDED = "a WAV recording is needed: 16-bit PCM at any rate"


def run(args: Sequence[str], cwd: Path, stdin: str = "", env: dict[str, str] | None = None,
        stdout: int | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m facilitator ARGS`` run in ``cwd`` (relative paths are the user's)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "facilitator", *args], input=stdin, text=True,
                          stdout=subprocess.PIPE if stdout is None else stdout, stderr=subprocess.PIPE,
                          timeout=deadline(120), env=full_env, cwd=cwd, check=False)


def one_line(stderr: str) -> bool:
    return stderr.count("\n") == 1 and stderr.startswith("facilitator: ") and "Traceback" not in stderr


def nothing_written(where: Path, data: Path) -> bool:
    """No log, no lock note, no game in the data directory."""
    games = data / "games"
    return (not any(p.suffix in (".jsonl", ".pid") for p in where.iterdir())
            and not (games.exists() and any(games.iterdir())))


# -- Play and the log ------------------------------------------------------------

def _bad_audio(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.wav"
    if kind == "junk":
        path.write_bytes(b"\x00\x93junk" * 20)
    elif kind == "float-as-stereo-channel-5":
        subprocess.run(["sox", "-n", "-r", "22050", "-c", "2", "-b", "32", "-e", "floating-point", str(path),
                        "synth", "0.3", "sine", "440"], check=True)
    return path


@pytest.mark.skipif(shutil.which("sox") is None, reason="sox makes the recording")
@pytest.mark.parametrize("kind", ["missing", "junk", "float-as-stereo-channel-5"])
def test_a_bad_audio_in_is_refused_before_anything_is_written(tmp_path: Path, kind: str) -> None:
    audio = _bad_audio(tmp_path, kind)
    data = tmp_path / "data"
    extra = ["--input-channel", "5"] if "channel" in kind else []
    env = {"FACILITATOR_DATA_DIR": str(data)}
    for log in (["--log", "a.jsonl"], []):
        for _ in range(2):   # the same command again says the same, not "already holds a game"
            done = run(["play", "compass-code", "--audio-in", audio.name, *extra, *log], tmp_path, env=env)
            assert done.returncode == 2 and done.stdout == "" and one_line(done.stderr), done.stderr
            assert "already holds" not in done.stderr
            assert nothing_written(tmp_path, data), sorted(p.name for p in tmp_path.iterdir())
    if kind == "junk":
        assert done.stderr == f"facilitator: 'junk.wav' is not a WAV file (it does not start with RIFF…WAVE); " \
                              f"{NEEDED} and channel count (8-, 24- and 32-bit PCM, 32- or 64-bit float, " \
                              "A-law and µ-law are converted)\n"
    if kind == "missing":
        assert done.stderr == "facilitator: no such audio file: 'missing.wav'\n"
    if "channel" in kind:
        assert "has 2 channel(s), 0 to 1; there is no channel 5" in done.stderr


def test_a_speech_out_that_is_a_file_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    (tmp_path / "said").write_text("a file\n")
    data = tmp_path / "data"
    for out in ("said", "said/more"):
        done = run(["play", "compass-code", "--speech-out", out, "--log", "a.jsonl"], tmp_path,
                   env={"FACILITATOR_DATA_DIR": str(data)})
        assert done.returncode == 2 and one_line(done.stderr), done.stderr
        assert "--speech-out" in done.stderr and "'said' is a file" in done.stderr
        assert nothing_written(tmp_path, data)


def _game_log(where: Path) -> Path:
    log = where / "g.jsonl"
    done = run(["play", "compass-code", "--text", "--seed", "3", "--log", log.name], where, "status\n",
               env={"FACILITATOR_DATA_DIR": str(where / "data")})
    assert done.returncode == 0, done.stderr
    return log


#: how a log line was damaged, and the words that must say so
DAMAGES = {
    "cut-short": (lambda line: line[:50], "line 2 breaks off before its record ends"),
    "extra-data": (lambda line: line + b' {"seq":9}', "line 2 has more after the end of its record"),
    "bad-byte": (lambda line: line[:20] + b"\x93" + line[21:], "line 2 holds a byte that is not text (0x93"),
    "latin-1": (lambda line: line.replace(b"\"route\":\"", "\"route\":\"É".encode("latin-1")), "line 2 holds a byte"),
    "changed-in-the-middle": (lambda line: line[:30] + b"@@" + line[32:], "line 2 is not a whole record"),
    "a-list": (lambda line: b"[1, 2]", "line 2 is not a record of the game"),
    "a-string": (lambda line: b'"\\ud800"', "line 2 is not a record of the game"),
    "no-seq": (lambda line: line.replace(b'"seq":2,', b""), "line 2 has no seq"),
    "string-seq": (lambda line: line.replace(b'"seq":2', b'"seq":"2"'), "line 2: seq '2' does not follow 1"),
    "wrong-type": (lambda line: line.replace(b'"route":"', b'"route":5,"x":"'), "line 2"),
}
RAW_PARSER_WORDS = ("Expecting", "column", "char ", "codec", "Extra data", "decode", "delimiter", "JSON")


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_log_is_refused_in_a_players_words_with_its_line(tmp_path: Path, damage: str) -> None:
    log = _game_log(tmp_path)
    lines = log.read_bytes().split(b"\n")
    change, says = DAMAGES[damage]
    lines[1] = change(lines[1])
    log.write_bytes(b"\n".join(lines))
    before = log.read_bytes()
    done = run(["play", "compass-code", "--text", "--resume", log.name], tmp_path, "status\n",
               env={"FACILITATOR_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 2 and one_line(done.stderr) and done.stdout == "", done.stderr
    assert done.stderr.startswith("facilitator: log 'g.jsonl' ") and says in done.stderr, done.stderr
    assert not any(word in done.stderr for word in RAW_PARSER_WORDS), done.stderr
    assert log.read_bytes() == before


def test_a_log_changed_without_its_chain_names_the_line_not_a_python_error(tmp_path: Path) -> None:
    """A log from before batches carries no chain: a changed value is caught by its form, or
    by the replay, and either says which line in words (not ``KeyError('route')``)."""
    import json

    log = _game_log(tmp_path)
    rows = [{k: v for k, v in json.loads(x).items() if k not in ("batch", "batch_size", "chain")}
            for x in log.read_text().splitlines()]
    rows.insert(1, {})   # a blank line's worth of shift: line numbers are the file's
    text = "".join((json.dumps(r) if r else "") + "\n" for r in rows)
    for old, new, says in (('"route": "ESNW"', '"route": 5', "line 3 (seq 2): leg-started.route = 5"),
                           ('"card": 9', '"cards": 9', "line 3 (seq 2)")):
        log.write_text(text.replace(old, new))
        done = run(["play", "compass-code", "--text", "--resume", log.name], tmp_path, "status\n",
                   env={"FACILITATOR_DATA_DIR": str(tmp_path / "data")})
        assert done.returncode == 2 and one_line(done.stderr), done.stderr
        assert says in done.stderr and "Error(" not in done.stderr, done.stderr


def _can_mount() -> bool:
    """A user and mount namespace of our own (to mount a small tmpfs and fill it)."""
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True, check=False).returncode == 0


@pytest.mark.skipif(not _can_mount(), reason="needs unshare -rm to mount a full file system")
@pytest.mark.parametrize("fill_kb", [100, 56])
def test_a_full_disk_at_start_names_the_path(tmp_path: Path, fill_kb: int) -> None:
    """A 64 KB tmpfs filled whole (the data directory's lock cannot be written) or all but
    a page (the lock can, the game's log cannot): either way the line names the path."""
    full = tmp_path / "full"
    full.mkdir()
    script = (f"mount -t tmpfs -o size=64k tmpfs {full} && mkdir -p {full}/data && "
              f"dd if=/dev/zero of={full}/fill bs=1k count={fill_kb} 2>/dev/null; "
              f'exec "$@"')
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", sys.executable, "-m", "facilitator",
                           "play", "compass-code", "--text", "--data-dir", f"{full}/data"],
                          input="status\n", capture_output=True, text=True, timeout=deadline(60),
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    assert "No space left on device" in done.stderr and f"'{full}/data" in done.stderr, done.stderr


@pytest.mark.parametrize("log", [["--log", "my game.jsonl"], []], ids=["log", "kept"])
def test_stdout_on_dev_full_says_where_the_game_is_resumed(tmp_path: Path, log: list[str]) -> None:
    data = tmp_path / "data"
    env = {"FACILITATOR_DATA_DIR": str(data)}
    with open("/dev/full", "w") as full:
        done = run(["play", "compass-code", "--text", *log], tmp_path, "status\n", env=env, stdout=full.fileno())
    assert done.returncode == 2 and one_line(done.stderr), done.stderr
    kept = "my game.jsonl" if log else str(next((data / "games").glob("*.jsonl")))
    hint = "'my game.jsonl'" if log else kept
    assert done.stderr == ("facilitator: cannot write to standard output: No space left on device; the game is "
                           f"logged in {kept!r}; continue it with: facilitator play compass-code --text "
                           f"--resume {hint}\n")
    again = run(["play", "compass-code", "--text", "--resume", kept], tmp_path, "status\n", env=env)
    assert again.returncode == 0 and again.stdout.startswith("Resuming the game.\n"), again.stderr


def test_the_resume_hint_keeps_the_flags_the_game_was_started_with(tmp_path: Path) -> None:
    """Following the hint serves the screens where the phones were, from the same data directory."""
    done = run(["play", "compass-code", "--text", "--screens", "--port", "0", "--result-seconds", "0",
                "--data-dir", "table data", "--private", "secrets.jsonl"], tmp_path, "status\n")
    assert done.returncode == 0, done.stderr
    hint = done.stderr.splitlines()[-1].split("continue it with: ")[1]
    assert hint == ("facilitator play compass-code --text --resume --private secrets.jsonl --screens --port 0 "
                    "--result-seconds 0 --data-dir 'table data'")
    import shlex

    followed = run([*shlex.split(hint)[1:]], tmp_path, "status\nquit\n")
    assert followed.returncode == 0 and followed.stdout.startswith("Resuming the game.\n"), followed.stderr


def test_the_resume_hint_keeps_the_voice_flags_but_not_the_recording(tmp_path: Path) -> None:
    from facilitator.cli import _parser, _resume_command

    args = _parser().parse_args(["play", "clover", "--audio-in", "x.wav", "--input-channel", "1", "--rate",
                                 "140", "--push-to-talk", "--screens", "--lan", "--port", "8182", "--host",
                                 "192.168.1.20", "--config", "my.toml"])
    args.typed = dict(vars(args))

    class Referee:
        name = "clover"

    class Session:
        referee = Referee()

    assert _resume_command(Session(), args) == (
        "facilitator play clover --resume --screens --lan --port 8182 --host 192.168.1.20 --config my.toml "
        "--input-channel 1 --push-to-talk --rate 140")


@pytest.mark.skipif(shutil.which("sox") is None, reason="sox makes the recording")
def test_a_voices_file_of_huge_numbers_is_set_aside_without_a_numpy_warning(tmp_path: Path) -> None:
    """``[1e308]*256`` overflows float32: the line is set aside in the one proper line, and
    numpy's RuntimeWarning with its source line is never printed beside it."""
    import json

    from facilitator.log import read_log
    from facilitator.session import game_id

    env = {"FACILITATOR_DATA_DIR": str(tmp_path / "data")}
    started = run(["play", "compass-code", "--text", "--log", "v.jsonl"], tmp_path, "status\n", env=env)
    assert started.returncode == 0, started.stderr
    voices = tmp_path / "v.jsonl.voices"
    voices.write_text(json.dumps({"game_id": game_id(read_log(tmp_path / "v.jsonl").events[0]),
                                  "seats": {"1": [[1e308] * 256], "2": [[0.0625] * 256]}}))
    voices.chmod(0o600)
    subprocess.run(["sox", "-n", "-r", "16000", "-b", "16", str(tmp_path / "quiet.wav"), "trim", "0", "0.5"],
                   check=True)
    done = run(["play", "compass-code", "--resume", "v.jsonl", "--audio-in", "quiet.wav", "--voices", "on",
                "--speech-out", "said"], tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "voiceprints.py" not in done.stderr, done.stderr
    aside = [line for line in done.stderr.splitlines() if "enrolled voices" in line]
    assert aside == [("facilitator: the enrolled voices in 'v.jsonl.voices': set aside seat 1's line 1 (a number "
                     "as large as 1e+308, where a voice's are at most 1); the rest is kept; a seat left without "
                     "a voice is asked again")]
