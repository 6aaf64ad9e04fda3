"""Requests as a server sees them (the analysis is :mod:`tfperf.analyse.judge.arrivals`)::

    <!-- tfperf:arrivals TOPIC -->   per runner, profile and per-request pattern (after an
                                     idle gap, at random), a table of each variant's
                                     median (p50) and 99th-percentile (p99) request time and
                                     its speedups over the default; nothing at all for a
                                     topic without such results
"""

from __future__ import annotations

from ...analyse import PatternRow, PatternTable, runner_name
from ...stats import Percentile
from ..page.context import Context, Directive, badge, provenance
from ..page.html import Markup, again, element, fold, join, link, percent, rows_text, seconds, table, times_ci

HEAD = "Requests one at a time and at random"


def _time(p: Percentile | None) -> Markup:
    """``2.5 ms`` with its 95% CI below (an upper bound too few requests give is said so)."""
    if p is None:
        return Markup("–")
    ci = (f"95% CI {seconds(p.ci_low)} – {seconds(p.ci_high)}" if p.ci_low is not None and p.ci_high is not None
          else f"95% CI from {seconds(p.ci_low)}; too few requests for an upper bound" if p.ci_low is not None
          else "too few requests for a CI")
    return join([seconds(p.value), Markup("<br>"), element("small", ci)])


def _speedup(row: PatternRow, at: str) -> Markup | str:
    side = row.p50_speedup if at == "p50" else row.p99_speedup
    if side is None:
        return ""
    r = side.ratio
    return join([badge(side.finding), Markup("<br>"), element("small", times_ci(r.point, r.low, r.high))])


def _table(ctx: Context, topic: str, t: PatternTable) -> Markup:
    ds = ctx.ds
    info = ds.topics.get(topic)
    by_settings = bool(t.baseline_settings)
    variants = len({r.variant for r in t.rows}) > 1
    rows = []
    last = None
    for row in t.rows:
        m = row.measurement
        what = [*(info.value_label(k, v) if info else f"{k} {v}" for k, v in m.params.items())]
        if by_settings:
            what += [ds.label(topic, m.variant)] if variants else []
            side = ", ".join(ds.setting_label(topic, k, v) for k, v in m.settings.items()) or "–"
        else:
            what += [ds.setting_label(topic, k, v) for k, v in m.settings.items()]
            side = ds.label(topic, m.variant)
        case = ", ".join(what) or "–"
        shown: Markup | str = again(case) if case == last else case
        last = case
        name: Markup | str = element("strong", side) if t.is_base(row) else side
        if row.problem:
            rows.append([shown, name, element("em", row.problem), "", "", ""])
            continue
        rows.append([shown, name, _time(row.p50), _time(row.p99), _speedup(row, "p50"), _speedup(row, "p99")])
    base = (", ".join(ds.setting_label(topic, k, v) for k, v in t.baseline_settings.items()) if by_settings
            else ds.label(topic, t.default))
    body = table(["case", "settings" if by_settings else "variant", "median request (p50)", "slowest 1% (p99)",
                  f"p50 against {base}", f"p99 against {base}"], rows, class_="tfperf-table tfperf-arrivals")
    noise = (f"Run-to-run noise of this pattern (the same case measured twice): {percent(t.noise.value)} at p50"
             if t.noise else "No A/A pair for this pattern: 5% assumed at p50")
    noise += f", {percent(t.p99_noise)} at p99." if t.p99_noise is not None else "."
    summary = f"{runner_name(ds, t.runner)}, {t.profile} profile: requests {t.words}, {rows_text(t.scenarios, 'scenario')}"
    return fold(summary, join([ctx.fetched(body, "the table"), element("p", noise, class_="tfperf-legend"),
                               provenance(ctx, [r.measurement for r in t.rows])]), len(rows))


def block_arrivals(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    tables = ctx.ds.arrival_tables(topic)
    if not tables:
        return Markup("")
    intro = element("p", join([
        ("Everything above times blocks of calls made back to back, a saturated loop. A server sees requests "
        "otherwise: one now and then, after the machine went idle, or at random times, queueing when one "
        "arrives while another still runs. Here each request is timed alone, from its arrival to its answer. "
        "The median request (p50) is what a typical user waits; the slowest 1% (p99) is the tail a server is "
        "judged by. Faster, slower and the same follow the rule of the rest of the page, with the noise of "
        "each pattern. "), link(f"{ctx.prefix}how-we-measure/#how-requests-arrive", "How we measure"),
        " explains what each pattern models."]))
    return join([element("h2", HEAD, id="arrivals"), intro, *(_table(ctx, topic, t) for t in tables)])


ARRIVAL_BLOCKS = {"arrivals": block_arrivals}
__all__ = ["ARRIVAL_BLOCKS", "HEAD"]
