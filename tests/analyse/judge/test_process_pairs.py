"""A speedup whose interleave ran each settings group in two worker processes (``processes``
in its interleave record): the analysis widens its interval to take in each process pair's
own median, as the rounds did when they were measured, and only then (tfperf.stats.paired_ratio).
No TensorFlow."""

from __future__ import annotations

import random
from dataclasses import replace

from tfperf import stats
from tfperf.analyse.judge.scenarios import RatioCache
from tfperf.analyse.records import Measurement, Source
from tfperf.store.result import InterleaveRecord, OutputRecord, ResultRecord, TimingRecord

ROUNDS = 120


def _result(variant: str, samples: list[float], processes: int, rounds: range = range(ROUNDS)) -> Measurement:
    s = sorted(samples)
    summary = {"n": len(s), "median": s[len(s) // 2], "iqr": 0.0, "ci_low": s[0], "ci_high": s[-1],
               "min": s[0], "max": s[-1]}
    record = ResultRecord(case_id=f"t/n=1/{variant}", topic="t", variant=variant, settings={}, params={"n": 1},
                          status="ok", error=None, first_call_s=0.1, key={}, key_hash="0" * 16, env_id=None,  # type: ignore[typeddict-item]
                          timing=TimingRecord(inner_loops=1, summary=summary, samples=tuple(samples),  # type: ignore[arg-type]
                                              rounds=tuple(rounds)),
                          output=OutputRecord(max_abs_diff=None, max_rel_diff=None, within_tolerance=True),
                          finished_at="2026-01-01T00:00:00+00:00",
                          interleave=InterleaveRecord(id="0123456789abcdef", baseline="t/n=1/a", processes=processes))
    return Measurement.of(record, Source("r/full.json", "r", "full"), "r")


def _pair(processes: int) -> tuple[Measurement, Measurement]:
    # +-5% per round; the candidate's second process pair is 4% faster than its first.
    rng = random.Random(3)
    base = [0.010] * ROUNDS
    cand = [0.010 * rng.uniform(0.95, 1.05) / (1.0 if i % 2 == 0 else 1.04) for i in range(ROUNDS)]
    return _result("a", base, processes), _result("b", cand, processes)


def test_two_processes_widen_the_interval_to_both_process_pairs_medians() -> None:
    one = RatioCache().speedup(*_pair(1))
    two = RatioCache().speedup(*_pair(2))
    a, b = _pair(2)
    ratios = [x / y for x, y in zip(a.samples, b.samples)]
    medians = sorted(stats.median(ratios[k::2]) for k in (0, 1))
    assert two.point == one.point and two.paired and two.n == ROUNDS
    assert one.low > medians[0] and one.high < medians[1]            # the rounds alone miss both
    assert (two.low, two.high) == (medians[0], medians[1])
    assert two.rel_halfwidth > one.rel_halfwidth


def test_the_process_of_a_round_is_its_index_not_its_position() -> None:
    # Only the odd rounds are in common: all of them ran in the second process pair, so there
    # is one pair and nothing to widen.
    a, b = _pair(2)
    odd = range(1, ROUNDS, 2)
    a = replace(a, timing=replace(a.timing, samples=a.samples[1::2], rounds=tuple(odd)))  # type: ignore[arg-type]
    assert a.paired_processes(b) == [1] * len(odd)
    got = RatioCache().speedup(a, b)
    pair = a.paired_with(b)
    assert pair is not None
    assert (got.point, got.low, got.high) == stats.paired_ratio(*pair)
