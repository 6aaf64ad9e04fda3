"""A call's fixed cost apart from its cost per step (``<!-- tfperf:perstep TOPIC -->``).

Per runner and parameters measured at two step counts or more: one row per settings group
and variant with the fixed cost of a call and the cost of a step, each with its 95% CI, the
break-even (the steps per call at which the two are equal) and the fixed share of the
shortest call; under the table, one sentence of what it says, then how it was computed. The
numbers come from :mod:`tfperf.analyse.judge.per_step`; this module lays them out. The topic's
YAML declares the step parameter (``per_step: {param: steps}``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...analyse import N_BOOT, Headline, Interval, StepGroup, StepSeries, headline, runner_name, step_groups
from ..page.context import Context, Directive, DirectiveError, no_results, provenance, stale_mark
from ..page.html import Markup, cost, cost_text, count, element, fold, join, percent, rows_text, table


def _cost(iv: Interval) -> Markup:
    """A fixed cost or a cost per step: its figure (or "≈ 0 (within noise)") and, in small type,
    its interval (:func:`tfperf.render.page.html.cost`)."""
    shown = cost(iv.point, iv.low, iv.high)
    return join([shown.text, Markup("<br>"), element("small", shown.detail)])


def _breakeven(s: StepSeries) -> str:
    be = s.fit.breakeven if s.fit else None
    if be is None:
        return "– (no per-step cost beyond the noise)"
    if be.low == be.high == be.point:
        return count(be.point)
    return f"{count(be.point)} (95% CI {count(be.low)} to {count(be.high)})"


def _duration(s: float) -> str:
    return f"{s / 60:.0f} minutes" if s >= 90 else f"{s:.0f} seconds"


def _settings(ctx: Context, topic: str, s: StepSeries) -> str:
    return ", ".join(ctx.ds.setting_label(topic, k, v) for k, v in sorted(s.settings.items())) or "default"


def _who(ctx: Context, topic: str, s: StepSeries) -> str:
    return f"{ctx.ds.label(topic, s.variant)} ({_settings(ctx, topic, s)})"


def _order(ctx: Context, topic: str) -> Callable[[StepSeries], tuple[Any, ...]]:
    """Settings groups in the YAML's order of values, then variants in the YAML's order."""
    info = ctx.ds.topics.get(topic)
    variants = list(info.variants) if info else []
    values = info.settings_values if info else {}

    def key(s: StepSeries) -> tuple[Any, ...]:
        groups = tuple((k, values[k].index(v) if v in values.get(k, []) else len(values.get(k, [])), v)
                       for k, v in sorted(s.settings.items()))
        return (groups, variants.index(s.variant) if s.variant in variants else len(variants), s.variant)
    return key


def _has(n: int) -> str:
    return "has" if n == 1 else "have"


def sentence(ctx: Context, topic: str, hl: Headline, unit: str) -> str:
    """What the table says, in one sentence: every figure in it from the data."""
    most, least = hl.most_fixed, hl.least_fixed
    cheap, dear = hl.cheapest_step, hl.dearest_step
    assert most.fit and least.fit and cheap.fit and dear.fit
    be = most.fit.breakeven
    worth = f", as much as {count(be.point)} of its own {unit}s" if be is not None else ""
    smallest = (f"{hl.no_fixed} of the {hl.fitted} rows {_has(hl.no_fixed)} no fixed cost beyond the noise (the "
                f"95% CI reaches 0)" if hl.no_fixed else
                f"{_who(ctx, topic, least)} the smallest ({cost_text(*_iv(least.fit.fixed))})")
    return (f"{_who(ctx, topic, most)} pays the largest fixed cost, {cost_text(*_iv(most.fit.fixed))} per call{worth} "
            f"({percent(hl.share)} of a call of {hl.shortest} {unit}s), and {smallest}; per {unit}, "
            f"{_who(ctx, topic, cheap)} is the cheapest ({cost_text(*_iv(cheap.fit.per_step))}) and "
            f"{_who(ctx, topic, dear)} the dearest ({cost_text(*_iv(dear.fit.per_step))}).")


def _iv(iv: Interval) -> tuple[float, float, float]:
    return iv.point, iv.low, iv.high


def _off(hl: Headline | None, unit: str) -> str:
    """A warning where a fitted fixed cost is below 0 beyond its CI (no call can cost less than 0)."""
    if hl is None or not hl.below_zero:
        return ""
    return (f" {hl.below_zero} row{'s' if hl.below_zero != 1 else ''} {_has(hl.below_zero)} a fixed cost below 0 "
            f"beyond the CI, which no call can have: there the line is off, by a change of the machine's speed "
            f"between the two scenarios or a cost per {unit} that is not the same at every step count.")


def _group(ctx: Context, topic: str, g: StepGroup, unit: str) -> Markup:
    series = sorted(g.series, key=_order(ctx, topic))
    rows: list[list[Any]] = []
    for s in series:
        if s.fit is None:
            continue
        rows.append([_settings(ctx, topic, s), ctx.ds.label(topic, s.variant), _cost(s.fit.fixed),
                     _cost(s.fit.per_step), _breakeven(s), percent(s.fit.fixed_share(g.steps[0])),
                     join([element("small", s.problem) if s.problem else "", stale_mark(s.measurements)], " ")])
    counts = " and ".join(str(k) for k in g.steps)
    t = table(["settings", "variant", "fixed cost per call", f"cost per {unit}", f"break-even ({g.param} per call)",
               f"fixed share of a call of {g.steps[0]} {g.param}", "note"], rows)
    left = [element("li", join([_who(ctx, topic, s), ": ", s.problem or "no fit"])) for s in series if s.fit is None]
    hl = headline(g)
    said = element("p", element("strong", sentence(ctx, topic, hl, unit)), class_="tfperf-per-step-says") if hl else ""
    how = element("p", (
        f"Each row is the line t({g.param}) = fixed + {g.param} × cost per {unit} through the median time per call "
        f"at {counts} {g.param}, for one variant in one settings group; 95% CIs from {N_BOOT} bootstrap resamples "
        f"of each {unit} count's stored samples. Break-even: the {g.param} per call at which the fixed cost equals "
        f"the cost of the {unit}s (∞: the cost per {unit} cannot be told from 0). The calls of {counts} {g.param} "
        f"are different scenarios, measured about {_duration(g.apart_s)} apart: a change of the machine's speed "
        f"between them moves the line, and is not in these intervals.{_off(hl, unit)} The claims that compare "
        f"the cost per {unit} resample the rounds of each scenario jointly for both variants (measured side by "
        f"side), so what the two share within a round cancels."), class_="tfperf-caption")
    ms = [m for s in series for m in s.measurements]
    params = ", ".join(f"{k}={v}" for k, v in g.params.items()) or "default"
    # what the table says stays in view when the table is folded (a phone)
    return join([fold(f"{runner_name(ctx.ds, g.runner)}: {params}, calls of {counts} {g.param}: {rows_text(len(rows))}",
                      join([t, join([element("p", "Not fitted:"), element("ul", join(left))]) if left else "", how,
                            provenance(ctx, ms)]), len(rows)), said])


def block_perstep(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    info = ctx.ds.topics.get(topic)
    if info is None or not info.per_step:
        raise DirectiveError(f"{d.text}: topic {topic} declares no per_step (per_step: {{param: <parameter>}})")
    groups = step_groups(ctx.ds.current, topic, info.per_step)
    if not groups:
        return no_results(ctx.ds, f"Fixed and per-{ctx.ds.unit(topic)} cost of {topic} "
                                  f"(results at two values of {info.per_step} or more)")
    unit = ctx.ds.unit(topic)               # the YAML's per_call unit ("step"), else "step"
    unit = "step" if unit == "call" else unit
    return Markup("".join(_group(ctx, topic, g, unit) for g in groups))


PER_STEP_BLOCKS = {"perstep": block_perstep}
__all__ = ["PER_STEP_BLOCKS", "sentence"]
