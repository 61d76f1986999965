"""The bearing of an utterance at a microphone array (``facilitator/speech/voices/direction.py``).

A plane wave made by exact delays checks the geometry's sign and layout; real speech
(espeak-ng) rendered through a simulated room's responses to every microphone
(pyroomacoustics: 5 x 4 x 2.6 m, 0.55-0.65 s of reverberation, the seats 0.7-0.9 m
away) checks the bearing against where the seat is, and against pyroomacoustics' own
NormMUSIC on the same channels.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from speakers.plane_waves import plane_wave

from facilitator.speech.voices.direction import (
    GEOMETRIES,
    SOUND_SPEED,
    apart,
    find_geometry,
    finder,
    toward,
)


def test_known_arrays_and_positions_in_millimetres() -> None:
    hat = find_geometry("ReSpeaker-4mic-HAT")
    assert hat.channels == (0, 1, 2, 3) and hat.input_channels == 4
    # opposite microphones (0 and 2, 1 and 3) 81.2 mm apart, as Seeed's own direction code has them
    across = np.hypot(hat.positions_mm[0][0] - hat.positions_mm[2][0], hat.positions_mm[0][1] - hat.positions_mm[2][1])
    assert across == pytest.approx(81.2) and hat.positions_mm[1] == (0.0, 40.6)
    usb_mics = find_geometry("respeaker-usb-v2").positions_mm
    assert usb_mics == ((-32.0, 0.0), (0.0, -32.0), (32.0, 0.0), (0.0, 32.0))
    usb = find_geometry("respeaker-usb-v2")
    assert usb.channels == (1, 2, 3, 4) and usb.voice_channel == 0 and usb.input_channels == 5
    assert find_geometry("ps3-eye").linear and not hat.linear
    own = find_geometry("-20,0; 20,0; 0,30")
    assert own.positions_mm == ((-20.0, 0.0), (20.0, 0.0), (0.0, 30.0)) and own.channels == (0, 1, 2)


@pytest.mark.parametrize(("text", "says"), [
    ("respeaker", "unknown microphone array 'respeaker': one of respeaker-4mic-hat"),
    ("10,0", "at least two positions"),
    ("0,0; 0,0", "two microphones at one position"),
    ("0,0; ten,0", "microphone position 'ten,0'"),
    ("0,0; 900,0", "900 mm apart"),
])
def test_a_bad_array_is_refused_with_a_reason(text: str, says: str) -> None:
    with pytest.raises(ValueError) as caught:
        find_geometry(text)
    assert says in str(caught.value)


@pytest.mark.parametrize("name", ["respeaker-4mic-hat", "respeaker-usb-v2"])
@pytest.mark.parametrize("degrees", [0.0, 37.0, 135.0, 200.0, 311.0])
def test_a_plane_wave_is_found_where_it_came_from(name: str, degrees: float) -> None:
    geometry = GEOMETRIES[name]
    found = finder(geometry).bearing(plane_wave(geometry, degrees))
    assert found is not None
    assert apart(found.degrees, degrees) <= 2.0
    assert found.clarity > 3.0


def test_a_line_of_microphones_folds_front_onto_back() -> None:
    eye = GEOMETRIES["ps3-eye"]
    front = finder(eye).bearing(plane_wave(eye, 60.0))
    back = finder(eye).bearing(plane_wave(eye, 300.0))
    assert front is not None and back is not None
    assert apart(front.degrees, 60.0) <= 3.0 and apart(back.degrees, 60.0) <= 3.0


def test_silence_and_a_wrong_channel_count() -> None:
    hat = GEOMETRIES["respeaker-4mic-hat"]
    assert finder(hat).bearing(np.zeros((4, 16000))) is None
    assert finder(hat).bearing(np.ones((4, 100))) is None
    with pytest.raises(ValueError, match="respeaker-4mic-hat has 4 microphones, not 2 channel"):
        finder(hat).bearing(np.ones((2, 16000)))


def test_angles_wrap_around_north() -> None:
    assert apart(350.0, 10.0) == pytest.approx(20.0)
    assert toward(350.0, 10.0, 0.5) == pytest.approx(0.0)
    assert toward(10.0, 350.0, 0.25) == pytest.approx(5.0)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
@pytest.mark.parametrize("name", ["respeaker-4mic-hat", "respeaker-usb-v2"])
def test_speech_in_a_reverberant_room_is_found_at_its_seat_as_pyroomacoustics_finds_it(name: str) -> None:
    pra = pytest.importorskip("pyroomacoustics")
    from benchmarks.session.array_room import Table

    from .voices import say

    geometry = GEOMETRIES[name]
    table = Table(geometry, seats=4, seed=7)
    assert 0.55 <= (table.rt60 or 0) <= 0.65
    line = say("espeak:en-us+f3", "send north east south west")
    mics = table.microphones()[:2]
    for seat in range(1, 5):
        heard = table.seat_says(seat, line)
        ours = finder(geometry).bearing(heard)
        assert ours is not None
        assert apart(ours.degrees, table.seat_bearing(seat)) <= 12.0, (seat, ours)
        stft = np.array([pra.transform.stft.analysis(c, 512, 256).T for c in heard])
        theirs = pra.doa.algorithms["NormMUSIC"](mics - mics.mean(axis=1, keepdims=True), 16000, 512,
                                                 c=SOUND_SPEED, num_src=1)
        theirs.locate_sources(stft, freq_range=[300, 3500])
        assert apart(ours.degrees, float(np.degrees(theirs.azimuth_recon[0]))) <= 8.0


def test_a_seat_is_named_by_direction_only_when_the_direction_is_sure() -> None:
    from facilitator.speech.voices.direction import Bearing
    from facilitator.speech.voices.seats import adapted, seat_of, too_close

    seats = {1: 10.0, 2: 130.0, 3: 250.0}
    assert seat_of(Bearing(355.0, 3.0), seats) == 1              # across north
    assert seat_of(Bearing(70.0, 3.0), seats) is None            # between two seats
    assert seat_of(Bearing(10.0, 1.1), seats) is None            # a flat spectrum says nothing
    assert seat_of(None, seats) is None
    assert seat_of(Bearing(60.0, 3.0), {1: 50.0, 2: 75.0}) is None   # the next seat is too near too
    # a player leaning: the seat's bearing follows a quarter of the way
    assert adapted(10.0, Bearing(30.0, 3.0)) == pytest.approx(15.0)
    assert too_close({1: 10.0, 2: 40.0, 3: 200.0}) == [(1, 2, pytest.approx(30.0))]


def test_the_seats_bearings_are_kept_with_the_voices_and_a_bad_one_is_set_aside(tmp_path: object) -> None:
    import json
    from pathlib import Path

    from facilitator.speech.voices.voiceprints import Voiceprints

    assert isinstance(tmp_path, Path)
    path = tmp_path / "game.jsonl.voices"
    prints = Voiceprints(path, "g1")
    prints.add(1, None, bearing=370.5)
    prints.add(2, None, bearing=181.0)
    prints.move(2, 190.0)
    again = Voiceprints(path, "g1")
    assert again.bearings == {1: pytest.approx(10.5), 2: pytest.approx(190.0)}
    assert again.enrolled(1) and again.enrolled(2) and not again.enrolled(3)
    kept = json.loads(path.read_text())
    kept["bearings"]["2"] = "north"
    path.write_text(json.dumps(kept))
    broken = Voiceprints(path, "g1")
    assert broken.bearings == {1: pytest.approx(10.5)}
    assert broken.problem is not None and "seat 2's bearing ('north' is not a number of degrees)" in broken.problem


def test_the_combined_rule_direction_first_then_asked_by_name() -> None:
    from facilitator.speech.voices.seats import combined_rule

    captain = frozenset({1})
    bearings = {1: 30.0, 2: 150.0}
    like_2 = {1: 0.1, 2: 0.8}               # the voice is clearly seat 2's
    unsure = {1: 0.5, 2: 0.52}
    assert combined_rule(2, unsure, captain, bearings) == "refuse"        # the direction is sure
    assert combined_rule(1, like_2, captain, bearings) == "take"          # ... and decides first
    # the direction unsure (between seats, flat): never a guess, the one owner is asked by name,
    # whatever the voice says (two seats may have alike voices) and in the light mode too
    assert combined_rule(None, like_2, captain, bearings) == "ask"
    assert combined_rule(None, unsure, captain, bearings) == "ask"
    assert combined_rule(None, {}, captain, bearings) == "ask"
    assert combined_rule(None, {1: 0.05, 2: 0.1}, captain, bearings) == "chatter"   # a stranger still
    # more seats may give it (Clover's free moves): the voice decides as without an array
    assert combined_rule(None, {**like_2, 3: 0.1}, frozenset({1, 3}), {**bearings, 3: 270.0}) == "refuse"
    assert combined_rule(None, {}, frozenset({1, 3}), {**bearings, 3: 270.0}) == "take"
    assert combined_rule(2, {}, captain, bearings) == "refuse"            # the light mode, sure
    assert combined_rule(2, {1: 0.05, 2: 0.1}, captain, bearings) == "chatter"   # a voice no seat has
    assert combined_rule(2, like_2, None, bearings) == "take"             # anyone's command
    # the captain enrolled with no sure bearing: the voice decides, not the direction
    assert combined_rule(2, unsure, captain, {2: 150.0}) == "take"
    assert combined_rule(2, like_2, captain, {2: 150.0}) == "refuse"


def test_an_answer_to_a_question_by_name_counts_only_from_that_seats_place() -> None:
    from facilitator.speech.voices.direction import Bearing
    from facilitator.speech.voices.seats import answer_from

    seats = {1: 30.0, 2: 150.0, 3: 270.0}
    assert answer_from(Bearing(38.0, 1.6), 1, seats)                 # Ann's place, a short clear yes
    assert answer_from(Bearing(52.0, 1.15), 1, seats)                # less clear, still nearest Ann
    assert not answer_from(Bearing(148.0, 3.0), 1, seats)            # Ben's place: not Ann's yes
    assert not answer_from(Bearing(90.0, 3.0), 1, seats)             # between them: nobody's
    assert not answer_from(Bearing(30.0, 1.02), 1, seats)            # a flat spectrum says nothing
    assert not answer_from(None, 1, seats)                           # no direction at all
    assert not answer_from(Bearing(30.0, 3.0), 4, seats)             # a seat with no place
