"""Statistics over timing samples: summaries, a distribution-free CI of the median,
a bootstrap CI of a ratio of medians, the stopping rule and the verdict rule.

Plain functions over lists of floats; no TensorFlow, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

CONFIDENCE = 0.95


def quantile(xs: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default method) of a non-empty sample."""
    if not xs:
        raise ValueError("quantile of an empty sample")
    return float(np.quantile(np.asarray(xs, dtype=float), q))


def median(xs: Sequence[float]) -> float:
    return quantile(xs, 0.5)


def _binom_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n


def median_ci_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int] | None:
    """0-based ranks (lo, hi) of the order statistics bounding the median with at least
    ``confidence`` coverage, or None when n is too small for that coverage (n < 6 at 95%).

    Distribution-free: P(x_(j) <= median <= x_(k)) = P(j <= B < k), B ~ Binomial(n, 1/2).
    """
    alpha = 1.0 - confidence
    best: tuple[int, int] | None = None
    # Largest j (1-based) with P(B < j) <= alpha/2; the interval is [x_(j), x_(n+1-j)].
    for j in range(1, n // 2 + 1):
        if _binom_cdf(j - 1, n) <= alpha / 2:
            best = (j - 1, n - j)
        else:
            break
    return best


def median_ci(xs: Sequence[float], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """CI of the median from order statistics; for samples too small to reach the
    requested coverage the whole range (min, max) is returned, which is honest but wide."""
    s = sorted(xs)
    ranks = median_ci_ranks(len(s), confidence)
    if ranks is None:
        return s[0], s[-1]
    return s[ranks[0]], s[ranks[1]]


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    iqr: float
    ci_low: float
    ci_high: float
    min: float
    max: float
    mean: float
    stdev: float

    @property
    def rel_ci_halfwidth(self) -> float:
        """Half the CI width relative to the median (0.02 means ±2%)."""
        if self.median <= 0:
            return math.inf
        return (self.ci_high - self.ci_low) / 2.0 / self.median

    def as_dict(self) -> dict[str, float | int]:
        return dict(self.__dict__)


def summarize(xs: Sequence[float], confidence: float = CONFIDENCE) -> Summary:
    if not xs:
        raise ValueError("summary of an empty sample")
    arr = np.asarray(xs, dtype=float)
    lo, hi = median_ci(list(arr), confidence)
    return Summary(
        n=int(arr.size),
        median=float(np.median(arr)),
        iqr=float(np.quantile(arr, 0.75) - np.quantile(arr, 0.25)),
        ci_low=float(lo),
        ci_high=float(hi),
        min=float(arr.min()),
        max=float(arr.max()),
        mean=float(arr.mean()),
        stdev=float(arr.std(ddof=1)) if arr.size > 1 else 0.0,
    )


def ratio_ci(
    baseline: Sequence[float],
    other: Sequence[float],
    confidence: float = CONFIDENCE,
    n_boot: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Ratio median(baseline) / median(other) (a speedup of ``other`` over ``baseline``
    when > 1) with a percentile-bootstrap CI. Deterministic for a given seed."""
    a = np.asarray(baseline, dtype=float)
    b = np.asarray(other, dtype=float)
    if a.size == 0 or b.size == 0:
        raise ValueError("ratio of an empty sample")
    point = float(np.median(a) / np.median(b))
    rng = np.random.default_rng(seed)
    ma = np.median(rng.choice(a, size=(n_boot, a.size), replace=True), axis=1)
    mb = np.median(rng.choice(b, size=(n_boot, b.size), replace=True), axis=1)
    ratios = ma / mb
    tail = (1.0 - confidence) / 2.0
    return point, float(np.quantile(ratios, tail)), float(np.quantile(ratios, 1.0 - tail))


@dataclass(frozen=True)
class StopRule:
    """When to stop taking samples: at least ``min_samples``, then stop as soon as the
    CI of the median is within ``target_rel_ci`` of it, or ``max_samples`` or
    ``budget_s`` seconds (of sampling) are reached."""

    min_samples: int = 10
    max_samples: int = 200
    target_rel_ci: float = 0.02
    budget_s: float = 10.0

    def done(self, samples: Sequence[float], elapsed_s: float) -> bool:
        n = len(samples)
        if n >= self.max_samples:
            return True
        if n < self.min_samples:
            return elapsed_s >= self.budget_s * 3 and n >= 3  # a very slow case still ends
        if elapsed_s >= self.budget_s:
            return True
        return summarize(samples).rel_ci_halfwidth <= self.target_rel_ci


# Verdicts on a claim "A is faster than B".
HOLDS = "holds"
DOES_NOT_HOLD = "does not hold"
INCONCLUSIVE = "inconclusive"


def verdict(ratio_low: float, ratio_high: float, noise: float, min_effect: float = 0.0) -> str:
    """Verdict on "the candidate is faster" from the CI of speedup = t_baseline / t_candidate.

    ``noise`` is the runner's relative noise floor (from its A/A pair: 0.03 means two
    measurements of the same thing differ by up to 3%); a difference is only called when
    the whole CI lies beyond it (and beyond ``min_effect``)."""
    margin = max(noise, min_effect, 0.0)
    if ratio_low > 1.0 + margin:
        return HOLDS
    if ratio_high < 1.0 / (1.0 + margin):
        return DOES_NOT_HOLD
    return INCONCLUSIVE
