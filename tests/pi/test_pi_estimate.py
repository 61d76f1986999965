"""The Raspberry Pi estimate (``benchmarks/pi_estimate/estimate.py``): counted instructions
turned into a board's seconds with a published timing of the same kind of run.

The arithmetic is checked on a record made up here, where every figure can be worked
by hand; the committed counts are checked to give the README's table."""

from __future__ import annotations

import math
from typing import Any

import pytest

from benchmarks.pi_estimate import estimate
from benchmarks.pi_estimate.__main__ import RAW


def _calibration(cpu: str, transcribe: float, encode: float) -> dict[str, Any]:
    """A calibration record: each input transcribed with ``transcribe`` instructions, of
    which one 30 s encoder pass is ``encode``."""
    names = ["cv1", "file-3.5s", "file-11s"]
    marks = []
    for k in range(len(names)):
        marks += [["transcribe", k, transcribe], ["encode-30s", k, encode]]
    return {"cpu": cpu, "run": "calibration", "inputs": [f"{n}.wav" for n in names], "marks": marks}


def test_one_cores_rate_is_the_published_rate_over_the_four_thread_speedup() -> None:
    record = _calibration("cortex-a72", transcribe=10e9, encode=7.5e9)
    model = estimate.Model([record], "cortex-a72")
    assert model.f_enc == pytest.approx(0.75)
    # the Pi 4's centre figure is 3.4 s for a "cv" sentence: 10 G / 3.4 s at four threads
    assert model.rate_centre == pytest.approx(10e9 / 3.4)
    centre = model.corners()[0]
    # one kind of code (kind 1): the mix's rate is the published rate over the four-thread speedup
    one_kind = {**centre, "kind": 1.0}
    s4 = 1 / (0.75 / estimate.SPEEDUP["enc"][1] + 0.25 / estimate.SPEEDUP["dec"][1])
    assert model.rate1(one_kind) == pytest.approx(10e9 / 3.4 / s4)


def test_the_encoder_and_the_decoder_each_take_the_calibration_at_their_own_rate() -> None:
    model = estimate.Model([_calibration("cortex-a72", transcribe=10e9, encode=7.5e9)], "cortex-a72")
    c = model.corners()[0]
    assert model.rate_enc(c) == pytest.approx(estimate.KIND_RATIO[1] * model.rate_dec(c))
    # the published 3.4 s are the encoder's 7.5 G and the decoder's 2.5 G at their rates and speedups
    published = (7.5e9 / (model.rate_enc(c) * estimate.SPEEDUP["enc"][1])
                 + 2.5e9 / (model.rate_dec(c) * estimate.SPEEDUP["dec"][1]))
    assert published == pytest.approx(3.4)
    # and the mix's one-core rate is the calibration's instructions over its one-thread seconds
    assert model.rate1(c) == pytest.approx(10e9 / (7.5e9 / model.rate_enc(c) + 2.5e9 / model.rate_dec(c)))


def test_a_stage_takes_its_instructions_at_its_own_kind_of_rate() -> None:
    model = estimate.Model([_calibration("cortex-a72", transcribe=10e9, encode=7.5e9)], "cortex-a72", numpy=1.25)
    c = model.corners()[0]
    enc, dec, mix = model.rate_enc(c), model.rate_dec(c), model.rate1(c)
    assert model.seconds("encode", 1e9, c) == pytest.approx(1e9 / (enc * estimate.SPEEDUP["enc"][1]))
    assert model.seconds("encode", 1e9, c, threads=1) == pytest.approx(1e9 / enc)
    assert model.seconds("n-best", 1e9, c) == pytest.approx(1e9 / (dec * estimate.SPEEDUP["dec"][1]))
    # the one pass is NumPy on one BLAS thread: the decoder's rate times the NumPy ratio, never four threads
    assert model.seconds("scoring", 1e9, c) == pytest.approx(1e9 / (dec * 1.25))
    assert model.seconds("scoring", 1e9, c, threads=1) == pytest.approx(1e9 / (dec * 1.25))
    assert model.seconds("bearing", 1e9, c) == pytest.approx(1e9 / (dec * 1.25))
    assert model.seconds("decide", 1e9, c) == pytest.approx(1e9 / mix)          # Python: one thread
    assert model.seconds("pocketsphinx", 1e9, c) == pytest.approx(1e9 / (mix * estimate.SCALAR_IPC[1]))
    assert model.seconds("end-check", 1e9, c) == pytest.approx(1e9 / (mix * estimate.SCALAR_IPC[1]))
    # the checks before the last: 1.2 a command at the centre (the last one is the end check)
    assert model.seconds("early-check", 1e9, c) == pytest.approx(
        (estimate.CHECKS[1] - 1) * 1e9 / (mix * estimate.SCALAR_IPC[1]))


def test_a_stage_the_record_names_is_converted_at_the_kind_it_names() -> None:
    """Adding a stage to the count is one entry in the workload: its record carries its kind."""
    record = {"result": {"stages": {"meaning": {"kind": "numpy", "name": "the meaning stage", "when": "unparsed"}}}}
    kinds = estimate.stage_kinds(record)
    assert kinds["meaning"] == ("numpy", 1, "the meaning stage")
    model = estimate.Model([_calibration("cortex-a72", transcribe=10e9, encode=7.5e9)], "cortex-a72",
                           numpy=0.8, kinds=kinds)
    c = model.corners()[0]
    assert model.seconds("meaning", 1e9, c) == pytest.approx(1e9 / (model.rate_dec(c) * 0.8))
    with pytest.raises(ValueError, match="unknown kind"):
        estimate.Model([_calibration("cortex-a72", transcribe=10e9, encode=7.5e9)], "cortex-a72",
                       kinds=estimate.stage_kinds({"result": {"stages": {"x": {"kind": "gpu", "name": "x"}}}})
                       ).seconds("x", 1.0, c)


def test_the_range_holds_the_centre_and_widens_with_the_assumptions() -> None:
    model = estimate.Model([_calibration("cortex-a72", transcribe=10e9, encode=7.5e9)], "cortex-a72")
    stages = {"pocketsphinx": 1e9, "early-check": 1e9, "scoring": 2e9}
    centre, low, high = model.spread(stages)
    assert low < centre < high
    # the slowest corner: the lowest published rate, scalar IPC and decoder speedup, the most checks
    slowest = {"rate": model.rate_range[0], "s_enc": 3.5, "s_dec": 1.0, "ipc": estimate.SCALAR_IPC[0],
               "kind": estimate.KIND_RATIO[0], "numpy": model.numpy * estimate.NUMPY_SPREAD[0],
               "checks": estimate.CHECKS[2]}
    assert high >= sum(model.seconds(s, n, slowest) for s, n in stages.items()) * (1 - 1e-9)


def test_the_committed_counts_give_both_boards_and_the_totals() -> None:
    text = estimate.report(estimate.load(RAW["aarch64"]), estimate.load(RAW["x86_64"]))
    assert "no aarch64 counts" not in text
    assert "No Cortex-A76 counts" not in text   # the Pi 5 has counts of its own
    totals = [line for line in text.splitlines() if line.startswith("| **")]
    assert [line.split("**")[1].split(" (")[0] for line in totals] == [
        "the fast path", "to the echo", "to a verified application", "the CPU a command pays",
        "to the echo with voices enrolled at an array", "to a verified application with voices enrolled at an array"]
    for line in totals:
        cells = [c.strip() for c in line.strip("|").split("|")[1:3]]   # Pi 4, Pi 5 (four threads)
        seconds = [float(c.split()[0]) * (1.0 if c.split()[1] == "s" else 0.001) for c in cells]
        assert all(math.isfinite(s) and s > 0 for s in seconds)
        assert seconds[1] < seconds[0], f"a Pi 5 is faster than a Pi 4: {line}"


def test_counts_from_before_the_int8_pass_and_the_end_check_are_reported_stale() -> None:
    records = estimate.load(RAW["aarch64"])
    recognition = [r for r in records if r["run"] == "recognition"]
    assert recognition and not any(estimate.stale(r) for r in recognition)   # the committed counts
    assert "Stale counts" not in estimate.report(records, [])
    older = [{**r, "result": {**r["result"], "weights": None}} if r["run"] == "recognition" else r
             for r in records]
    assert all(estimate.stale(r) for r in older if r["run"] == "recognition")
    assert "Stale counts" in estimate.report(older, [])
