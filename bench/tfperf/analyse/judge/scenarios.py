"""Per scenario (runner × parameters × settings): the speedups every comparison of the guide
is read from, the noise floors that set its margin, and the comparisons a topic makes
within a scenario before any claim.

* **Speedups** (:class:`Ratio`, :class:`RatioCache`): a candidate's speedup over a baseline
  with its 95% confidence interval. ``tfperf.stats.ratio_ci`` bootstraps (a few ms to tens
  of ms per pair); a site build asks for the same pairs from several pages and across
  builds, so results are memoised by the content of the samples, and optionally kept in a
  JSON file between builds.
* **Noise floors** (:func:`noise_floor`, :func:`pair_noise`): a runner's noise floor, from
  the A/A pairs stored with its results.
* **Recommendations** (:func:`recommend`): the fastest variant whose output is correct, and
  its speedup over the default way, with a confidence interval and its finding.
* **Settings groups** (:func:`settings_speedups`): for topics whose comparisons are between
  settings rather than variants (cpu_threads: threads, OMP_NUM_THREADS, oneDNN), every
  measured settings group is compared with the topic's ``baseline_settings`` group for the
  same runner, parameters and variant: median(baseline) / median(group) (or, measured side
  by side, the median of per-round ratios) with its CI, and its finding
  (:func:`tfperf.analyse.judge.effects.effect`: faster, slower, the same or unclear, with
  the margin of every comparison of the guide).
* **Negative controls** (:func:`controls_for`): pairs of settings groups that must measure
  the same.

A scenario's A/A pair measures the baseline twice in one worker process, so it cannot see
a bias of the process itself. Such biases exist: on this project's 2-core runner, a
run's default-settings worker once measured 8-17% slower than three other groups,
``threads=2`` among them, which on two cores is what the default does (memory layout
and thread placement change from one process to the next; Mytkowicz et al., ASPLOS 2009).
A topic therefore names *controls* in its YAML::

    controls:
      - id: all_cores_is_default
        text: "threads=N on an N-core runner is what the default does."
        variant: call
        settings: {threads: "{cores}"}      # {cores}: the runner's core count
        same_as: {threads: default}

When a control of a scenario differs by more than the margin (the pair's noise floor,
and at least :data:`tfperf.stats.MIN_EFFECT`), comparisons between that scenario's
settings groups cannot be told from process bias: their verdicts become "unclear".
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import stats
from ...cases import Control, control_applies, where_holds
from ...errors import ResultsWriteError
from ...store.files import publish
from ...store.record_types import Scalar
from ..records import Measurement, Noise, params_id, settings_id
from .effects import MARGIN, Finding, effect

# -- speedups with their intervals -------------------------------------------------------------

@dataclass(frozen=True)
class Ratio:
    """Speedup of a candidate over a baseline. Paired (measured side by side): the median
    of per-round ratios; unpaired: median(baseline) / median(candidate)."""

    point: float
    low: float
    high: float
    paired: bool = False
    n: int = 0                 # rounds (paired) or the smaller sample count

    @property
    def rel_halfwidth(self) -> float:
        return (self.high - self.low) / 2.0 / self.point if self.point > 0 else float("inf")


def _key_prefix() -> str:
    """The statistics' parameters, part of every key: a change to them never serves an old interval."""
    return f"boot{stats.CONFIDENCE}:{stats.N_BOOT}:{stats.BOOT_SEED}:"


def _digest(xs: Sequence[float] | Sequence[int]) -> str:
    return hashlib.sha1(struct.pack(f"{len(xs)}d", *xs)).hexdigest()


class RatioCache:
    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else None
        self._memo: dict[str, tuple[float, float, float]] = {}
        self._dirty = False
        if self.path and self.path.is_file():
            try:
                raw = json.loads(self.path.read_text(encoding="utf-8"))
                self._memo = {k: (float(v[0]), float(v[1]), float(v[2])) for k, v in raw.items()}
            except (OSError, ValueError, TypeError, IndexError):
                self._memo = {}

    def ratio(self, baseline: Sequence[float], candidate: Sequence[float]) -> Ratio:
        key = _key_prefix() + _digest(baseline) + _digest(candidate)
        hit = self._memo.get(key)
        if hit is None:
            hit = stats.ratio_ci(baseline, candidate)
            self._memo[key] = hit
            self._dirty = True
        return Ratio(*hit)

    def speedup(self, baseline: Measurement, candidate: Measurement) -> Ratio:
        """Speedup of ``candidate`` over ``baseline``: paired when both were measured in
        the same interleave (at least 6 common rounds, the fewest for a 95% CI of a
        median), else the bootstrap ratio of medians."""
        pair = baseline.paired_with(candidate)
        if pair is not None and len(pair[0]) >= 6:
            return Ratio(*stats.paired_ratio(*pair, processes=baseline.paired_processes(candidate)),
                         paired=True, n=len(pair[0]))
        r = self.ratio(baseline.samples, candidate.samples)
        return Ratio(r.point, r.low, r.high, paired=False, n=min(len(baseline.samples), len(candidate.samples)))

    def tail_speedup(self, baseline: Measurement, candidate: Measurement, q: float) -> Ratio | None:
        """Speedup of ``candidate`` over ``baseline`` at the ``q`` quantile of their request
        latencies (per-request patterns), from the rounds both measured side by side
        (:func:`tfperf.stats.paired_quantile_ratio`, a bootstrap over whole rounds, memoised);
        None without 6 such rounds."""
        if not baseline.interleave_id or baseline.interleave_id != candidate.interleave_id:
            return None
        mine, theirs = dict(zip(baseline.rounds, baseline.latencies)), dict(zip(candidate.rounds, candidate.latencies))
        common = [i for i in sorted(set(mine) & set(theirs)) if mine[i] and theirs[i]]
        if len(common) < 6:
            return None
        a, b = [list(mine[i]) for i in common], [list(theirs[i]) for i in common]
        key = (_key_prefix() + f"q{q}:" + _digest([x for r in a for x in r]) + _digest([len(r) for r in a])
               + _digest([x for r in b for x in r]) + _digest([len(r) for r in b]))
        hit = self._memo.get(key)
        if hit is None:
            hit = stats.paired_quantile_ratio(a, b, q)
            self._memo[key] = hit
            self._dirty = True
        return Ratio(*hit, paired=True, n=len(common))

    def save(self) -> None:
        """The memo written whole or not at all (:func:`~tfperf.store.files.publish`); one
        that cannot be written (a full disk) only costs the next build the intervals again."""
        if not (self.path and self._dirty):
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            publish(self.path, json.dumps(self._memo).encode("utf-8"), sync=False)
        except (OSError, ResultsWriteError):
            return
        self._dirty = False


# -- noise floors ------------------------------------------------------------------------------

# Used when a runner stored no A/A pair at all; said so wherever it is used.
ASSUMED_NOISE = 0.05


@dataclass(frozen=True)
class NoiseFloor:
    value: float
    basis: str          # how it was obtained, for the page


def noise_floor(records: Iterable[Noise], runner: str, settings_id: str, topic: str | None = None,
                interleave: str | None = None) -> NoiseFloor:
    """The noise floor of a comparison.

    Measured side by side (schema 2), it is the scenario's own: the A/A pair of the
    baseline measured twice in each round of the same interleave. Otherwise the max
    relative noise of the runner's A/A pairs, from the closest group that has any: the
    same topic and settings, the same topic, the same settings (any topic), the whole
    runner; else an assumed value. A pair measured for one topic says little about another
    topic's noise (its cases, models and processes differ), so ``topic`` comes first."""
    records = list(records)
    if interleave:
        own = [r for r in records if r.interleave == interleave]
        if own:
            return NoiseFloor(max(r.rel_noise for r in own),
                              f"this scenario's A/A pair: its baseline measured twice in each of {own[0].rounds} rounds")
    mine = [r for r in records if r.runner == runner and not r.interleave] or \
        [r for r in records if r.runner == runner]
    tiers = []
    if topic is not None:
        tiers += [([r for r in mine if r.topic == topic and r.settings_id == settings_id],
                   f"{topic} with settings {settings_id}"),
                  ([r for r in mine if r.topic == topic], f"{topic}, all its settings groups")]
    tiers += [([r for r in mine if r.settings_id == settings_id], f"settings {settings_id}, any topic"),
              (mine, "the whole runner")]
    for found, what in tiers:
        if found:
            return NoiseFloor(max(r.rel_noise for r in found), f"max of {len(found)} A/A pair(s): {what}")
    return NoiseFloor(ASSUMED_NOISE, f"assumed {ASSUMED_NOISE:.0%}: no A/A pair stored for this runner")


# -- scenarios and recommendations -------------------------------------------------------------

@dataclass
class Scenario:
    runner: str
    topic: str
    params: dict[str, Scalar]
    settings: dict[str, str]
    variants: dict[str, Measurement] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.runner, settings_id(self.settings), params_id(self.params))

    @property
    def stale(self) -> bool:
        return any(m.stale for m in self.variants.values())

    def matches(self, where: Mapping[str, object] | None) -> bool:
        """True when every ``where`` field (a parameter or setting) has one of the values listed."""
        return where_holds(where, self.params, self.settings)


def scenarios(measurements: Iterable[Measurement], topic: str) -> list[Scenario]:
    out: dict[tuple[str, str, str], Scenario] = {}
    for m in measurements:
        if m.topic != topic:
            continue
        sc = Scenario(m.runner, m.topic, m.params, m.settings)
        sc = out.setdefault(sc.key, sc)
        sc.variants[m.variant] = m
    return [out[k] for k in sorted(out, key=_sort_key)]


def _sort_key(k: tuple[str, str, str]) -> tuple[Any, ...]:
    # Numbers inside ids sort numerically (batch_size=8 before batch_size=64).
    return tuple(tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", part)) for part in k)


def correct(m: Measurement) -> bool:
    """Output checked and within tolerance (the reference variant is correct by definition)."""
    return m.within_tolerance is True or (m.is_reference is True and m.within_tolerance is not False)


# The output check's note when the output has NaN or inf where the reference has a number
# (tfperf.measure.worker.outputs.compare); its max abs diff then covers the finite values only.
# Results before output.nonfinite existed say it only in this note.
_NONFINITE = re.compile(r"^(\d+) of (\d+) values non-finite")


def nonfinite(m: Measurement) -> tuple[int, int] | None:
    """(values NaN or inf where the reference's are finite, values in all) for an output
    outside tolerance that has such values, else None."""
    if m.within_tolerance is not False:
        return None
    out = m.output
    if out is not None and out.nonfinite is not None and out.values is not None:
        return (out.nonfinite, out.values) if out.nonfinite else None
    match = _NONFINITE.match(out.note or "" if out else "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def output_error(m: Measurement) -> str | None:
    """How far an output outside tolerance is off ("NaN or inf in all 10 values", "max abs
    diff 0.37"), or None for an output within tolerance or not checked."""
    if m.within_tolerance is not False:
        return None
    bad = nonfinite(m)
    if bad is not None:
        return f"NaN or inf in {'all ' + str(bad[1]) if bad[0] == bad[1] else f'{bad[0]} of {bad[1]}'} values"
    return f"max abs diff {m.max_abs_diff:.3g}" if m.max_abs_diff is not None else (m.output.note if m.output else None)


def exclusion_reason(m: Measurement) -> str | None:
    """Why a variant cannot be recommended, or None."""
    if m.status != "ok":
        return f"{m.status}: {(m.error or '').strip().splitlines()[-1] if m.error else 'no error text'}"
    if not m.ok:
        return "no timing samples"
    if m.within_tolerance is False:
        error = output_error(m)
        return f"output outside tolerance ({error})" if error else "output outside tolerance"
    if not correct(m):
        return "output not checked against the reference"
    return None


@dataclass
class Recommendation:
    scenario: Scenario
    default: str
    best: str | None
    speedup: Ratio | None          # best over default
    finding: Finding | None        # best against the default: faster / slower / the same / unclear (None: best is it)
    noise: NoiseFloor
    excluded: dict[str, str]       # variant -> reason it is never recommended
    fastest_overall: str | None    # fastest ok variant regardless of correctness
    tied: tuple[str, ...] = ()     # other correct variants level with `best` within the noise: no single winner

    @property
    def stale(self) -> bool:
        return self.scenario.stale


BOUND_REASON = "a limit to compare with, not an option"


def recommend(sc: Scenario, default: str, noise_records: list[Noise], cache: RatioCache,
              bounds: Iterable[str] = ()) -> Recommendation:
    """The fastest variant with a correct output, its speedup over ``default``, and those it
    is not clearly faster than; ``bounds`` (the topic's limits, e.g. data in memory) and the
    variants with a wrong output or no result are never it."""
    excluded = {v: r for v, m in sc.variants.items() if (r := exclusion_reason(m))}
    excluded.update({v: BOUND_REASON for v in bounds if v in sc.variants and v not in excluded})
    ok = [m for m in sc.variants.values() if m.ok]
    candidates = [m for m in ok if m.variant not in excluded]
    best = min(candidates, key=lambda m: m.median or float("inf")) if candidates else None
    fastest = min(ok, key=lambda m: m.median or float("inf")) if ok else None
    d = sc.variants.get(default)
    nf = noise_floor(noise_records, sc.runner, settings_id(sc.settings), sc.topic,
                     interleave=d.interleave_id if d is not None else None)
    speed: Ratio | None = None
    finding: Finding | None = None
    margin = max(nf.value, MARGIN)
    if best is not None and d is not None and d.ok:
        speed = cache.speedup(d, best)
        finding = effect(speed.low, speed.high, margin) if best.variant != default else None
    # A variant the best is not clearly faster than ties with it (e.g. two spellings of one
    # code path): the page names no winner among them.
    tied = tuple(sorted(m.variant for m in candidates if best is not None and m is not best
                        and cache.speedup(m, best).low <= 1.0 + margin))
    return Recommendation(scenario=sc, default=default, best=best.variant if best else None,
                          speedup=speed, finding=finding, noise=nf, excluded=excluded,
                          fastest_overall=fastest.variant if fastest else None, tied=tied)


# -- settings groups against the baseline ------------------------------------------------------

@dataclass
class SettingsSpeedup:
    """One settings group of one case against the baseline group."""

    measurement: Measurement
    baseline: Measurement | None
    ratio: Ratio | None          # speedup of this group over the baseline (> 1: faster)
    noise: NoiseFloor | None
    finding: Finding | None      # faster / slower / the same / unclear; None: the baseline, or no ratio
    problem: str | None = None   # why there is no ratio

    @property
    def is_baseline(self) -> bool:
        return self.baseline is self.measurement

    @property
    def runner(self) -> str:
        return self.measurement.runner

    @property
    def settings(self) -> dict[str, str]:
        return self.measurement.settings

    @property
    def params(self) -> dict[str, Scalar]:
        return self.measurement.params


def pair_noise(noise: list[Noise], a: Measurement, b: Measurement, topic: str) -> NoiseFloor:
    """The noise floor of comparing ``a`` with ``b``: their scenario's own A/A pair when
    they were measured side by side, else the larger floor of their two settings groups."""
    if a.interleave_id and a.interleave_id == b.interleave_id:
        return noise_floor(noise, a.runner, a.settings_id, topic, interleave=a.interleave_id)
    return max(noise_floor(noise, a.runner, a.settings_id, topic), noise_floor(noise, b.runner, b.settings_id, topic),
               key=lambda n: n.value)


def baseline_of(settings: dict[str, str], baseline: dict[str, str]) -> dict[str, str]:
    """The baseline group for ``settings``: the baseline's values for the settings it names,
    the group's own values for the others (e.g. a Keras version)."""
    return {**settings, **{k: v for k, v in baseline.items() if k in settings}}


def settings_speedups(measurements: Iterable[Measurement], topic: str, baseline: dict[str, str],
                      noise: list[Noise], cache: RatioCache) -> list[SettingsSpeedup]:
    """Every measurement of ``topic`` against its baseline group (same runner, parameters,
    variant). Failed cases and missing baselines are kept, with the reason."""
    ms = [m for m in measurements if m.topic == topic]
    index = {(m.runner, m.params_id, m.variant, m.settings_id): m for m in ms}
    out: list[SettingsSpeedup] = []
    for m in ms:
        bsid = settings_id(baseline_of(m.settings, baseline))
        b = index.get((m.runner, m.params_id, m.variant, bsid))
        if b is m:
            one = Ratio(1.0, 1.0, 1.0) if m.ok else None
            out.append(SettingsSpeedup(m, m, one, None, None, None if m.ok else exclusion_reason(m)))
            continue
        if b is None:
            out.append(SettingsSpeedup(m, None, None, None, None, f"baseline {bsid} not measured"))
            continue
        if not (m.ok and b.ok):
            bad = m if not m.ok else b
            out.append(SettingsSpeedup(m, b, None, None, None, f"{bad.settings_id}: {exclusion_reason(bad)}"))
            continue
        nf = pair_noise(noise, b, m, topic)
        r = cache.speedup(b, m)
        out.append(SettingsSpeedup(m, b, r, nf, effect(r.low, r.high, max(nf.value, MARGIN))))
    return out


# -- negative controls -------------------------------------------------------------------------

Index = dict[tuple[str, str, str, str], Measurement]   # (runner, params_id, variant, settings_id)


@dataclass(frozen=True)
class ControlResult:
    control_id: str
    text: str
    measured: Measurement        # with the control's settings
    reference: Measurement       # with the settings it must equal
    ratio: Ratio                 # speedup of `measured` over `reference`; must be 1
    margin: float

    @property
    def failed(self) -> bool:
        return self.ratio.low > 1.0 + self.margin or self.ratio.high < 1.0 / (1.0 + self.margin)

    def describe(self) -> str:
        """"threads=2 measured 1.087× the speed of threads=default, which it must equal (±5%)"."""
        return (f"{self.measured.settings_id} measured {self.ratio.point:.3g}× the speed of "
                f"{self.reference.settings_id}, which it must equal (±{self.margin:.0%})")


def index(measurements: Iterable[Measurement]) -> Index:
    return {(m.runner, m.params_id, m.variant, m.settings_id): m for m in measurements}


def _resolve(settings: dict[str, str], m: Measurement) -> dict[str, str] | None:
    """``{cores}`` in a control's settings becomes the runner's core count (None when the
    environment record does not say it)."""
    cores = m.env.get("cores") if m.env else None
    out = {}
    for k, v in settings.items():
        if "{cores}" in v:
            if not isinstance(cores, int):
                return None
            v = v.replace("{cores}", str(cores))
        out[k] = v
    return out


def controls_for(m: Measurement, controls: Iterable[Control], by: Index, noise: list[Noise],
                 cache: RatioCache) -> list[ControlResult]:
    """The controls measured in ``m``'s scenario: the same runner and parameters, and the
    same values as ``m`` for every setting the control does not name."""
    out = []
    for c in controls:
        if not control_applies(c, m.params):
            continue
        a_settings = _resolve({**m.settings, **{str(k): str(v) for k, v in (c.get("settings") or {}).items()}}, m)
        b_settings = {**m.settings, **{str(k): str(v) for k, v in (c.get("same_as") or {}).items()}}
        if a_settings is None:
            continue
        variant = str(c.get("variant"))
        a = by.get((m.runner, m.params_id, variant, settings_id(a_settings)))
        b = by.get((m.runner, m.params_id, variant, settings_id(b_settings)))
        if a is None or b is None or a is b or not (a.ok and b.ok):
            continue
        margin = max(pair_noise(noise, a, b, m.topic).value, stats.MIN_EFFECT)
        out.append(ControlResult(str(c.get("id")), str(c.get("text") or ""), a, b, cache.speedup(b, a), margin))
    return out
