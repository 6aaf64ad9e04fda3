"""Statistics over timing samples: summaries, a distribution-free CI of the median and of
any percentile (the tail of per-request latencies: p50, p90, p99), the paired ratio of
interleaved rounds and its tail counterpart (and, for unpaired samples, a bootstrap CI of a
ratio of medians), the stopping rule and a profile's time budget for one case (``Budget``),
and the three-state verdict with its power.

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


def quantile_ci_ranks(n: int, q: float, confidence: float = CONFIDENCE) -> tuple[int | None, int | None]:
    """0-based ranks (lo, hi) of the order statistics bounding the ``q`` quantile with at
    least ``confidence`` coverage, each None when n is too small for that side (the 99th
    percentile has an upper bound at 95% only from n = 368 on: before that, every sample
    could lie below it with more than 2.5% probability).

    Distribution-free, as :func:`median_ci_ranks`: with B ~ Binomial(n, q) the number of
    samples below the quantile, P(x_(l) <= Q) = P(B >= l) and P(x_(u) >= Q) = P(B < u)
    (1-based ranks). ``lo`` is the largest l with P(B < l) <= alpha/2, ``hi`` the smallest
    u with P(B >= u) <= alpha/2, so the interval covers Q with probability at least
    1 - alpha. The median (q = 0.5) takes the exact ranks of :func:`median_ci_ranks`."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"quantile {q} is not between 0 and 1")
    if q == 0.5:
        ranks = median_ci_ranks(n, confidence)
        return (None, None) if ranks is None else ranks
    return _quantile_ranks(n, q, confidence)


@lru_cache(maxsize=1024)
def _quantile_ranks(n: int, q: float, confidence: float) -> tuple[int | None, int | None]:
    """:func:`quantile_ci_ranks` for any q, the binomial tails summed in log space (floats:
    n of tens of thousands, where the exact rationals of the median would hold numbers of
    hundreds of thousands of digits)."""
    if n < 1:
        return None, None
    half = (1.0 - confidence) / 2.0
    lq, lp = math.log(q), math.log1p(-q)
    logs = np.array([math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lq + (n - i) * lp
                     for i in range(n + 1)])
    pmf = np.exp(logs - logs.max())
    pmf /= math.fsum(pmf)
    below = np.concatenate(([0.0], np.cumsum(pmf)))      # below[l] = P(B < l), l = 0..n+1
    lows = [l for l in range(1, n + 1) if below[l] <= half]
    highs = [u for u in range(1, n + 1) if 1.0 - below[u] <= half]
    return (lows[-1] - 1 if lows else None), (highs[0] - 1 if highs else None)


def quantile_ci(xs: Sequence[float], q: float, confidence: float = CONFIDENCE) -> tuple[float | None, float | None]:
    """CI of the ``q`` quantile from order statistics; a side that ``len(xs)`` samples
    cannot bound with that coverage is None (never the sample's extreme, which would read
    as a bound)."""
    s = sorted(xs)
    lo, hi = quantile_ci_ranks(len(s), q, confidence)
    return (None if lo is None else float(s[lo])), (None if hi is None else float(s[hi]))


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


@dataclass(frozen=True)
class Budget:
    """A profile's time budget for one case: the numbers of its :class:`StopRule`, and its
    warm-up. Here, not in ``tfperf.cases``, because the worker imports it: everything the
    worker imports must need nothing beyond the standard library, numpy and TensorFlow (the
    worker may run in another TensorFlow version's venv, see ``tfperf.measure.venvs``),
    and ``tfperf.cases`` needs PyYAML."""

    min_samples: int
    max_samples: int
    target_rel_ci: float
    budget_s: float
    warmup_s: float
    min_sample_s: float
    processes: int = 1          # worker processes per settings group in a scenario (see paired_ratio)
    scale: float = 1.0          # budget_s is the profile's times this (`tfperf run --budget-scale`)

    @property
    def stop_rule(self) -> StopRule:
        return StopRule(self.min_samples, self.max_samples, self.target_rel_ci, self.budget_s)


def paired_ratio(baseline: Sequence[float], candidate: Sequence[float],
                 confidence: float = CONFIDENCE, processes: Sequence[int] | None = None) -> tuple[float, float, float]:
    """Speedup of ``candidate`` over ``baseline`` from samples taken in the same rounds
    (``baseline[i]`` and ``candidate[i]`` seconds apart): the median of the per-round
    ratios baseline[i] / candidate[i], with the distribution-free CI of that median.

    A drift of the machine's speed across the run moves both samples of a round alike,
    so it cancels in each ratio; between blocks measured minutes apart it does not.

    ``processes`` names, round by round, the pair of worker processes that took the two
    samples, when a scenario ran each settings group in more than one process. Rounds
    cannot average away what differs between processes (thread placement, memory layout):
    the same settings in two fresh processes measured 0.86x to 1.08x apart on one CPU,
    each with a CI of +-3-4% (see ``RoundRule``). The interval is then widened to take in
    each process pair's own median, so it covers at least what the processes measured."""
    if len(baseline) != len(candidate):
        raise ValueError(f"paired samples differ in length: {len(baseline)} and {len(candidate)}")
    if not baseline:
        raise ValueError("ratio of an empty sample")
    r = np.asarray(baseline, dtype=float) / np.asarray(candidate, dtype=float)
    lo, hi = median_ci(list(r), confidence)
    if processes is not None:
        if len(processes) != len(r):
            raise ValueError(f"{len(processes)} process labels for {len(r)} rounds")
        by: dict[int, list[float]] = {}
        for label, x in zip(processes, r.tolist()):
            by.setdefault(label, []).append(x)
        if len(by) > 1:
            meds = [median(xs) for xs in by.values()]
            lo, hi = min(lo, *meds), max(hi, *meds)
    return float(np.median(r)), float(lo), float(hi)


TAIL = (0.5, 0.9, 0.99)         # the percentiles of request latencies: p50, p90, p99


@dataclass(frozen=True)
class Percentile:
    """One percentile of a sample, with its distribution-free CI (:func:`quantile_ci`);
    a bound the sample is too small for is None."""

    q: float
    value: float
    ci_low: float | None
    ci_high: float | None

    @property
    def name(self) -> str:
        """"p50", "p90", "p99", "p99.9"."""
        return f"p{self.q * 100:g}"


def percentile(xs: Sequence[float], q: float, confidence: float = CONFIDENCE) -> Percentile:
    """The ``q`` quantile of ``xs`` (linear interpolation, as :func:`quantile`) and its CI."""
    lo, hi = quantile_ci(xs, q, confidence)
    return Percentile(q, quantile(xs, q), lo, hi)


def tail(xs: Sequence[float], qs: Sequence[float] = TAIL, confidence: float = CONFIDENCE) -> list[Percentile]:
    """The percentiles ``qs`` of one sample of latencies (every request of every round of a
    case, pooled), each with its CI."""
    if not xs:
        raise ValueError("percentiles of an empty sample")
    return [percentile(xs, q, confidence) for q in qs]


def paired_quantile_ratio(baseline: Sequence[Sequence[float]], candidate: Sequence[Sequence[float]], q: float,
                          confidence: float = CONFIDENCE, n_boot: int = N_BOOT,
                          seed: int = BOOT_SEED) -> tuple[float, float, float]:
    """Speedup of ``candidate`` over ``baseline`` at the ``q`` quantile of their request
    latencies, from requests taken in the same rounds (``baseline[i]`` and ``candidate[i]``:
    the latencies of round i's two blocks, seconds apart): the ratio of the quantiles of
    every request pooled, with a percentile-bootstrap CI that resamples whole rounds, the
    same rounds for both sides. What a round shares (the machine's speed then) stays
    paired in every resample; a per-round ratio, as :func:`paired_ratio` takes for the
    median, would need a hundred requests or more per round for a 99th percentile.
    Deterministic for a given seed."""
    if len(baseline) != len(candidate):
        raise ValueError(f"paired rounds differ in number: {len(baseline)} and {len(candidate)}")
    if not baseline or not all(baseline) or not all(candidate):
        raise ValueError("ratio of an empty sample")
    a = [np.asarray(r, dtype=float) for r in baseline]
    b = [np.asarray(r, dtype=float) for r in candidate]
    point = float(np.quantile(np.concatenate(a), q) / np.quantile(np.concatenate(b), q))
    picks = np.random.default_rng(seed).integers(0, len(a), size=(n_boot, len(a)))
    ratios = _pooled_quantiles(a, picks, q) / _pooled_quantiles(b, picks, q)
    tail_p = (1.0 - confidence) / 2.0
    return point, float(np.quantile(ratios, tail_p)), float(np.quantile(ratios, 1.0 - tail_p))


RANK_TABLE_LIMIT = 8_000_000    # entries of _pooled_quantiles' table of running counts (int64)


def _pooled_quantiles(rounds: Sequence[np.ndarray], picks: np.ndarray, q: float) -> np.ndarray:
    """The ``q`` quantile of the requests of the rounds each row of ``picks`` names: the
    numbers ``np.quantile`` gives (its "linear" method), found by rank rather than by pooling
    and partitioning each row (15x quicker on 30 rounds of 50 requests; a site build takes
    hundreds of these bootstraps).

    Every request is sorted once. A row's pooled sample is those requests, each as many times
    as its round was picked, so its k-th smallest is the first request in that order where
    the picked rounds' running counts reach k + 1: a binary search per row, all rows at once,
    over ``running[r, i]``, the requests of round r among the i smallest. The two requests
    either side of the quantile's position are interpolated as ``np.quantile`` does."""
    sizes = np.array([r.size for r in rounds], dtype=np.int64)
    if len(rounds) * (int(sizes.sum()) + 1) > RANK_TABLE_LIMIT:
        return np.array([np.quantile(np.concatenate([rounds[i] for i in row]), q) for row in picks])
    values = np.concatenate(rounds)
    order = np.argsort(values, kind="stable")
    ranked = values[order]
    running = np.zeros((len(rounds), ranked.size + 1), dtype=np.int64)
    running[np.repeat(np.arange(len(rounds)), sizes)[order], np.arange(1, ranked.size + 1)] = 1
    np.cumsum(running, axis=1, out=running)
    rows = len(picks)
    counts = np.bincount((picks + np.arange(rows)[:, None] * len(rounds)).ravel(),
                         minlength=rows * len(rounds)).reshape(rows, len(rounds))
    pooled = counts @ sizes
    position = (pooled - 1) * q                # where np.quantile's "linear" method looks
    below = np.minimum(np.floor(position), pooled - 1).astype(np.int64)

    def kth(k: np.ndarray) -> np.ndarray:
        lo, hi = np.zeros(rows, dtype=np.int64), np.full(rows, ranked.size - 1, dtype=np.int64)
        while (lo < hi).any():
            mid = (lo + hi) // 2
            reached = np.einsum("br,rb->b", counts, running[:, mid + 1]) >= k + 1
            lo, hi = np.where(reached, lo, mid + 1), np.where(reached, mid, hi)
        found: np.ndarray = ranked[lo]
        return found

    a, b = kth(below), kth(np.minimum(below + 1, pooled - 1))
    t = np.where(position >= pooled - 1, 0.0, position - np.floor(position))
    quantiles: np.ndarray = np.where(t >= 0.5, b - (b - a) * (1 - t), a + (b - a) * t)    # numpy's _lerp, exactly
    return quantiles


# What one comparison found: the rule of the guide's vocabulary (analyse/judge/effects.py words
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
