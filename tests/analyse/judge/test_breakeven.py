"""tfperf.analyse.judge.per_step: when XLA's compile time pays off, and the ten-run view."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tfperf.analyse.judge.per_step import breakeven_calls, breakeven_table, ten_run_view
from tfperf.analyse.records import Measurement, Source
from tfperf.store.result import OutputRecord, ResultRecord, TimingRecord


def _total(first: float, per: float, n: int) -> float:
    return first + (n - 1) * per


@pytest.mark.parametrize("fb, tb, fc, tc, want", [
    (1.0, 0.10, 3.0, 0.05, 41),     # 2 s extra, 0.05 s saved per call: 1 + 40 calls
    (1.0, 0.10, 0.5, 0.05, 1),      # cheaper to start and faster: from the first call
    (1.0, 0.10, 3.0, 0.20, None),   # slower per call: never
    (1.0, 0.10, 0.5, 0.20, None),   # cheaper to start but slower: loses in the long run
    (1.0, 0.10, 1.0, 0.10, 1),      # identical
    (1.0, 0.10, 2.0, 0.10, None),   # as fast, dearer to start
    (1.0, 0.10, 2.0, 0.00, 11),
])
def test_known_cases(fb: float, tb: float, fc: float, tc: float, want: int | None) -> None:
    assert breakeven_calls(fb, tb, fc, tc) == want


@given(st.floats(0, 100), st.floats(1e-6, 10), st.floats(0, 100), st.floats(1e-6, 10))
def test_breakeven_is_the_first_call_from_which_the_candidate_stays_ahead(
        fb: float, tb: float, fc: float, tc: float) -> None:
    n = breakeven_calls(fb, tb, fc, tc)
    if n is None:
        assert tc > tb or (tc == tb and fc > fb)
        return
    eps = 1e-9 * (1 + fb + fc + n * (tb + tc))
    for m in (n, n + 1, n + 1000):
        assert _total(fc, tc, m) <= _total(fb, tb, m) + eps
    if n > 1:
        assert _total(fc, tc, n - 1) > _total(fb, tb, n - 1) - eps


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_rejects_impossible_times(bad: float) -> None:
    with pytest.raises(ValueError):
        breakeven_calls(1.0, 0.1, bad, 0.05)


def _result(case_id: str, variant: str, first: float, samples: list[float], loops: int = 1,
            status: str = "ok", finished: str = "2026-01-01T00:00:00+00:00") -> Measurement:
    s = sorted(samples)
    n = len(s)
    summary = {"n": n, "median": s[n // 2], "iqr": 0.0, "ci_low": s[0], "ci_high": s[-1], "min": s[0], "max": s[-1]}
    record = ResultRecord(case_id=case_id + "/" + variant, topic="t", variant=variant, settings={},
                          params={"batch": int(case_id.split("batch=")[1].split("/")[0])},
                          status=status, error=None, first_call_s=first, key={}, key_hash="0" * 16, env_id=None,  # type: ignore[typeddict-item]
                          timing=TimingRecord(inner_loops=loops, summary=summary, samples=tuple(samples)),
                          output=OutputRecord(max_abs_diff=None, max_rel_diff=None, within_tolerance=True),
                          finished_at=finished)
    return Measurement.of(record, Source("r/full.json", "r", "full"), "r")


def test_table_pairs_variants_per_scenario_and_uses_the_newest_ok_result() -> None:
    rs = [
        _result("t/batch=1/default", "function", 1.0, [0.10] * 12),
        _result("t/batch=1/default", "xla", 3.0, [0.05] * 12),
        _result("t/batch=1/default", "xla", 9.0, [0.50] * 12, finished="2025-01-01T00:00:00+00:00"),
        _result("t/batch=1/default", "xla", 0.0, [0.01] * 12, status="error", finished="2027-01-01T00:00:00+00:00"),
        _result("t/batch=8/default", "function", 1.0, [0.10] * 12),   # no xla: no row
    ]
    rows = breakeven_table(rs, "function", "xla", runner="r")
    assert len(rows) == 1
    row, base, cand = rows[0]
    assert row.calls == 41 and row.label == "after 41 calls" and row.runner == "r"
    assert (base.variant, cand.variant, cand.first_call_s) == ("function", "xla", 3.0)


def test_ten_run_view_takes_the_first_window_and_the_range() -> None:
    samples = [5.0] + [1.0] * 19          # a slow start the warm-up missed
    v = ten_run_view(samples)
    assert v is not None
    assert v.first_mean == pytest.approx(1.4) and v.window_low == 1.0 and v.window_high == pytest.approx(1.4)
    assert v.median == 1.0 and v.first_mean_outside_ci
    # Samples that each average 4 calls: a window of 3 samples = 12 calls.
    v4 = ten_run_view([1.0] * 6, inner_loops=4)
    assert v4 is not None and v4.samples_per_window == 3 and v4.calls_per_window == 12
    assert ten_run_view([1.0] * 9) is None
