"""Output gating across settings groups (no TensorFlow): the baseline settings' reference
saved by one worker and checked by another; a reference too flat to tell right from
wrong is refused; a slightly perturbed output fails the gate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tfperf.measure.worker import outputs
from tfperf.measure.worker.serve import Worker
from tfperf.measure.worker.timing import Timing

TOL = {"rtol": 1e-4, "atol": 1e-5}


def _timing(out: Any) -> Timing:
    return Timing(first_call_s=0.1, first_output=out, warmup_calls=1, warmup_s=0.1, inner_loops=1)


def _case(case_id: str, is_reference: bool, **extra: Any) -> dict[str, Any]:
    return {"case_id": case_id, "is_reference": is_reference, "slot": "t|n=1|" + case_id.split("/")[2],
            "tolerance": TOL, "reference_id": None, **extra}


def logits(seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).normal(size=(8, 10)).astype(np.float32)


def test_saved_reference_round_trips_nested_outputs(tmp_path: Path) -> None:
    out = {"b": [np.arange(3.0), (np.ones((2, 2)),)], "a": np.float32(0.5)}
    outputs.save(out, tmp_path / "ref.npz")
    loaded = outputs.load(tmp_path / "ref.npz")
    assert outputs.compare(out, loaded, 0.0, 0.0)["within_tolerance"] is True
    assert outputs.compare({**out, "a": np.float32(0.6)}, loaded, 1e-4, 1e-5)["within_tolerance"] is False


def test_another_group_is_checked_against_the_baseline_output_not_its_own(tmp_path: Path) -> None:
    ref = logits()
    baseline, other = Worker(channel=None), Worker(channel=None)  # two processes in real life
    path = tmp_path / "baseline-output.npz"
    own = baseline._check_output(_case("t/n=1/onednn=1/call", True, save_reference=str(path)), _timing(ref))
    assert own["note"] == "reference" and own["compared_with"] == "t/n=1/onednn=1/call" and path.exists()
    compare_with = {"path": str(path), "case_id": "t/n=1/onednn=1/call"}
    # The other group's own reference variant: compared with the baseline, not with itself.
    same = other._check_output(_case("t/n=1/onednn=0/call", True, compare_with=compare_with), _timing(ref + 1e-7))
    assert same["within_tolerance"] is True and same["compared_with"] == "t/n=1/onednn=1/call"
    assert same["note"] is None
    # A settings group whose kernels compute a slightly different model fails the gate.
    perturbed = ref * 1.001
    bad = other._check_output(_case("t/n=1/onednn=avx2/call", True, compare_with=compare_with), _timing(perturbed))
    assert bad["within_tolerance"] is False and bad["max_rel_diff"] == pytest.approx(1e-3, rel=1e-2)


def test_without_a_baseline_file_a_group_falls_back_to_its_own_reference() -> None:
    w = Worker(channel=None)
    w._check_output(_case("t/n=1/keras=2/ref", True), _timing(logits()))
    got = w._check_output(_case("t/n=1/keras=2/other", False, reference_id="t/n=1/keras=2/ref"), _timing(logits()))
    assert got["within_tolerance"] is True and got["compared_with"] == "t/n=1/keras=2/ref"


def test_a_missing_baseline_file_is_a_reference_failure_not_a_crash(tmp_path: Path) -> None:
    w = Worker(channel=None)
    got = w._check_output(_case("t/n=1/x=1/a", False, compare_with={"path": str(tmp_path / "gone.npz"),
                                                                    "case_id": "t/n=1/x=0/a"}), _timing(logits()))
    assert got["within_tolerance"] is None and got["note"].startswith("reference failed")


def test_a_reference_that_barely_varies_is_refused() -> None:
    # MobileNetV3Small's old check: the softmax of near-zero logits, 1/1000 everywhere.
    flat = np.full((4, 1000), 1e-3, dtype=np.float32) + np.random.RandomState(0).normal(0, 1e-9, (4, 1000))
    assert outputs.barely_varies(flat, **TOL) is not None
    assert outputs.barely_varies(logits(), **TOL) is None
    assert outputs.barely_varies(np.float32(0.69), **TOL) is None        # one loss: nothing to spread
    w = Worker(channel=None)
    ref = w._check_output(_case("t/n=1/a=1/ref", True), _timing(flat))
    assert ref["within_tolerance"] is True and "barely varies" in ref["note"]
    # A constant output passes numerically, but the check says it cannot tell: not a pass.
    const = np.full((4, 1000), 1e-3, dtype=np.float32)
    got = w._check_output(_case("t/n=1/a=1/xla", False, reference_id="t/n=1/a=1/ref"), _timing(const))
    assert got["within_tolerance"] is None and "barely varies" in got["note"]
    # A wrong output stays wrong, flat reference or not.
    wrong = w._check_output(_case("t/n=1/a=1/bad", False, reference_id="t/n=1/a=1/ref"), _timing(const * 2))
    assert wrong["within_tolerance"] is False
