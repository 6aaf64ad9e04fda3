"""The output check against a NaN answer: a converter that silently returns NaN (the
TFLite trap paths with Keras 3 models) must come out outside tolerance, and the record
must say how much of the output is NaN, since the differences cover finite values only."""

from __future__ import annotations

import numpy as np
import pytest

from tfperf.measure.worker.outputs import compare

REF = np.linspace(-0.5, 0.3, 40, dtype=np.float32).reshape(4, 10)


def test_an_all_nan_output_is_outside_tolerance_and_says_so() -> None:
    res = compare(np.full_like(REF, np.nan), REF, rtol=1e-4, atol=1e-4)
    assert res["within_tolerance"] is False
    assert res["note"] == "40 of 40 values non-finite (NaN or inf) where the other output is finite"
    assert (res["nonfinite"], res["values"]) == (40, 40)          # the same, as fields
    assert res["max_abs_diff"] is None and res["max_rel_diff"] is None   # no finite pair: no difference


def test_a_partly_nan_output_keeps_the_difference_of_its_finite_values() -> None:
    out = REF + 0.25
    out[0, :3] = np.nan
    res = compare(out, REF, rtol=1e-4, atol=1e-4)
    assert res["within_tolerance"] is False
    assert res["max_abs_diff"] == pytest.approx(0.25, abs=1e-6)
    assert res["note"].startswith("3 of 40 values non-finite")
    assert (res["nonfinite"], res["values"]) == (3, 40)


def test_nan_in_the_same_places_as_the_reference_is_no_error() -> None:
    ref = REF.copy()
    ref[1, 1] = np.nan
    res = compare(ref.copy(), ref, rtol=1e-4, atol=1e-4)
    assert res["within_tolerance"] is True and res["note"] is None and res["nonfinite"] == 0


def test_the_analysis_reads_the_count_from_the_fields_and_from_an_older_note() -> None:
    """compare.nonfinite: the structured fields first; a result measured before they
    existed still has its count in the note."""
    from dataclasses import replace

    from tfperf.analyse.judge.scenarios import nonfinite, output_error
    from tfperf.store.result import OutputRecord, ResultRecord

    out = OutputRecord(max_abs_diff=0.1, max_rel_diff=None, within_tolerance=False)
    base = ResultRecord(case_id="t//default/v", topic="t", params={}, settings={}, variant="v", key={},  # type: ignore[typeddict-item]
                        key_hash="0" * 16, env_id=None, status="ok", error=None, first_call_s=None, timing=None,
                        output=out, finished_at="2026-01-01T00:00:00+00:00")
    new = replace(base, output=replace(out, values=40, nonfinite=40, note="anything"))
    old = replace(base, output=replace(out, note="3 of 40 values non-finite (NaN or inf) where the other output is finite"))
    finite = replace(base, output=replace(out, values=40, nonfinite=0))
    assert nonfinite(new) == (40, 40) and output_error(new) == "NaN or inf in all 40 values"
    assert nonfinite(old) == (3, 40) and output_error(old) == "NaN or inf in 3 of 40 values"
    assert nonfinite(finite) is None and output_error(finite) == "max abs diff 0.1"
    assert nonfinite(replace(new, output=replace(out, values=40, nonfinite=40, within_tolerance=True))) is None
