"""The "Do this" answer of a topic page, computed from the recommendations: which call to use
instead of the default, and its finding against the default on each runner, in the words of
:mod:`tfperf.analyse.judge.effects` (count, range, typical speedup, exceptions named).

A topic whose calls run several steps (``per_step:``, train_step) is answered per step: the
call's fixed cost (``fit()`` setting up an epoch) apart, from the scenarios measured at two
step counts or more; the per-call figure of its shortest calls is kept as the start-up
question (:attr:`Advice.per_call`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...cases import PARAM_KEY, Claim
from ..dataset import Dataset
from ..judge.claims import ClaimResult, check_claim
from ..judge.effects import Finding, Summary, summary_text


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
