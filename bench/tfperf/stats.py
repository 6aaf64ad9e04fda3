"""Statistics over timing samples: summaries, a distribution-free CI of the median,
the paired ratio of interleaved rounds (and, for unpaired samples, a bootstrap CI of a
ratio of medians), the stopping rule and the three-state verdict with its power.

Plain functions over lists of floats; no TensorFlow, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

CONFIDENCE = 0.95
N_BOOT = 2000                  # bootstrap resamples of ratio_ci
BOOT_SEED = 0                  # its generator's seed: the same samples give the same interval


def quantile(xs: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default method) of a non-empty sample."""
    if not xs:
        raise ValueError("quantile of an empty sample")
    return float(np.quantile(np.asarray(xs, dtype=float), q))


def median(xs: Sequence[float]) -> float:
    return quantile(xs, 0.5)


@lru_cache(maxsize=1024)
def median_ci_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int] | None:
    """0-based ranks (lo, hi) of the order statistics bounding the median with at least
    ``confidence`` coverage, or None when n is too small for that coverage (n < 6 at 95%).

    Distribution-free: P(x_(j) <= median <= x_(k)) = P(j <= B < k), B ~ Binomial(n, 1/2).
    Exact integer arithmetic, so any n works (a float holds 2**n only up to n = 1023); the
    binomial tail is summed term by term, each term from the last.
    """
    # alpha/2 as the exact value of its float; P(B < j) <= alpha/2  <=>  2**n * P(B < j) * den <= num * 2**n.
    half = Fraction(1.0 - confidence) / 2
    limit = half.numerator * 2**n
    best: tuple[int, int] | None = None
    term = 1            # C(n, j - 1)
    tail = 0            # sum of C(n, i) for i < j
    # Largest j (1-based) with P(B < j) <= alpha/2; the interval is [x_(j), x_(n+1-j)].
    for j in range(1, n // 2 + 1):
        tail += term
        if tail * half.denominator <= limit:
            best = (j - 1, n - j)
        else:
            break
        term = term * (n - j + 1) // j
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
    n_boot: int = N_BOOT,
    seed: int = BOOT_SEED,
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


def paired_ratio(baseline: Sequence[float], candidate: Sequence[float],
                 confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """Speedup of ``candidate`` over ``baseline`` from samples taken in the same rounds
    (``baseline[i]`` and ``candidate[i]`` seconds apart): the median of the per-round
    ratios baseline[i] / candidate[i], with the distribution-free CI of that median.

    A drift of the machine's speed across the run moves both samples of a round alike,
    so it cancels in each ratio; between blocks measured minutes apart it does not."""
    if len(baseline) != len(candidate):
        raise ValueError(f"paired samples differ in length: {len(baseline)} and {len(candidate)}")
    if not baseline:
        raise ValueError("ratio of an empty sample")
    r = np.asarray(baseline, dtype=float) / np.asarray(candidate, dtype=float)
    lo, hi = median_ci(list(r), confidence)
    return float(np.median(r)), float(lo), float(hi)


# What one comparison found: the rule of the guide's vocabulary (analyse/effects.py words
# it; the measuring side uses it to decide when a comparison needs more rounds).
#
# The smallest speedup a claim counts, unless it names its own ``min_effect``. Below it
# the advice is not worth following, and an effect right at the noise floor (1-4% on a
# shared 2-core runner) would otherwise flip from one run to the next: the finding would
# follow the run's noise, not the code.
MIN_EFFECT = 0.05
FASTER, SLOWER, SAME, UNCLEAR = "faster", "slower", "the same", "unclear"


def finding(low: float, high: float, margin: float) -> str:
    """Faster, slower, the same or unclear, from the CI [low, high] of speedup =
    t_baseline / t_candidate and the margin m (a fraction):

    * faster: the whole CI lies above 1 + m;
    * slower: the whole CI lies below 1 / (1 + m);
    * the same: it lies wholly within [1 / (1 + m), 1 + m] (an equivalence test);
    * unclear: it crosses an edge of that band: collect more rounds.

    The four exclude each other and cover every interval."""
    up = 1.0 + max(margin, 0.0)
    if low > up:
        return FASTER
    if high < 1.0 / up:
        return SLOWER
    if low >= 1.0 / up and high <= up:
        return SAME
    return UNCLEAR


@dataclass(frozen=True)
class Judgement:
    """One comparison's :func:`finding`, with its power. ``margin``: the band that counts
    as the same (the noise floor, or a claim's minimum effect), as a fraction.
    ``detectable``: the smallest true speedup (as a fraction) for which this measurement's
    CI would have lain wholly above 1 + margin, i.e. what it could have seen."""

    finding: str
    margin: float
    detectable: float


def judge(point: float, low: float, high: float, noise: float, min_effect: float = 0.0) -> Judgement:
    """:func:`finding` with the margin the larger of ``noise`` and ``min_effect``."""
    margin = max(noise, min_effect, 0.0)
    # A true speedup s gives a CI of about [s * low / point, s * high / point].
    detectable = (1.0 + margin) * (point / low) - 1.0 if low > 0 else math.inf
    return Judgement(finding(low, high, margin), margin, detectable)
