"""The recognition corpus: every game's commands and table chatter, said by espeak-ng voices.

``build(directory, quick)`` regenerates ``benchmarks/corpus/`` (gitignored):

* ``clean/*.wav``: one clip per (phrase, voice, rate), 16 kHz mono, silence
  trimmed to 0.15 s each side (as the golden clips are);
* ``noise/babble-N.wav``: four babble talkers, each a run of other table talk in
  voices not used for the clips, to be overlapped (``mix``);
* ``manifest.json``: per clip its game, transcript, wanted command (``""`` for
  chatter), voice, rate and whether the voice is held out (never used to tune).

Commands are sampled from the grammars at run time (all commands that exist when
it runs): for each game, up to ``PER_INTENT`` spoken phrases of every game intent
(drawn with a fixed seed) and one phrase of every table control.  Each phrase is
said by ``TUNING_PER_PHRASE`` tuning voices (espeak-ng) in turn and one held-out
voice (espeak-ng, or the flite engine when installed), the rate cycling through
``RATES``.  Noise is mixed at run time with a seed per clip
(``mix``), so the noisy conditions are reproducible without storing them.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from facilitator.command import Command
from facilitator.games import find_game
from facilitator.grammar import load_grammar
from facilitator.speech.audio.devices import read_wav, write_wav

GAMES = ("compass-code", "two-windows", "lantern-links", "clover")
#: voices the recognizer was tuned on (golden clips, held-out runs of the speech work)
TUNING_VOICES = ("en-us", "en-gb", "en-us+f3", "en-gb-x-rp", "en-us+m3", "en-029")
#: voices no tuning decision looked at; reported separately.  ``flite:NAME`` is a voice
#: of the flite engine (Debian package ``flite``), used when it is installed
ESPEAK_HELD_OUT = ("en-gb-scotland", "en-us+f5", "en-gb-x-gbcwmd")
FLITE_HELD_OUT = ("flite:slt", "flite:rms", "flite:awb")
HELD_OUT_VOICES = ESPEAK_HELD_OUT + FLITE_HELD_OUT
#: babble talkers: voices used for neither the clips nor the held-out set
BABBLE_VOICES = ("en-gb-x-gbclan", "en-us+m5", "en-us+f2", "en-us-nyc")
RATES = (140, 165, 190)
PER_INTENT = 5
PER_INTENT_QUICK = 2
TUNING_PER_PHRASE = 3
SAMPLE_RATE = 16_000
MARGIN_SECONDS = 0.15
PAD_SECONDS = 0.3  # noise before and after a clip, as the endpointer's padding holds

#: ordinary table talk; the second half holds command words on purpose
CHATTER = (
    "is it my turn", "no I meant the other one", "pass the crisps", "pass the crisps please",
    "whose turn is it", "can you pass the water", "hold on a second", "let me think about it",
    "that was really close", "good game everyone", "shall we order pizza", "what time is it",
    "i love this game", "my phone is ringing", "wait what did he say", "do you want another drink",
    "i think it is north", "send it to me later", "check the oven", "yes I think so too",
    "no way that is not fair", "turn the music down", "read it again slowly", "is it south or west",
    "play something else after this", "the card on the left", "that's the final answer i reckon",
    "we should commit to this one", "more crisps anyone", "stop talking and listen",
)
#: what the babble talkers say (never used as chatter clips)
BABBLE_LINES = (
    "so anyway we went down to the coast last weekend and the weather was lovely",
    "i told him the meeting was on thursday but he never turned up",
    "have you tried the new bakery on the corner they do great bread",
    "my sister is moving house again this is the third time this year",
    "the train was late so i missed the start of the film",
    "we really should book the holiday before the prices go up",
    "she said the garden needs a lot of work before the summer",
    "i can never remember where i parked the car at the station",
)


@dataclass(frozen=True)
class Clip:
    """One clean clip of the corpus."""

    file: str
    game: str
    text: str
    want: str        # canonical command, "" for chatter
    intent: str      # "" for chatter
    voice: str
    rate: int
    held_out: bool


def sample_phrases(game: str, per_intent: int, rng: random.Random) -> list[tuple[str, Command]]:
    """Up to ``per_intent`` spoken phrases of each of ``game``'s own intents and one of each control."""
    grammar = load_grammar(game)
    lists = find_game(game).recognition_lists() or None
    by_intent: dict[str, list[tuple[str, Command]]] = {}
    for phrase in grammar.spoken_phrases(lists=lists):
        parsed = grammar.parse(phrase, typed=False, lists=lists)
        if isinstance(parsed, Command):
            by_intent.setdefault(parsed.intent, []).append((phrase, parsed))
    out: list[tuple[str, Command]] = []
    for intent in sorted(by_intent):
        pool = by_intent[intent]
        # release seat is a screens control with many numbered forms: one is enough
        take = 1 if intent in grammar.common_intents else per_intent
        out += rng.sample(pool, min(take, len(pool)))
    return out


def held_out_voices() -> tuple[str, ...]:
    """The held-out voices this machine can synthesize (flite's only when it is installed)."""
    return HELD_OUT_VOICES if shutil.which("flite") else ESPEAK_HELD_OUT


def _say(text: str, voice: str, rate: int, out: Path, tmp: Path) -> None:
    raw = tmp / "raw.wav"
    if voice.startswith("flite:"):
        # flite speaks about 165 words a minute; duration_stretch scales its durations
        command = ["flite", "-voice", voice.split(":", 1)[1], "--setf", f"duration_stretch={165 / rate:.3f}",
                   "-t", text, "-o", str(raw)]
    else:
        command = ["espeak-ng", "-v", voice, "-s", str(rate), "-w", str(raw), text]
    subprocess.run(command, check=True, capture_output=True)
    write_wav(out, trim(read_wav(raw)))


def trim(pcm: bytes) -> bytes:
    """``pcm`` with leading and trailing silence cut to ``MARGIN_SECONDS``."""
    samples = np.frombuffer(pcm, dtype="<i2")
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    if not len(loud):
        return pcm
    margin = int(MARGIN_SECONDS * SAMPLE_RATE)
    return samples[max(0, loud[0] - margin): min(len(samples), loud[-1] + margin)].tobytes()


def build(directory: Path, quick: bool = False, log: bool = True) -> list[Clip]:
    """Regenerate the corpus in ``directory``; return its clips."""
    clean, noise = directory / "clean", directory / "noise"
    for folder in (clean, noise):
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.wav"):
            old.unlink()
    rng = random.Random(4)
    per_intent = PER_INTENT_QUICK if quick else PER_INTENT
    tuning_each = 1 if quick else TUNING_PER_PHRASE
    clips: list[Clip] = []
    held_out = held_out_voices()
    if held_out != HELD_OUT_VOICES:
        print("flite is not installed: held-out voices are espeak-ng's only", file=sys.stderr)
    turn = 0
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        items: list[tuple[str, str, str, str]] = []
        for game in GAMES:
            items += [(game, phrase, cmd.canonical, cmd.intent) for phrase, cmd in sample_phrases(game, per_intent, rng)]
        chatter = CHATTER[::3] if quick else CHATTER
        items += [("chatter", line, "", "") for line in chatter]
        for game, text, want, intent in items:
            voices = [(TUNING_VOICES[(turn + k) % len(TUNING_VOICES)], False) for k in range(tuning_each)]
            voices.append((held_out[turn % len(held_out)], True))
            for k, (voice, held) in enumerate(voices):
                rate = RATES[(turn + k) % len(RATES)]
                name = f"{len(clips):05d}.wav"
                _say(text, voice, rate, clean / name, tmp)
                clips.append(Clip(name, game, text, want, intent, voice, rate, held))
            turn += 1
        for k, talk in enumerate(babble_talk(tmp)):
            write_wav(noise / f"babble-{k}.wav", talk)
    (directory / "manifest.json").write_text(
        json.dumps([asdict(c) for c in clips], indent=0), encoding="utf-8")
    if log:
        print(f"corpus: {len(clips)} clips ({sum(1 for c in clips if not c.want)} chatter) in {directory.name}/",
              file=sys.stderr)
    return clips


def _synth(text: str, voice: str, tmp: Path) -> bytes:
    raw = tmp / "babble.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", "170", "-w", str(raw), text], check=True,
                   capture_output=True)
    return read_wav(raw)


def babble_talk(tmp: Path) -> list[bytes]:
    """The babble talkers' tracks: each voice says every babble line, starting at a different one."""
    return [b"".join(trim(_synth(line, voice, tmp)) for line in BABBLE_LINES[k:] + BABBLE_LINES[:k])
            for k, voice in enumerate(BABBLE_VOICES)]


def load(directory: Path) -> list[Clip]:
    """The clips of a corpus built before."""
    return [Clip(**row) for row in json.loads((directory / "manifest.json").read_text(encoding="utf-8"))]


# -- noise -------------------------------------------------------------------------------
def active_power(voice: np.ndarray) -> float:
    """Mean power of the speech-active 10 ms frames (within 30 dB of the loudest frame)."""
    count = len(voice) // 160
    frames = voice[: count * 160].reshape(count, 160)
    power = np.mean(frames**2, axis=1)
    active = power[power >= power.max() / 1000.0]
    return float(np.mean(active))


def babble_tracks(directory: Path) -> list[np.ndarray]:
    return [np.frombuffer(read_wav(p), dtype="<i2").astype(np.float64)
            for p in sorted((directory / "noise").glob("babble-*.wav"))]


def mix(pcm: bytes, kind: str, snr_db: float, seed: int, babble: list[np.ndarray]) -> tuple[bytes, float]:
    """``pcm`` padded by ``PAD_SECONDS`` and mixed with ``kind`` noise at ``snr_db``.

    ``kind`` is ``clean`` (padding only, digital silence), ``white`` or ``babble``
    (every babble talker at once, each from a random point).  Returns the mix and
    its measured SNR: the clip's speech-active power over the noise's power, after
    clipping to int16.
    """
    voice = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    pad = np.zeros(int(PAD_SECONDS * SAMPLE_RATE))
    voice = np.concatenate([pad, voice, pad])
    if kind == "clean":
        return voice.astype("<i2").tobytes(), float("inf")
    rng = np.random.default_rng(seed)
    if kind == "white":
        noise = rng.normal(0.0, 1.0, len(voice))
    else:
        noise = np.zeros(len(voice))
        for talk in babble:
            while len(talk) <= len(voice):
                talk = np.concatenate([talk, talk])
            start = int(rng.integers(0, len(talk) - len(voice)))
            noise += talk[start: start + len(voice)]
    speech = active_power(voice)
    noise *= np.sqrt(speech / np.mean(noise**2) / 10 ** (snr_db / 10))
    mixed = np.clip(np.round(voice + noise), -32768, 32767)
    measured = 10 * np.log10(speech / np.mean((mixed - voice) ** 2))
    return mixed.astype("<i2").tobytes(), float(measured)
