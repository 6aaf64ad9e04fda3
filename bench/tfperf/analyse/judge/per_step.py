"""What a call pays apart from its steady cost: the fixed cost of a call apart from its cost
per step, and a compile step's slower first call; and when each is repaid.

**Per step**: t(steps) = fixed + steps x per_step. A topic whose every call runs a number
of steps (train_step: ``steps`` training steps per call, ``fit()`` one epoch of them) and
whose YAML declares ``per_step: {param: steps}`` is measured at two step counts or more.
Per runner, settings group, variant and the other parameters, the least-squares line
through the median time per call at each step count separates what a call pays once
(``fit()`` setting up an epoch, a ``Session.run`` feed) from what each step costs, with
95% CIs from a percentile bootstrap over the stored samples of each step count.

The step counts are different scenarios (interleaves) measured minutes apart: a change in
the machine's speed between them moves the line and is not in these intervals
(:attr:`StepGroup.apart_s` says how far apart they were). Comparing two variants (a claim
with ``compare: per_step``, :func:`per_step_ratio`), the rounds of each scenario are
resampled jointly for both variants when they were measured side by side, so what the two
share within a round cancels, as in :func:`tfperf.stats.paired_ratio`.

**The first call**, for the tf.function/XLA page, over stored results:

* :func:`breakeven_calls` - after how many calls the total time of a variant with a slower
  first call (e.g. ``jit_compile=True``: trace + XLA compile) drops below another's
  (plain ``tf.function``), or ``None`` when it never does;
* :func:`ten_run_view` - the figure a "timeit(number=10) / 10" measurement would have given,
  taken from the stored samples, beside the median and its 95% CI.

No TensorFlow, no I/O, no formatting: the renderer lays the rows out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ... import stats
from ...cases import PER_STEP, Claim
from ...stats import summarize
from ...store.record_types import Scalar
from ..records import Measurement, params_id
from .scenarios import Ratio, Scenario

N_BOOT = 2000
SEED = 0
MIN_PAIRED = 6                 # common rounds needed to resample two results jointly (as RatioCache.speedup)
FLOOR_S = 1e-12                # a per-step cost at or below 0 (noise) counts as this in a ratio


@dataclass(frozen=True)
class Interval:
    """A point estimate and its 95% CI (``high`` may be ``math.inf``: unbounded)."""

    point: float
    low: float
    high: float


@dataclass(frozen=True)
class StepFit:
    fixed: Interval                 # seconds per call, paid whatever the number of steps
    per_step: Interval              # seconds per step
    breakeven: Interval | None      # steps per call at which fixed == steps x per_step; None: per_step <= 0
    steps: tuple[int, ...]          # the step counts fitted
    n: tuple[int, ...]              # samples at each

    def fixed_share(self, steps: int) -> float:
        """The share of a call of ``steps`` steps that is fixed cost (point estimates)."""
        total = self.fixed.point + steps * self.per_step.point
        return max(self.fixed.point, 0.0) / total if total > 0 else math.nan


@dataclass
class StepSeries:
    """One variant in one settings group and (other) parameters, at each step count."""

    runner: str
    topic: str
    variant: str
    params: dict[str, Scalar]                   # without the step parameter
    settings: dict[str, str]
    by_steps: dict[int, Measurement]
    fit: StepFit | None = None
    problem: str | None = None                  # why there is no fit

    @property
    def measurements(self) -> list[Measurement]:
        return [self.by_steps[k] for k in sorted(self.by_steps)]


@dataclass
class StepGroup:
    """A runner's scenarios that differ only in the step count, with every variant's series."""

    runner: str
    topic: str
    param: str
    params: dict[str, Scalar]                   # without the step parameter
    steps: tuple[int, ...]
    series: list[StepSeries] = field(default_factory=list)
    apart_s: float = 0.0                        # between the step counts' measurements (median finish times)

    @property
    def fitted(self) -> list[StepSeries]:
        return [s for s in self.series if s.fit is not None]


def step_count(value: Any) -> int | None:
    """A parameter value as a step count, or None when it is not a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0 or value != int(value):
        return None
    return int(value)


def without(params: Mapping[str, Scalar], param: str) -> dict[str, Scalar]:
    return {k: v for k, v in params.items() if k != param}


def line(steps: Sequence[float], times: Sequence[float]) -> tuple[float, float]:
    """(fixed, per_step) of the least-squares line through (steps[i], times[i]); with two
    step counts, the line through both points."""
    fixed, per = _lines(np.asarray(steps, dtype=float), np.asarray([times], dtype=float))
    return float(fixed[0]), float(per[0])


def _lines(steps: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row by row of ``times`` (replicates x step counts): intercept and slope."""
    if len(set(steps.tolist())) < 2:
        raise ValueError(f"a line needs two different step counts, got {steps.tolist()}")
    centred = steps - steps.mean()
    per = (times * centred).sum(axis=-1) / float((centred ** 2).sum())
    return times.mean(axis=-1) - per * steps.mean(), per


def _bounds(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Percentile interval by order statistics (no interpolation, so ``inf`` is allowed)."""
    s = np.sort(values)
    tail = (1.0 - confidence) / 2.0
    return float(s[math.floor(tail * (s.size - 1))]), float(s[math.ceil((1.0 - tail) * (s.size - 1))])


def _breakeven(fixed: np.ndarray, per: np.ndarray) -> np.ndarray:
    """Steps at which a call's steps cost as much as its fixed part: inf where the per-step
    cost is not above 0, 0 where the fixed cost is not."""
    safe = np.where(per > 0, per, 1.0)
    return np.where(per > 0, np.maximum(fixed, 0.0) / safe, np.inf)


def _resampled_medians(xs: np.ndarray, rng: np.random.Generator, n_boot: int) -> np.ndarray:
    medians: np.ndarray = np.median(xs[rng.integers(0, xs.size, size=(n_boot, xs.size))], axis=1)
    return medians


def fit_samples(by_steps: Mapping[int, Sequence[float]], n_boot: int = N_BOOT, seed: int = SEED,
                confidence: float = stats.CONFIDENCE) -> StepFit:
    """Fixed and per-step cost from the samples (seconds per call) at each step count: the
    line through the medians, its CIs from resampling each step count's samples. Raises
    ValueError with fewer than two step counts or an empty sample. Deterministic per seed."""
    counts = sorted(by_steps)
    if len(counts) < 2 or any(len(by_steps[k]) == 0 for k in counts):
        raise ValueError(f"fixed and per-step cost need samples at two step counts or more, got {counts}")
    steps = np.asarray(counts, dtype=float)
    xs = [np.asarray(by_steps[k], dtype=float) for k in counts]
    fixed, per = line(counts, [float(np.median(x)) for x in xs])
    rng = np.random.default_rng(seed)
    boot = np.stack([_resampled_medians(x, rng, n_boot) for x in xs], axis=1)
    fixed_b, per_b = _lines(steps, boot)
    be = _breakeven(fixed_b, per_b)
    return StepFit(
        fixed=Interval(fixed, *_bounds(fixed_b, confidence)),
        per_step=Interval(per, *_bounds(per_b, confidence)),
        breakeven=Interval(float(_breakeven(np.asarray([fixed]), np.asarray([per]))[0]), *_bounds(be, confidence))
        if per > 0 else None,
        steps=tuple(counts), n=tuple(x.size for x in xs))


def per_step_ratio(slower: Mapping[int, Measurement], faster: Mapping[int, Measurement], n_boot: int = N_BOOT,
                   seed: int = SEED, confidence: float = stats.CONFIDENCE) -> Ratio:
    """Per-step speedup of ``faster`` over ``slower`` (slower's per-step cost over faster's)
    with a percentile-bootstrap CI, over the step counts both were measured at. At each step
    count the two are resampled by round jointly when they were measured side by side (at
    least :data:`MIN_PAIRED` common rounds), else each its own samples. ``paired`` only when
    every step count was; ``n`` the fewest rounds (or samples) at any step count."""
    counts = sorted(set(slower) & set(faster))
    if len(counts) < 2:
        raise ValueError(f"a per-step comparison needs two step counts measured on both sides, got {counts}")
    rng = np.random.default_rng(seed)
    steps = np.asarray(counts, dtype=float)
    points: list[tuple[float, float]] = []
    boot_s: list[np.ndarray] = []
    boot_f: list[np.ndarray] = []
    ns: list[int] = []
    paired = True
    for k in counts:
        pair = slower[k].paired_with(faster[k])
        if pair is not None and len(pair[0]) >= MIN_PAIRED:
            a, b = np.asarray(pair[0], dtype=float), np.asarray(pair[1], dtype=float)
            idx = rng.integers(0, a.size, size=(n_boot, a.size))
            boot_s.append(np.median(a[idx], axis=1))
            boot_f.append(np.median(b[idx], axis=1))
            ns.append(a.size)
        else:
            a, b = np.asarray(slower[k].samples, dtype=float), np.asarray(faster[k].samples, dtype=float)
            boot_s.append(_resampled_medians(a, rng, n_boot))
            boot_f.append(_resampled_medians(b, rng, n_boot))
            paired = False
            ns.append(min(a.size, b.size))
        points.append((float(np.median(a)), float(np.median(b))))
    per_s = line(counts, [p[0] for p in points])[1]
    per_f = line(counts, [p[1] for p in points])[1]
    ratios = (np.maximum(_lines(steps, np.stack(boot_s, axis=1))[1], FLOOR_S)
              / np.maximum(_lines(steps, np.stack(boot_f, axis=1))[1], FLOOR_S))
    low, high = _bounds(ratios, confidence)
    return Ratio(max(per_s, FLOOR_S) / max(per_f, FLOOR_S), low, high, paired=paired, n=min(ns))


# -- grouping -----------------------------------------------------------------------------

@dataclass
class StepScenario:
    """A claim's scenario without the step parameter: the scenarios of each step count."""

    scenario: Scenario                          # params without the step parameter
    by_steps: dict[int, Scenario]

    def sides(self, a: str, b: str) -> tuple[dict[int, Measurement], dict[int, Measurement]]:
        """The measurements of variants ``a`` and ``b`` at the step counts where both were measured."""
        counts = [k for k, sc in sorted(self.by_steps.items()) if a in sc.variants and b in sc.variants]
        return ({k: self.by_steps[k].variants[a] for k in counts}, {k: self.by_steps[k].variants[b] for k in counts})


def step_scenarios(scs: Iterable[Scenario], param: str) -> list[StepScenario]:
    """Scenarios that differ only in ``param`` joined into one (its ``variants`` named
    "<variant>@<param>=<n>", for provenance and stale marks); scenarios whose ``param`` is
    not a step count are left out."""
    out: dict[tuple[str, str, str], StepScenario] = {}
    for sc in scs:
        k = step_count(sc.params.get(param))
        if k is None:
            continue
        merged = Scenario(sc.runner, sc.topic, without(sc.params, param), dict(sc.settings))
        group = out.setdefault(merged.key, StepScenario(merged, {}))
        group.by_steps[k] = sc
        group.scenario.variants.update({f"{v}@{param}={k}": m for v, m in sc.variants.items()})
    return [out[key] for key in sorted(out)]


def step_groups(measurements: Iterable[Measurement], topic: str, param: str,
                n_boot: int = N_BOOT, seed: int = SEED) -> list[StepGroup]:
    """Per runner and parameters apart from ``param``, measured at two step counts or more:
    every variant and settings group with its fit (or the reason it has none)."""
    groups: dict[tuple[str, str], StepGroup] = {}
    series: dict[tuple[str, str, str, str], StepSeries] = {}
    for m in measurements:
        k = step_count(m.params.get(param)) if m.topic == topic else None
        if k is None:
            continue
        rest = without(m.params, param)
        g = groups.setdefault((m.runner, params_id(rest)), StepGroup(m.runner, topic, param, rest, ()))
        g.steps = tuple(sorted(set(g.steps) | {k}))
        s = series.setdefault((m.runner, params_id(rest), m.settings_id, m.variant),
                              StepSeries(m.runner, topic, m.variant, rest, dict(m.settings), {}))
        s.by_steps[k] = m
    for (runner, pid, _, _), s in series.items():
        groups[(runner, pid)].series.append(s)
    out: list[StepGroup] = []
    for g in (groups[k] for k in sorted(groups)):
        if len(g.steps) < 2:
            continue
        for s in g.series:
            _fit(s, n_boot, seed)
        g.apart_s = _apart(g)
        out.append(g)
    return out


def _fit(s: StepSeries, n_boot: int, seed: int) -> None:
    bad = [m for m in s.measurements if not m.ok]
    ok = {k: m for k, m in s.by_steps.items() if m.ok}
    if len(ok) < 2:
        if bad:
            s.problem = f"{bad[0].status} at {len(bad)} of {len(s.by_steps)} step counts"
        else:
            s.problem = f"measured at one step count only ({next(iter(s.by_steps))})"
        return
    s.fit = fit_samples({k: m.samples for k, m in ok.items()}, n_boot, seed)
    if bad:
        failed = ", ".join(str(k) for k, m in sorted(s.by_steps.items()) if not m.ok)
        s.problem = f"fitted without the step count(s) that failed ({failed})"


def _apart(g: StepGroup) -> float:
    """Seconds between the earliest and the latest step count's median finish time."""
    times: list[float] = []
    for k in g.steps:
        ts = sorted(m.finished.timestamp() for s in g.series for kk, m in s.by_steps.items() if kk == k)
        if ts:
            times.append(ts[len(ts) // 2])
    return max(times) - min(times) if times else 0.0


def is_per_step(claim: Claim) -> bool:
    return claim.get("compare") == PER_STEP


@dataclass(frozen=True)
class Headline:
    """What a group's table says, for one sentence: the largest and smallest fixed cost, how
    many have none beyond the noise, the cheapest and dearest step, and the largest fixed
    cost's share of the shortest call."""

    most_fixed: StepSeries
    least_fixed: StepSeries
    cheapest_step: StepSeries
    dearest_step: StepSeries
    shortest: int                   # the smallest step count measured
    share: float                    # most_fixed's fixed share of a call of `shortest` steps
    fitted: int                     # series with a fit
    no_fixed: int                   # ... whose fixed cost's CI reaches 0 (none beyond the noise)
    below_zero: int                 # ... whose whole CI is below 0: the line is off (drift between the
    #                                 step counts' scenarios, or a cost per step that is not constant)


def headline(group: StepGroup) -> Headline | None:
    fitted = group.fitted
    if not fitted:
        return None

    def fixed(s: StepSeries) -> float:
        return s.fit.fixed.point if s.fit else math.nan

    def per(s: StepSeries) -> float:
        return s.fit.per_step.point if s.fit else math.nan

    most = max(fitted, key=fixed)
    assert most.fit is not None
    return Headline(most_fixed=most, least_fixed=min(fitted, key=fixed), cheapest_step=min(fitted, key=per),
                    dearest_step=max(fitted, key=per), shortest=group.steps[0],
                    share=most.fit.fixed_share(group.steps[0]), fitted=len(fitted),
                    no_fixed=sum(1 for s in fitted if s.fit and s.fit.fixed.low <= 0),
                    below_zero=sum(1 for s in fitted if s.fit and s.fit.fixed.high < 0))



# -- a compile step's first call ---------------------------------------------------------------

def breakeven_calls(first_base: float, per_call_base: float,
                    first_cand: float, per_call_cand: float) -> int | None:
    """Smallest n such that for every m >= n calls the candidate's total time,
    ``first_cand + (m - 1) * per_call_cand``, is at most the baseline's. ``None``: never
    (the candidate is slower per call, or as fast per call but slower to start)."""
    for v in (first_base, per_call_base, first_cand, per_call_cand):
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
            raise ValueError(f"times must be finite and >= 0, got {v!r}")
    gain = per_call_base - per_call_cand          # saved per steady-state call
    extra = first_cand - first_base               # paid once, on the first call
    if gain < 0:
        return None
    if gain == 0:
        return 1 if extra <= 0 else None
    if extra <= 0:
        return 1
    return 1 + math.ceil(extra / gain - 1e-12)


@dataclass(frozen=True)
class BreakEven:
    params: dict[str, Scalar]
    settings: dict[str, str]
    runner: str | None
    first_base: float
    first_cand: float
    median_base: float
    median_cand: float
    calls: int | None              # point estimate from the medians
    calls_best: int | None         # from the CI ends most favourable to the candidate
    calls_worst: int | None        # ... least favourable (None: may never pay off)

    @property
    def label(self) -> str:
        if self.calls is None:
            return "never"
        return "first call" if self.calls == 1 else f"after {self.calls} calls"


def latest_ok(measurements: Iterable[Measurement]) -> dict[str, Measurement]:
    """The newest ok result with a first call per case id (results are never dropped, so a
    case may repeat; ``Dataset.current`` has already chosen one per case)."""
    out: dict[str, Measurement] = {}
    for m in measurements:
        if m.ok and m.first_call_s is not None and (m.case_id not in out or m.finished >= out[m.case_id].finished):
            out[m.case_id] = m
    return out


def breakeven_table(measurements: Iterable[Measurement], baseline: str, candidate: str,
                    runner: str | None = None) -> list[tuple[BreakEven, Measurement, Measurement]]:
    """One row per scenario (parameters and settings) that has ok results of both variants,
    with the two measurements it was computed from."""
    by_scenario: dict[tuple[str, str], dict[str, Measurement]] = {}
    for m in latest_ok(measurements).values():
        if m.variant in (baseline, candidate) and not m.case_id.endswith("#aa"):
            by_scenario.setdefault((m.settings_id, m.params_id), {})[m.variant] = m
    rows = []
    for _, pair in sorted(by_scenario.items()):
        if baseline not in pair or candidate not in pair:
            continue
        b, c = pair[baseline], pair[candidate]
        assert b.first_call_s is not None and c.first_call_s is not None    # latest_ok keeps only those
        assert b.median is not None and b.ci_low is not None and b.ci_high is not None     # m.ok: all three
        assert c.median is not None and c.ci_low is not None and c.ci_high is not None
        fb, fc = b.first_call_s, c.first_call_s
        rows.append((BreakEven(
            params=dict(b.params), settings=dict(b.settings), runner=runner,
            first_base=fb, first_cand=fc, median_base=b.median, median_cand=c.median,
            calls=breakeven_calls(fb, b.median, fc, c.median),
            calls_best=breakeven_calls(fb, b.ci_high, fc, c.ci_low),
            calls_worst=breakeven_calls(fb, b.ci_low, fc, c.ci_high),
        ), b, c))
    return rows


@dataclass(frozen=True)
class TenRunView:
    first_mean: float              # what timeit(number=runs)/runs right after warm-up would show
    window_low: float              # the lowest such mean over the whole run
    window_high: float             # the highest
    median: float
    ci_low: float
    ci_high: float
    samples_per_window: int
    calls_per_window: int

    @property
    def first_mean_outside_ci(self) -> bool:
        return not (self.ci_low <= self.first_mean <= self.ci_high)


def ten_run_view(samples: Sequence[float], inner_loops: int = 1, runs: int = 10) -> TenRunView | None:
    """A single ``runs``-call mean from the first stored samples, and the range of such means
    over consecutive windows of the run, beside the median and its CI.

    Each stored sample is the mean of ``inner_loops`` calls, so a window holds
    ceil(runs / inner_loops) samples (``calls_per_window`` says how many calls that is).
    ``None`` when the run has fewer samples than one window."""
    if inner_loops < 1 or runs < 1:
        raise ValueError("inner_loops and runs must be >= 1")
    k = max(1, math.ceil(runs / inner_loops))
    if len(samples) < k:
        return None
    means = [sum(samples[i:i + k]) / k for i in range(len(samples) - k + 1)]
    s = summarize(list(samples))
    return TenRunView(first_mean=means[0], window_low=min(means), window_high=max(means),
                      median=s.median, ci_low=s.ci_low, ci_high=s.ci_high,
                      samples_per_window=k, calls_per_window=k * inner_loops)


__all__ = ["BreakEven", "Headline", "Interval", "StepFit", "StepGroup", "StepScenario", "StepSeries", "TenRunView",
           "breakeven_calls", "breakeven_table", "fit_samples", "headline", "is_per_step", "latest_ok", "line",
           "per_step_ratio", "step_count", "step_groups", "step_scenarios", "ten_run_view"]
