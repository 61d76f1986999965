"""The enrollment rule (``voices/enrolment.py``): a line offered as a seat's is that seat's only
when it comes from no other enrolled seat's place (issue 48)."""

from __future__ import annotations

from facilitator.speech.voices.enrolment import Clash, Placed, Placing, place

OTHERS = {1: 0.0, 2: 90.0}   # Ann at 0 degrees, Ben at 90; Dan (4) is asked


def placed(bearing: float | None, *, clash: Clash | None = None, remapped: frozenset[frozenset[int]] = frozenset(),
           at_array: bool = True, voice_of: int | None = None) -> Placed:
    return place(at_array=at_array, bearing=bearing, voice_of=voice_of, others=OTHERS, clash=clash,
                 remapped=remapped, asked=4)


def test_a_line_from_its_own_place_is_taken() -> None:
    assert placed(270.0) == Placed(Placing.TAKE)
    assert placed(180.0).kind is Placing.TAKE                  # 90 degrees from both: far enough


def test_a_line_from_another_seats_place_is_that_seat_and_the_seat_is_asked_again() -> None:
    # the line after Dan's lost one: Ann's first command, 4 degrees off her seat
    got = placed(4.0)
    assert got.kind is Placing.OTHER and got.other == 1 and got.clash == Clash(1, 4.0)
    assert placed(112.0).kind is Placing.OTHER                  # within 25 degrees of Ben


def test_closer_than_the_array_separates_is_asked_again_then_kept() -> None:
    first = placed(35.0)                                        # 35 degrees from Ann: under 45
    assert first.kind is Placing.NEAR and first.other == 1
    assert placed(38.0, clash=first.clash).kind is Placing.CLOSE   # from there again: kept, and said


def test_twice_from_one_seats_place_the_seat_map_is_asked_again() -> None:
    first = placed(2.0)
    assert placed(358.0, clash=first.clash) == Placed(Placing.REMAP, 1)
    # from somewhere else the second time: a new clash, asked again
    assert placed(88.0, clash=first.clash).kind is Placing.OTHER
    # a pair asked again once already: what they say is kept as it is
    assert placed(2.0, clash=first.clash, remapped=frozenset({frozenset({1, 4})})).kind is Placing.CLOSE


def test_at_an_array_a_line_with_no_sure_bearing_is_asked_again() -> None:
    assert placed(None).kind is Placing.AGAIN


def test_without_an_array_the_voice_decides() -> None:
    assert placed(None, at_array=False) == Placed(Placing.TAKE)
    first = placed(None, at_array=False, voice_of=2)
    assert first.kind is Placing.OTHER and first.other == 2 and first.clash == Clash(2, None)
    # the same voice again: kept (two alike voices are said by name, never re-mapped)
    assert placed(None, at_array=False, voice_of=2, clash=first.clash).kind is Placing.CLOSE
