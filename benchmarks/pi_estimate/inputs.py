"""What is counted: the clips, the calibration sentences and the echo, in one place."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: committed golden clips of Compass Code (espeak-ng voices), long commands and short answers
CLIPS = [f"tests/audio/compass-code/{name}.wav" for name in (
    "send_north_east_south_west", "send_south_then_west_then_north_then_east", "guess_west_south_east_north",
    "is_west_in_position_three", "bearing_check_south_in_position_four", "one_anchor_and_two_clockwise_steps",
    "how_many_candidates", "read_the_candidates", "yes", "repeat")]

#: the echo the assistant says after a command, rendered as the product's espeak-ng fallback does
ECHO = "Send north east south west."
ESPEAK_ECHO = ["espeak-ng", "-s", "165", "-a", "100"]   # tts.Synthesizer._with_program, default VoiceSettings
#: sentences in one espeak-ng run for the cost of a sentence once the voice is loaded (the pyttsx3 worker's case)
ECHO_REPEATS = 10

#: the calibration's sentences, made with espeak-ng (en-us): name -> (words per minute, word gap, text).
#: "cv*" stand for Common Voice sentences (about 10-13 words, 4 to 5 s); "file-3.5s" and
#: "file-11s" for the two files of faster-whisper issue 38 (a 3.5 s file, and an 11 s one: the
#: same sentence as whisper.cpp's and openai-whisper's 11 s sample, jfk.wav).
CALIBRATION = {
    "cv1": (150, 0, "The old lighthouse on the northern cliff was painted white every spring."),
    "cv2": (150, 0, "She carried the letters to the station before the morning train arrived."),
    "cv3": (150, 0, "Most of the village gardens were planted with beans, onions and potatoes."),
    "cv4": (150, 0, "The museum closed early because the heating system had broken again."),
    "file-3.5s": (130, 0, "Please turn off the lights when you leave the room."),
    "file-11s": (130, 6, ("And so, my fellow Americans, ask not what your country can do for you; "
                          "ask what you can do for your country.")),
}


def make_calibration(directory: Path) -> list[Path]:
    """The calibration sentences as WAV files (espeak-ng's 22050 Hz) in ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name, (wpm, gap, text) in CALIBRATION.items():
        path = directory / f"{name}.wav"
        command = ["espeak-ng", "-v", "en-us", "-s", str(wpm)] + (["-g", str(gap)] if gap else [])
        subprocess.run(command + ["-w", str(path), text], check=True)
        out.append(path)
    return out


def make_echo(directory: Path) -> tuple[Path, Path]:
    """Text files of the echo once and ``ECHO_REPEATS`` times, one sentence a line (``espeak-ng -f``)."""
    directory.mkdir(parents=True, exist_ok=True)
    once, many = directory / "echo-1.txt", directory / f"echo-{ECHO_REPEATS}.txt"
    once.write_text(ECHO + "\n", encoding="utf-8")
    many.write_text((ECHO + "\n") * ECHO_REPEATS, encoding="utf-8")
    return once, many


#: the array whose bearings are counted (``facilitator.speech.voices.direction.GEOMETRIES``), and
#: how many utterances said at it (role commands and the enrollment line from each seat of a
#: simulated table: ``benchmarks/array_cost.py``)
ARRAY = "respeaker-4mic-hat"
ARRAY_UTTERANCES = 10


def make_array(directory: Path) -> Path:
    """Utterances said at a simulated array (``array_cost.utterances``) as ``array.npz``: (microphones,
    samples) int16 each, the bearing's input."""
    import numpy as np

    from benchmarks.array_cost import utterances

    directory.mkdir(parents=True, exist_ok=True)
    said = utterances(ARRAY)[:ARRAY_UTTERANCES]
    path = directory / "array.npz"
    np.savez(path, **{f"{k:03d}": np.clip(np.round(a), -32768, 32767).astype(np.int16) for k, a in enumerate(said)})
    return path
