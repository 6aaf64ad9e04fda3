"""A runner's noise floor comes from the A/A pairs of the same topic first: a noisy pair of
one topic (serving_formats, keras=2) must not widen another topic's verdicts (predict_vs_call,
keras=2)."""

from __future__ import annotations

import pytest

from tfperf.analyse.judge.scenarios import ASSUMED_NOISE, noise_floor
from tfperf.analyse.records import Noise


def _n(case_id: str, rel: float, runner: str = "r") -> Noise:
    return Noise(runner=runner, settings_id=case_id.split("/")[2], rel_noise=rel, case_id=case_id, time="")


RECORDS = [_n("predict_vs_call/batch=32/keras=2/call", 0.14), _n("predict_vs_call/batch=32/keras=3/call", 0.21),
           _n("serving_formats/batch=8/keras=2/keras", 0.41), _n("xla_jit/batch=8/default/eager", 0.16)]


def test_same_topic_and_settings_first() -> None:
    nf = noise_floor(RECORDS, "r", "keras=2", "predict_vs_call")
    assert nf.value == pytest.approx(0.14) and "predict_vs_call" in nf.basis


def test_then_the_same_topic() -> None:
    # serving_formats has no keras=3 pair: its own keras=2 pair, not predict_vs_call's keras=3 one
    assert noise_floor(RECORDS, "r", "keras=3", "serving_formats").value == pytest.approx(0.41)
    # a topic without pairs falls back to the settings group, then the runner
    assert noise_floor(RECORDS, "r", "keras=2", "train_step").value == pytest.approx(0.41)
    assert noise_floor(RECORDS, "r", "eager=on", "train_step").value == pytest.approx(0.41)
    assert noise_floor(RECORDS, "other", "keras=2", "train_step").value == ASSUMED_NOISE


def test_without_topic_as_before() -> None:
    assert noise_floor(RECORDS, "r", "keras=2").value == pytest.approx(0.41)
