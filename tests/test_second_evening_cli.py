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

NEEDED = "a WAV recording is needed: 16-bit PCM at 8,000 to 384,000 Hz"


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
                              f"{NEEDED}, any channel count (8-, 24- and 32-bit PCM, 32- or 64-bit float, " \
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


# -- The command line ------------------------------------------------------------

@pytest.mark.parametrize(("flag", "line"), [
    (["--input-channel", "1"], "--input-channel is for voice play, not --text: leave one of them out"),
    (["--ptt-input", "USB"], "--ptt-input is for voice play, not --text: leave one of them out"),
    (["--second-model", "base"], "--second-model is for voice play, not --text: leave one of them out"),
    (["--result-seconds", "5"], "--result-seconds is for the screens: add --screens"),
], ids=lambda f: f[0] if isinstance(f, list) else "")
def test_a_flag_that_does_nothing_in_text_play_is_refused(tmp_path: Path, flag: list[str], line: str) -> None:
    data = tmp_path / "data"
    done = run(["play", "compass-code", "--text", *flag], tmp_path, "status\n", env={"FACILITATOR_DATA_DIR": str(data)})
    assert done.returncode == 2 and done.stdout == "" and done.stderr == f"facilitator: {line}\n"
    assert nothing_written(tmp_path, data)


def test_the_result_seconds_with_the_screens_are_taken(tmp_path: Path) -> None:
    done = run(["play", "compass-code", "--text", "--screens", "--port", "0", "--result-seconds", "0"], tmp_path,
               "status\n", env={"FACILITATOR_DATA_DIR": str(tmp_path / "data")})
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("args", "line"), [
    ([], "settings needs an action: show, path, init [--force] or check [--config PATH]"),
    (["bogus"], "settings has no action 'bogus': show, path, init [--force] or check [--config PATH]"),
    (["show", "--force"], "--force is for settings init (it replaces the file), not show: leave it out"),
    (["check", "--force"], "--force is for settings init (it replaces the file), not check: leave it out"),
])
def test_settings_without_its_action_or_with_a_flag_it_ignores_is_one_line(
        tmp_path: Path, args: list[str], line: str) -> None:
    """Like ``content`` and ``models`` (docs/command-line.md), not argparse's usage."""
    done = run(["settings", *args], tmp_path, env={"FACILITATOR_CONFIG": str(tmp_path / "config.toml")})
    assert done.returncode == 2 and done.stdout == "" and done.stderr == f"facilitator: {line}\n"


def test_the_three_commands_without_an_action_are_told_alike(tmp_path: Path) -> None:
    for command in ("settings", "content", "models"):
        done = run([command], tmp_path)
        assert done.returncode == 2 and one_line(done.stderr), done.stderr
        assert done.stderr.startswith(f"facilitator: {command} needs an action: "), done.stderr


@pytest.mark.parametrize(("args", "command"), [
    (["serve", "--text", "--input-channel", "1"], "serve"),
    (["play", "compass-code", "--bogus"], "play"),
    (["content", "check", "--strict"], "content check"),
    (["settings", "show", "--quiet"], "settings"),
])
def test_an_unknown_flag_is_told_by_its_own_command_in_one_line(tmp_path: Path, args: list[str],
                                                                 command: str) -> None:
    data = tmp_path / "data"
    done = run(args, tmp_path, env={"FACILITATOR_DATA_DIR": str(data)})
    unknown = " ".join(args[args.index(next(a for a in args if a.startswith("--") and a != "--text")):])
    assert done.returncode == 2 and done.stdout == "" and done.stderr == (
        f"facilitator: {command}: unrecognized arguments: {unknown} "
        f"(facilitator {command} --help lists what it takes)\n")
    assert "usage: facilitator [-h]" not in done.stderr
    assert not data.exists()


def _decks(tmp_path: Path, name: str) -> Path:
    copy = tmp_path / name
    shutil.copytree(ROOT / "content", copy)
    return copy


def test_content_check_names_the_files_of_the_directory_given(tmp_path: Path) -> None:
    bad = _decks(tmp_path, "bad1")
    routes = bad / "compass-code" / "routes.toml"
    routes.write_text(routes.read_text() + "x = 1\n")
    for how in (["--content-dir", "bad1"], []):
        env = {} if how else {"FACILITATOR_CONTENT_DIR": "bad1"}
        done = run(["content", "check", *how], tmp_path, env=env)
        assert done.returncode == 1, done.stderr
        problems = [line for line in done.stderr.splitlines() if line.startswith("problem: ")]
        assert problems == ["problem: bad1/compass-code/routes.toml: routes entry 24 (number 24) x: unknown key"]
    shipped = run(["content", "check"], tmp_path)
    assert shipped.returncode == 0 and shipped.stdout.endswith("content: all files valid\n"), shipped.stderr


@pytest.mark.parametrize("damage", ["directory-for-a-file", "file-for-a-folder", "broken-entry", "missing"])
def test_every_content_problem_has_the_same_exit_and_a_clear_line(tmp_path: Path, damage: str) -> None:
    bad = _decks(tmp_path, "decks")
    routes = bad / "compass-code" / "routes.toml"
    if damage == "directory-for-a-file":
        routes.unlink()
        routes.mkdir()
        says = "decks/compass-code/routes.toml: is a directory where the file belongs"
    elif damage == "file-for-a-folder":
        shutil.rmtree(bad / "compass-code")
        (bad / "compass-code").write_text("")
        says = "decks/compass-code/routes.toml: cannot be there: a file stands where its folder belongs"
    elif damage == "broken-entry":
        routes.write_text(routes.read_text() + "x = 1\n")
        says = "decks/compass-code/routes.toml: routes entry 24 (number 24) x: unknown key"
    else:
        routes.unlink()
        says = "decks/compass-code/routes.toml: file is missing"
    done = run(["content", "check", "--content-dir", "decks"], tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr == f"problem: {says}\n1 content problem(s)\n"


@pytest.mark.parametrize("how", ["flag-missing", "flag-a-file", "env-missing"])
def test_a_content_directory_that_is_none_is_a_bad_argument(tmp_path: Path, how: str) -> None:
    (tmp_path / "a-file").write_text("")
    args, env = {"flag-missing": (["--content-dir", "nothere"], {}),
                 "flag-a-file": (["--content-dir", "a-file"], {}),
                 "env-missing": ([], {"FACILITATOR_CONTENT_DIR": "nothere"})}[how]
    done = run(["content", "check", *args], tmp_path, env=env)
    assert done.returncode == 2 and done.stdout == "" and one_line(done.stderr), done.stderr
    named = "FACILITATOR_CONTENT_DIR 'nothere'" if how == "env-missing" else "--content-dir"
    assert named in done.stderr and ("does not exist" in done.stderr or "is not a directory" in done.stderr)


def test_the_content_directory_variable_is_documented() -> None:
    text = (ROOT / "docs" / "command-line.md").read_text(encoding="utf-8")
    assert "FACILITATOR_CONTENT_DIR" in text


@pytest.mark.skipif(os.geteuid() != 0, reason="the doctor as root")
def test_the_doctor_as_root_does_not_ask_for_the_audio_group(tmp_path: Path) -> None:
    done = run(["doctor", "--quiet", "--data-dir", str(tmp_path / "data")], tmp_path,
               env={"FACILITATOR_CONFIG": str(tmp_path / "config.toml")})
    assert "Traceback" not in done.stderr
    assert "not in the audio group" not in done.stdout and "usermod" not in done.stdout, done.stdout
    assert "audio group: running as root" in done.stdout


@pytest.mark.skipif(not _can_mount(), reason="needs unshare -rm to mount a read-only file system")
def test_the_doctor_on_a_read_only_disk_suggests_what_can_help(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    script = f'mount -t tmpfs -o size=64k,ro tmpfs {ro} && exec "$@"'
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script, "sh", sys.executable, "-m", "facilitator",
                           "doctor", "--quiet", "--data-dir", f"{ro}/data"],
                          capture_output=True, text=True, timeout=deadline(120), check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "FACILITATOR_CONFIG": str(tmp_path / "config.toml")})
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "data directory:" in line)
    assert "Read-only file system" in lines[at]
    fix = lines[at + 1]
    assert "chown" in fix and "which no chown or chmod changes" in fix, fix    # named only to rule it out
    assert "chown -R $USER" not in fix and f"sudo mount -o remount,rw {ro}" in fix, fix
