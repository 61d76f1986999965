"""Golden WAVs go through the real ``facilitator recognize`` to the right command.

Each clip is named after its transcript (tests/audio/golden.toml lists the command
it must give).  Table chatter must give null; a known miss may give null (the
table hears "say again?") but never a wrong command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import deadline

from .conftest import golden_clips

CLIPS = golden_clips()
ROOT = Path(__file__).resolve().parents[2]


def _recognize(paths: list[Path], env: dict[str, str] | None = None,
               extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "facilitator", "recognize", "--game", "compass-code", *extra,
         *map(str, paths)],
        capture_output=True, text=True, timeout=deadline(900), cwd=ROOT, env=env, check=False,
    )


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, object]]:
    # pocketsphinx alone (the light mode); both engines have their own pins in
    # tests/speech/test_whisper.py and tests/recognition/test_golden_accuracy_whisper.py
    done = _recognize([path for _, path, _ in CLIPS], extra=("--second-engine", "off"))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == len(CLIPS)
    return {str(row["file"]): row for row in rows}


@pytest.mark.slow
@pytest.mark.parametrize("section,path,expected", CLIPS, ids=[f"{s}/{p.stem}" for s, p, _ in CLIPS])
def test_golden_clip(results: dict[str, dict[str, object]], section: str, path: Path,
                     expected: str | None) -> None:
    row = results[str(path)]
    assert {"file", "text", "command", "by"} <= set(row)
    command = row["command"]
    if section == "known-misses":
        assert command is None or str(command).lower() == str(expected).lower(), row
    elif expected is None:
        assert command is None, f"chatter {path.stem!r} was heard as {row['text']!r}"
    else:
        assert isinstance(command, str) and command.lower() == expected.lower(), row


def test_every_compass_command_form_and_table_control_has_a_clip(compass_grammar) -> None:  # type: ignore[no-untyped-def]
    """The golden set covers each spoken Compass Code intent and every common control."""
    covered = {compass_grammar.parse(c).intent for section, _, c in CLIPS if c and section == "compass-code"}
    spoken = {f.intent for f in compass_grammar.forms if not f.typed_only}
    assert spoken - covered == set()


@pytest.mark.slow
def test_a_file_that_is_not_wav_is_one_clear_line(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.wav"
    bogus.write_text("not audio")
    done = _recognize([bogus])
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "is text, not a WAV file" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_broken_vosk_model_warns_once_and_pocketsphinx_answers(tmp_path: Path) -> None:
    """A directory of junk as VOSK_MODEL_PATH: one warning, then the default recognizer."""
    junk = tmp_path / "model"
    (junk / "am").mkdir(parents=True)
    (junk / "README").write_text("not a model")
    clip = next(path for _, path, c in CLIPS if c == "send NESW")
    done = _recognize([clip], env={**os.environ, "VOSK_MODEL_PATH": str(junk)})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["command"] == "send NESW"
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "is not a Vosk model" in lines[0] and "using pocketsphinx" in lines[0]


@pytest.mark.slow
def test_a_44k1_stereo_recording_is_resampled_and_recognized(tmp_path: Path) -> None:
    import wave

    import numpy as np

    from facilitator.speech.audio.devices import Resampler, read_wav

    clip = next(path for _, path, c in CLIPS if c == "check W 3")
    mono = np.frombuffer(read_wav(clip), dtype="<i2").astype(float)
    up = Resampler(16000, 44100).process(np.concatenate([mono, np.zeros(64)]))
    stereo = np.stack([up, up * 0.8], axis=1).astype("<i2")
    path = tmp_path / "is_west_in_position_three_44k1_stereo.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(44100)
        w.writeframes(stereo.tobytes())
    done = _recognize([path])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["command"] == "check W 3"


@pytest.mark.slow
def test_an_empty_vosk_model_directory_given_by_flag_falls_back(tmp_path: Path) -> None:
    clip = next(path for _, path, c in CLIPS if c == "yes")
    done = _recognize([clip], extra=("--vosk-model", str(tmp_path)))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["command"] == "yes"
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "missing am/final.mdl" in lines[0] and "Traceback" not in done.stderr
