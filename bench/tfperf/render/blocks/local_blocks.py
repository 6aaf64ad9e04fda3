"""The "this machine" sections: this machine's own results (``local/results``), each
set beside the published runners, in a box of their own.

The numbers come from :mod:`tfperf.analyse.views.versus` (``tfperf compare``'s analysis); the
published figures above them are drawn from the published data alone. The site puts a
topic's section right after its claims table and the machine's summary after the
Runners page's runner list (``render.site``); with no local results there is none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import stats
from ...analyse import ThisMachine, Versus, params_id
from ...hardware import isa_class
from ..page.context import Context, badge, stated
from ..page.html import Markup, admonition, element, h, hidden, join, seconds, table, times

CLASS = "tfperf-this-machine"


def _title(v: Versus) -> str:
    return f"This machine ({v.here.profile} profile, not published)"


def _box(v: Versus, body: Markup, anchor: str) -> Markup:
    return Markup(f'<div class="{CLASS}" id="{h(anchor)}">' + admonition("note", _title(v), body) + "</div>")


def _intro(tm: ThisMachine, v: Versus, count: int, what: str) -> Markup:
    env: Mapping[str, Any] = v.here.environment or {}
    same = [s.name for s in v.runners if s.same_cpu]
    against = (join(["It has the CPU of the published runner ", element("code", same[0]),
                     ": compare with that one first; the others have another CPU."])
               if same else "No published runner has this CPU: each comparison below is with another processor.")
    return join(["Measured on this machine, a ", describe_cpu(env), ": runner label ",
                 element("code", v.here.runner), ", ", str(count), f" {what} in ", element("code", tm.file_of(v)),
                 ". ", against, " ",
                 element("strong", "Not part of the published findings, counts, tables or charts on this page"),
                 "; below, the same cases beside each published runner, as ",
                 element("code", "tfperf compare"), " shows them."], "")


def describe_cpu(env: Mapping[str, Any]) -> str:
    """"2-core AMD EPYC (AVX2)": this machine's CPU by name, as the runners are named."""
    isa = isa_class(env.get("isa") or {}) if isinstance(env.get("isa"), dict) else "unknown"
    extra = f" ({isa.upper()})" if isa not in ("unknown", "base") else ""
    return f"{env.get('cores') or '?'}-core {env.get('cpu_model') or 'unknown CPU'}{extra}"


def _runner_head(v: Versus, name: str) -> Markup:
    same = any(s.name == name and s.same_cpu for s in v.runners)
    return join([element("code", name), element("small", " (this CPU)") if same else ""])


def _ratio_text(v: float | None) -> str:
    return "–" if v is None else f"{times(v)} the time"


def _scenario(params: Mapping[str, object], settings: dict[str, str]) -> str:
    s = ", ".join(f"{k}={x}" for k, x in sorted(settings.items()))
    return " · ".join(x for x in (params_id(params), s) if x) or "–"


def topic_section(tm: ThisMachine, topic: str, ctx: Context) -> Markup:
    """Claims, recommendations and cases of one topic on this machine beside the published runners."""
    out = []
    for i, v in enumerate(tm.topic_views(topic)):
        here = [m for m in v.here.measurements if m.topic == topic]
        parts = [Markup("<p>" + _intro(tm, v, len(here), "results of this topic") + "</p>")]
        cases = [c for c in v.cases if c.topic == topic]
        names = [s.name for s in v.runners]
        claims = [c for c in v.claims if c.topic == topic]
        if claims:
            crows = [[c.text,
                      join([badge(c.here_finding), " ", c.here]),
                      *(join([badge(c.there_finding.get(n)), " ",
                              stated(c.there.get(n, "–"), topic, c.claim_id, n.split("/")[0], "",
                                     c.there_finding.get(n), scope="this machine's scenarios")])
                        for n in names)] for c in claims]
            parts.append(Markup("<p>Each claim's finding here, and on each published runner over the same "
                                "scenarios (only those this machine measured):</p>"))
            parts.append(table(["claim", "this machine", *[_runner_head(v, n) for n in names]], crows))
        rows = []
        for name in names:
            mine = [c for c in cases if c.runner == name]
            rows.append([name, len(mine),
                         _ratio_text(stats.median([c.ratio.point for c in mine]) if mine else None),
                         f"{sum(c.in_iqr for c in mine)} of {len(mine)}"])
        parts.append(Markup("<p>Time here over time there, per published runner (median over the cases "
                            "measured on both; below 1× this machine is faster):</p>"))
        parts.append(table(["published runner", "cases on both", "typical time here", "here inside their IQR"], rows))
        recs = [r for r in v.recommendations if r.topic == topic]
        if recs:
            held = sum(r.holds_here is True for r in recs)
            rrows = [[r.runner, _scenario(r.params, r.settings), ctx.ds.label(topic, r.there_best or "–"),
                      times(r.there_speedup.point if r.there_speedup else None),
                      times(r.here_speedup.point if r.here_speedup else None),
                      {True: "holds", False: "does not hold", None: "cannot tell"}[r.holds_here], r.note or ""]
                     for r in recs]
            parts.append(Markup(
                f"<details><summary>The published recommendation holds here in {held} of {len(recs)} "
                "scenarios</summary>" + table(["published runner", "scenario", "recommended there", "speedup there",
                                               "speedup here", "here", "note"], rrows) + "</details>"))
        if cases:
            krows = [[_scenario(c.params, c.settings), ctx.ds.label(topic, c.variant), c.runner,
                      seconds(c.here_median), seconds(c.there_median),
                      f"{times(c.ratio.point)} ({times(c.ratio.low)}–{times(c.ratio.high)})",
                      "yes" if c.in_iqr else "no",
                      ("stale; " if c.stale else "") + ("" if c.same_software else "other TF/Keras")]
                     for c in cases]
            parts.append(Markup(
                f"<details><summary>Every case measured here and on a published runner ({len(cases)})</summary>"
                + table(["case", "variant", "published runner", "here", "there", "time here / there (95% CI)",
                         "inside their IQR", "note"], krows) + "</details>"))
        out.append(_box(v, Markup("".join(parts)), f"this-machine-{topic}-{i + 1}"))
    return Markup("".join(out))


def runners_section(tm: ThisMachine, ctx: Context) -> Markup:
    """This machine's summary, after the published runners."""
    out = []
    for i, v in enumerate(tm.views):
        env: Mapping[str, Any] = v.here.environment or {}
        kv = [["runner label", element("code", v.here.runner)], ["profile", v.here.profile],
              ["CPU", env.get("cpu_model") or "–"], ["cores", env.get("cores") or "–"],
              ["results", len(v.here.measurements)], ["file", element("code", tm.file_of(v))]]
        rows = [[s.name, s.cases, _ratio_text(s.typical_ratio), f"{s.in_iqr} of {s.cases}",
                 f"{s.in_ci} of {s.cases}"] for s in v.runners]
        body = Markup("<p>" + _intro(tm, v, len(v.here.measurements), "results") + "</p>"
                      + table([hidden("what"), hidden("value")], kv, "tfperf-table tfperf-kv")
                      + table(["published runner", "cases on both", "typical time here", "here inside their IQR",
                               "here inside their 95% CI"], rows))
        out.append(_box(v, body, f"this-machine-{i + 1}"))
    return Markup("".join(out) + errors(tm))


def errors(tm: ThisMachine) -> Markup:
    if not tm.errors:
        return Markup("")
    items = "".join(element("li", e) for e in tm.errors)
    return Markup(f'<div class="{CLASS}">' + admonition(
        "warning", "This machine: results not shown",
        Markup(f"<p>These local files could not be read (the published figures are unaffected):</p><ul>{items}</ul>"))
        + "</div>")


__all__ = ["CLASS", "runners_section", "topic_section"]
