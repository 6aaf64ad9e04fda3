"""The distribution-free CI of the median (tfperf.stats.median_ci_ranks) for any number of
samples: exact integer arithmetic, the ranks a float computation gave wherever a float could
hold 2**n, and no overflow at 1,024 samples or 100,000."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from tfperf import stats


def _float_ranks(n: int, confidence: float = stats.CONFIDENCE) -> tuple[int, int] | None:
    """The ranks as a float computation finds them (P(B < j) as sum / 2.0**n), which raises
    OverflowError from n = 1024 on."""
    alpha = 1.0 - confidence
    best = None
    for j in range(1, n // 2 + 1):
        if sum(math.comb(n, i) for i in range(j)) / 2.0**n <= alpha / 2:
            best = (j - 1, n - j)
        else:
            break
    return best


@pytest.mark.parametrize("confidence", [0.95, 0.99, 0.9])
def test_the_ranks_are_those_of_the_float_computation_where_it_works(confidence: float) -> None:
    for n in [*range(1, 301), 511, 777, 1000, 1023]:
        assert stats.median_ci_ranks(n, confidence) == _float_ranks(n, confidence), n


def test_the_float_computation_overflows_at_1024_samples() -> None:
    """What the exact ranks replace: the test above would not tell 1024 apart otherwise."""
    with pytest.raises(OverflowError):
        _float_ranks(1024)


def _binomial_tail(k: int, n: int) -> float:
    """P(B <= k), B ~ Binomial(n, 1/2), in log space (no overflow; a check, not the method)."""
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2) for i in range(k + 1)]
    top = max(logs)
    return math.exp(top) * sum(math.exp(x - top) for x in logs)


@pytest.mark.parametrize("n", [1024, 100_000])
def test_large_samples_get_the_narrowest_interval_with_the_coverage(n: int) -> None:
    t0 = time.monotonic()
    ranks = stats.median_ci_ranks.__wrapped__(n)      # not the cache
    seconds = time.monotonic() - t0
    assert ranks is not None
    lo, hi = ranks
    assert hi == n - 1 - lo, "symmetric"
    # Coverage at least 95%: P(B < lo + 1) <= 2.5%; one rank further in would be below 95%.
    assert _binomial_tail(lo, n) <= 0.025 < _binomial_tail(lo + 1, n)
    # About 1.96 standard deviations (sqrt(n)/2) below the middle.
    assert abs((n / 2 - lo) / (math.sqrt(n) / 2) - 1.96) < 0.05
    assert seconds < 30


@pytest.mark.parametrize("n", [1024, 100_000])
def test_summaries_of_large_samples(n: int) -> None:
    xs = list(np.random.default_rng(0).normal(1.0, 0.1, n))
    s = stats.summarize(xs)
    assert s.n == n and s.ci_low < s.median < s.ci_high
    assert s.ci_high - s.ci_low == pytest.approx(2 * 1.96 * 0.1 * math.sqrt(math.pi / 2) / math.sqrt(n), rel=0.25)
