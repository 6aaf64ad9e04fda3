"""Percentiles of request latencies with distribution-free CIs (tfperf.stats.quantile_ci_ranks,
tail) and the tail speedup paired by rounds (paired_quantile_ratio): the ranks have the
coverage they claim, the median's are the exact ones, a bound the sample is too small for
is None, and resampling the rounds together keeps what a round shares paired."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from tfperf import stats


def _below(l: int, n: int, q: Fraction) -> Fraction:
    """P(B < l), B ~ Binomial(n, q), exactly."""
    return sum((math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(l)), Fraction(0))


@pytest.mark.parametrize("q", [Fraction(1, 10), Fraction(9, 10), Fraction(99, 100)])
def test_the_ranks_are_the_narrowest_with_the_coverage(q: Fraction) -> None:
    for n in [*range(1, 60), 100, 367, 368, 400]:
        lo, hi = stats.quantile_ci_ranks(n, float(q))
        if lo is None:
            assert _below(1, n, q) > Fraction(1, 40), n
        else:   # 1-based rank lo + 1: P(B < lo + 1) <= 2.5%, one rank further in it would not be
            assert _below(lo + 1, n, q) <= Fraction(1, 40) < _below(lo + 2, n, q), n
        if hi is None:
            assert 1 - _below(n, n, q) > Fraction(1, 40), n
        else:   # 1-based rank hi + 1: P(B >= hi + 1) <= 2.5%, one rank further in it would not be
            assert 1 - _below(hi + 1, n, q) <= Fraction(1, 40) < 1 - _below(hi, n, q), n


def test_the_median_takes_the_exact_ranks_and_the_general_sum_agrees() -> None:
    for n in range(1, 400):
        exact = stats.median_ci_ranks(n)
        assert stats.quantile_ci_ranks(n, 0.5) == (exact or (None, None))
        assert stats._quantile_ranks(n, 0.5, stats.CONFIDENCE) == (exact or (None, None)), n


def test_a_99th_percentile_has_an_upper_bound_from_368_requests() -> None:
    """0.99**367 > 2.5% >= 0.99**368: below 368 requests, all of them may lie under the p99."""
    assert stats.quantile_ci_ranks(367, 0.99)[1] is None
    assert stats.quantile_ci_ranks(368, 0.99) == (359, 367)
    xs = list(range(1, 301))
    lo, hi = stats.quantile_ci(xs, 0.99)
    assert lo is not None and hi is None          # never the maximum standing in for a bound


def test_large_samples_are_quick() -> None:
    lo, hi = stats.quantile_ci_ranks(30_000, 0.99)
    assert lo is not None and hi is not None
    # About 1.96 standard deviations (sqrt(n q (1 - q))) either side of n q.
    sd = math.sqrt(30_000 * 0.99 * 0.01)
    assert abs((29_700 - lo) / sd - 1.96) < 0.1 and abs((hi - 29_700) / sd - 1.96) < 0.1


def test_the_intervals_cover_the_true_percentile_about_95_times_in_100() -> None:
    rng = np.random.default_rng(3)
    true = {0.5: math.log(2), 0.9: math.log(10), 0.99: math.log(100)}      # of Exp(1)
    hits = dict.fromkeys(true, 0)
    for _ in range(400):
        xs = rng.exponential(1.0, 500)
        for p in stats.tail(list(xs)):
            assert p.ci_low is not None and p.ci_high is not None
            hits[p.q] += p.ci_low <= true[p.q] <= p.ci_high
    assert all(0.92 <= h / 400 <= 0.995 for h in hits.values()), hits


def test_tail_names_its_percentiles() -> None:
    got = stats.tail([float(i) for i in range(1, 1001)])
    assert [p.name for p in got] == ["p50", "p90", "p99"]
    assert [p.value for p in got] == pytest.approx([500.5, 900.1, 990.01])
    with pytest.raises(ValueError):
        stats.tail([])


def _rounds(rng: np.random.Generator, drift: np.ndarray, scale: float, m: int = 50) -> list[list[float]]:
    return [list(d * scale * rng.exponential(1.0, m)) for d in drift]


def test_the_tail_speedup_resamples_rounds_together() -> None:
    """Each round's machine speed (a drift of up to 2x) moves both blocks of the round: the
    paired interval sees through it, one that resampled each side's rounds apart would not."""
    rng = np.random.default_rng(1)
    drift = rng.uniform(1.0, 2.0, 20)
    base = _rounds(np.random.default_rng(2), drift, 1.0)
    fast = [[x / 2 for x in r] for r in base]               # the same requests, twice as fast
    point, lo, hi = stats.paired_quantile_ratio(base, fast, 0.99)
    assert point == pytest.approx(2.0) and lo == pytest.approx(2.0) and hi == pytest.approx(2.0)
    # Unpaired: the candidate's rounds resampled on their own.
    shuffled = [fast[i] for i in np.random.default_rng(5).permutation(20)]
    _, ulo, uhi = stats.paired_quantile_ratio(base, shuffled, 0.99)
    assert uhi - ulo > 0.2


def test_the_tail_speedup_is_reproducible_and_checks_its_input() -> None:
    rng = np.random.default_rng(4)
    a, b = _rounds(rng, np.ones(12), 1.0), _rounds(rng, np.ones(12), 0.8)
    assert stats.paired_quantile_ratio(a, b, 0.99) == stats.paired_quantile_ratio(a, b, 0.99)
    ragged = [r[:-1] if i == 3 else r for i, r in enumerate(b)]       # rounds of unequal length
    point, lo, hi = stats.paired_quantile_ratio(a, ragged, 0.9)
    assert lo <= point <= hi
    with pytest.raises(ValueError):
        stats.paired_quantile_ratio(a, b[:-1], 0.99)
    with pytest.raises(ValueError):
        stats.paired_quantile_ratio([], [], 0.99)


@pytest.mark.parametrize("q", [0.0, 0.37, 0.5, 0.9, 0.99, 1.0])
def test_the_pooled_quantiles_are_numpys_to_the_last_bit(q: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bootstrap's quantiles, found by rank, are what ``np.quantile`` gives each row's
    pooled requests, bit for bit: rounds of one length and ragged ones, ties (latencies
    rounded to a few digits), one round, one request; and so is the direct way taken when
    the table of running counts would be too large."""
    rng = np.random.default_rng(7)
    for trial in range(60):
        n_rounds, size = int(rng.integers(1, 35)), int(rng.integers(1, 55))
        lengths = [size if trial % 3 else int(rng.integers(1, 55)) for _ in range(n_rounds)]
        digits = int(rng.integers(1, 4)) if trial % 2 else 12
        rounds = [np.round(rng.lognormal(0.0, 0.3, n), digits) for n in lengths]
        picks = rng.integers(0, n_rounds, size=(int(rng.integers(1, 200)), n_rounds))
        want = np.array([np.quantile(np.concatenate([rounds[i] for i in row]), q) for row in picks])
        assert np.array_equal(stats._pooled_quantiles(rounds, picks, q), want), (trial, q)
        if trial % 10 == 0:
            monkeypatch.setattr(stats, "RANK_TABLE_LIMIT", 0)
            assert np.array_equal(stats._pooled_quantiles(rounds, picks, q), want), (trial, q, "direct")
            monkeypatch.undo()
