"""The "Do this" answer of a topic page: the call to use instead of the default
(:func:`advise`), or, for a topic that compares process settings, the setting to change
(:func:`advise_settings`), each with its finding in the words of
:mod:`tfperf.analyse.judge.effects` (count, range, typical speedup, exceptions named).

**A call** (:func:`advise`), computed from the recommendations: which call to use instead
of the default, and its finding against the default on each runner. A topic whose calls
run several steps (``per_step:``, train_step) is answered per step: the call's fixed cost
(``fit()`` setting up an epoch) apart, from the scenarios measured at two step counts or
more; the per-call figure of its shortest calls is kept as the start-up question
(:attr:`Advice.per_call`).

**A setting** (:func:`advise_settings`, cpu_threads): which setting to change from the
topic's ``baseline_settings``, if any; its typical speedup with the range over scenarios;
and where it does not pay.

A *choice* is a settings group that differs from the baseline in one setting (one knob
turned, the others as installed): that is what a reader changes. Groups that turn two
knobs at once stay in the tables. A group that a negative control says must measure the
same as the baseline (``threads=<cores>``, :func:`tfperf.analyse.judge.scenarios.controls_for`)
is no choice.

Each choice is judged per scenario (runner, parameters, variant and the settings outside
the baseline) against the baseline group: faster, slower, the same, or unclear (the interval
straddles the margin, or a control of the scenario failed, so its processes were not
comparable). The margin is the pair's noise floor and at least
:data:`tfperf.analyse.judge.effects.MARGIN`, as for the claims.

The advice names a setting to *use* only when it is faster beyond the noise in most of
its scenarios and slower in none; otherwise it says to keep the baseline, and lists the
choices that pay somewhere (:attr:`SettingsAdvice.pays_somewhere`) with where they do
not, and the choices that are slower in most scenarios (:attr:`SettingsAdvice.costly`).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...cases import PARAM_KEY, Claim
from ...store.record_types import Scalar
from ..dataset import Dataset
from ..judge.claims import ClaimResult, check_claim
from ..judge.effects import MARGIN, Finding, Summary, effect, summarise, summary_text
from ..judge.effects import Point as EffectPoint
from ..judge.scenarios import controls_for
from ..judge.scenarios import index as control_index
from ..records import Measurement


@dataclass(frozen=True)
class RunnerAdvice:
    runner: str
    summary: Summary                       # `use` against the default over the runner's scenarios
    text: str                              # the summary in words
    typical: float | None                  # the median speedup where it is faster


@dataclass
class Advice:
    topic: str
    default: str
    use: str | None                        # None: nothing beats the default in most scenarios
    per: str = "call"                      # "call", or the unit of a per-step comparison ("step")
    runners: list[RunnerAdvice] = field(default_factory=list)
    per_call: list[RunnerAdvice] = field(default_factory=list)   # per call, where `per` is a step
    level_with: Counter[str] = field(default_factory=Counter)    # variants tied with `use`, and in how many scenarios


def _winner(ds: Dataset, topic: str) -> str | None:
    """The variant that is the fastest correct one and faster than the default in the most
    scenarios (a tie that leaves the default out counts; a tie with the default does not),
    and in at least as many as the default stays the fastest or tied with the fastest: a
    variant that wins 1 scenario of 18 is not advice."""
    recs = ds.recommendations(topic)
    won = Counter(r.best for r in recs
                  if r.best and r.best != r.default and r.default not in r.tied and r.finding == Finding.FASTER)
    kept = sum(1 for r in recs if r.best == r.default or r.default in r.tied)
    if not won or won.most_common(1)[0][1] < kept:
        return None
    return won.most_common(1)[0][0]


def _runner_advice(cr: ClaimResult, order: dict[str, list[object]] | None) -> list[RunnerAdvice]:
    out = []
    for runner in cr.runners_with_data:
        s = cr.summary(runner)
        out.append(RunnerAdvice(runner, s, summary_text(s, order, label=cr.label), s.typical(Finding.FASTER)))
    return out


def advise(ds: Dataset, topic: str) -> Advice | None:
    recs = ds.recommendations(topic)
    if not recs:
        return None
    default = recs[0].default
    use = _winner(ds, topic)
    advice = Advice(topic, default, use)
    if use is None:
        return advice
    for r in recs:
        if r.best == use:
            advice.level_with.update(v for v in r.tied if v != default)
    info = ds.topics.get(topic)
    order = info.param_values if info else None
    claim: Claim = {"id": f"{use}_vs_{default}", "candidate": use, "baseline": default}
    per_call = ds.named(check_claim(claim, ds.scenarios(topic), ds.noise, ds.cache), topic)
    if info is not None and info.per_step:
        per_step = ds.named(check_claim({**claim, "compare": "per_step", PARAM_KEY: info.per_step},
                                        ds.scenarios(topic), ds.noise, ds.cache), topic)
        if per_step.runners_with_data:
            advice.per = info.per_call.unit if info.per_call else "step"
            advice.runners = _runner_advice(per_step, order)
            shortest = min(v for v in info.param_values.get(info.per_step, [0]) if isinstance(v, int))
            short = ds.named(check_claim({**claim, "where": {info.per_step: [shortest]}}, ds.scenarios(topic),
                                         ds.noise, ds.cache), topic)
            advice.per_call = _runner_advice(short, order)
            return advice
    advice.runners = _runner_advice(per_call, order)
    return advice


# -- a setting to change -----------------------------------------------------------------------

FASTER, SLOWER, LEVEL, UNCLEAR = Finding.FASTER, Finding.SLOWER, Finding.SAME, Finding.UNCLEAR


@dataclass(frozen=True)
class Point:
    """One choice in one scenario against the baseline group."""

    measurement: Measurement
    speedup: float                # baseline time / this group's time (> 1: faster)
    low: float
    high: float
    outcome: Finding              # FASTER / SLOWER / LEVEL (the same) / UNCLEAR
    note: str | None = None       # e.g. the control that failed

    @property
    def params(self) -> dict[str, Scalar]:
        return self.measurement.params


@dataclass(frozen=True)
class Condition:
    """Where a choice never pays: one parameter's values (e.g. batch 64), with the range of
    speedups there."""

    param: str
    values: tuple[str, ...]
    points: tuple[Point, ...]

    @property
    def low(self) -> float:
        return min(p.speedup for p in self.points)

    @property
    def high(self) -> float:
        return max(p.speedup for p in self.points)

    @property
    def slower(self) -> int:
        return sum(1 for p in self.points if p.outcome == SLOWER)


@dataclass
class Choice:
    """One knob turned away from the baseline, over every scenario it was measured in."""

    setting: str                   # the setting's name, e.g. "threads"
    value: str                     # its value, e.g. "1"
    points: list[Point] = field(default_factory=list)

    def count(self, outcome: Finding) -> int:
        return sum(1 for p in self.points if p.outcome == outcome)

    @property
    def wins(self) -> int:
        return self.count(FASTER)

    @property
    def losses(self) -> int:
        return self.count(SLOWER)

    @property
    def scenarios(self) -> int:
        return len(self.points)

    @property
    def typical(self) -> float:
        return statistics.median(p.speedup for p in self.points)

    @property
    def low(self) -> float:
        return min(p.speedup for p in self.points)

    @property
    def high(self) -> float:
        return max(p.speedup for p in self.points)

    @property
    def best(self) -> float:
        """The largest speedup where it is faster beyond the noise (its gain where it pays)."""
        return max((p.speedup for p in self.points if p.outcome == FASTER), default=1.0)

    @property
    def not_paying(self) -> list[Point]:
        return [p for p in self.points if p.outcome != FASTER]

    @property
    def recommended(self) -> bool:
        """Faster beyond the noise in most of its scenarios and slower in none."""
        return self.wins * 2 > self.scenarios and self.losses == 0

    def runners(self) -> list[str]:
        return sorted({p.measurement.runner for p in self.points})

    def summary(self, runner: str, label: Callable[[str, object], str] | None = None) -> Summary:
        """Its findings over the runner's scenarios (:func:`tfperf.analyse.judge.effects.summarise`),
        each scenario named by what varies between them."""
        mine = [p for p in self.points if p.measurement.runner == runner]
        varying = [k for k in dict.fromkeys(k for p in mine for k in p.params)
                   if len({str(p.params.get(k)) for p in mine}) > 1]
        name = label or (lambda k, v: f"{k} {v}")
        return summarise(EffectPoint(p.outcome, p.speedup, p.low, p.high, dict(p.params),
                                     ", ".join(name(k, p.params[k]) for k in varying if k in p.params)
                                     or "the one scenario")
                         for p in mine)

    def never_pays(self, order: dict[str, list[Any]] | None = None) -> tuple[Condition | None, list[Point]]:
        """Where it does not pay, said as briefly as the data allows: the parameter values
        in which it is faster nowhere while it is faster under another value of the same
        parameter ("not at batch 64"), chosen to cover the most non-paying scenarios; and
        the non-paying scenarios that condition leaves out."""
        rest = self.not_paying
        best: Condition | None = None
        for param in _param_names(self.points, order):
            by_value: dict[str, list[Point]] = defaultdict(list)
            for p in self.points:
                by_value[str(p.params.get(param))].append(p)
            dry = [v for v, ps in by_value.items() if all(p.outcome != FASTER for p in ps)]
            if not dry or len(dry) == len(by_value):
                continue
            values = tuple(_ordered(dry, (order or {}).get(param)))
            cond = Condition(param, values, tuple(p for v in values for p in by_value[v]))
            if best is None or len(cond.points) > len(best.points):
                best = cond
        if best is None:
            return None, rest
        covered = {id(p) for p in best.points}
        return best, [p for p in rest if id(p) not in covered]


@dataclass
class SettingsAdvice:
    topic: str
    baseline: dict[str, str]
    choices: list[Choice]          # every one-knob choice measured, best first

    @property
    def use(self) -> Choice | None:
        """The choice to make, or None: keep the baseline."""
        return next((c for c in self.choices if c.recommended), None)

    @property
    def pays_somewhere(self) -> list[Choice]:
        """Choices (other than :attr:`use`) faster beyond the noise in some scenario."""
        use = self.use
        return [c for c in self.choices if c.wins and c is not use]

    @property
    def costly(self) -> list[Choice]:
        """Choices slower beyond the noise in most of their scenarios and faster in none."""
        return [c for c in self.choices if not c.wins and c.losses * 2 > c.scenarios]

    @property
    def scenarios(self) -> int:
        return len({(p.measurement.runner, p.measurement.params_id, p.measurement.variant,
                     _common(p.measurement.settings, self.baseline))
                    for c in self.choices for p in c.points})


def _common(settings: dict[str, str], baseline: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(settings.items()) if k not in baseline)


def _param_names(points: list[Point], order: dict[str, list[Any]] | None) -> list[str]:
    names = sorted({k for p in points for k in p.params})
    declared = list((order or {}).keys())
    return [k for k in declared if k in names] + [k for k in names if k not in declared]


def _ordered(values: list[str], declared: list[Any] | None) -> list[str]:
    rank = {str(v): i for i, v in enumerate(declared or [])}
    return sorted(values, key=lambda v: (rank.get(v, len(rank)), v))


def _outcome(low: float, high: float, noise: float) -> Finding:
    return effect(low, high, max(noise, MARGIN))


def advise_settings(ds: Dataset, topic: str) -> SettingsAdvice | None:
    """The settings advice of ``topic``; None when it declares no ``baseline_settings`` or
    no choice has a result."""
    info = ds.topics.get(topic)
    if info is None or not info.baseline_settings:
        return None
    baseline = info.baseline_settings
    mine = [m for m in ds.current if m.topic == topic]
    by = control_index(mine)
    choices: dict[tuple[str, str], Choice] = {}
    for sp in ds.settings_speedups(topic):
        m = sp.measurement
        turned = {k: v for k, v in m.settings.items() if k in baseline and str(v) != str(baseline[k])}
        if len(turned) != 1 or sp.ratio is None or sp.noise is None or sp.baseline is None:
            continue
        controls = controls_for(m, info.controls, by, ds.noise, ds.cache)
        if any(c.measured is m for c in controls):
            continue                      # a group that must measure the same as the baseline
        (name, value), = turned.items()
        r = sp.ratio
        outcome = _outcome(r.low, r.high, sp.noise.value)
        failed = [c for c in controls if c.failed]
        note = None
        if failed and outcome in (FASTER, SLOWER):
            outcome, note = UNCLEAR, f"control failed: {failed[0].describe()}"
        choices.setdefault((name, str(value)), Choice(name, str(value))).points.append(
            Point(m, r.point, r.low, r.high, outcome, note))
    if not choices:
        return None
    ranked = sorted(choices.values(), key=lambda c: (-c.wins, c.losses, -c.typical, c.setting, c.value))
    return SettingsAdvice(topic, dict(baseline), ranked)
