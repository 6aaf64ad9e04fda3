"""When does a compile step pay off, and what would a ten-run average have said?

Two small analyses over stored results (plain dicts as in ``schema_v2.json``), for the
tf.function/XLA page:

* ``breakeven_calls`` - after how many calls the total time of a variant with a slower
  first call (e.g. ``jit_compile=True``: trace + XLA compile) drops below another's
  (plain ``tf.function``), or ``None`` when it never does;
* ``ten_run_view`` - the figure a "timeit(number=10) / 10" measurement would have given,
  taken from the stored samples, beside the median and its 95% CI.

No TensorFlow, no I/O, no formatting: the renderer lays the rows out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...stats import summarize
from ...store.record_types import Scalar
from ..load.records import Measurement


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
        if m.ok and m.first_call_s is not None and (m.case_id not in out or m.finished_at >= out[m.case_id].finished_at):
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
