"""``tfperf advise``: the answers about the reader's model as one self-contained HTML page:
the same words as the terminal (:mod:`.advise_text`), the same charts as the site's topic
pages (the Vega-Lite specs of :mod:`..page.topic_chart` and :mod:`..page.settings_chart`, drawn by the
vendored Vega, Vega-Lite and vega-embed, inlined so that the page opens offline and loads
nothing outside itself), the machine and versions the results record, what the guide found
on the published runner beside each answer, and what failed or gave a wrong output.

Nothing here computes a statistic: the words, findings and speedups are the analysis's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ...analyse import RULE, ChartRow, Dataset, question_answers
from ..page.builder import ChartError, chart_alt, runner_names, settings_alt
from ..page.context import Context as PageContext
from ..page.embed import SvgCache, chart_html
from ..page.html import Markup, element, h, join, table
from ..page.topic_chart import chart_specs
from .advise_text import Context, do_this_lines, failure_lines, first_call_lines

# What the page says in place of its charts when the chart libraries cannot be read.
NO_CHARTS = ("No charts: this copy of tfperf has no chart libraries (Vega, Vega-Lite, vega-embed); "
             "reinstall tfperf to get them. The answers below are complete.")

STYLE = """
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff;margin:0}
main{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.8rem}h2{font-size:1.35rem;margin-top:2rem;border-bottom:1px solid #ccc}h3{font-size:1.05rem}
code{background:#f2f2f2;padding:0 .2em}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #bbb;padding:.25rem .5rem;text-align:left;
vertical-align:top}th{background:#eee}
.tfperf-table-wrap{overflow-x:auto}
.answer{font-weight:600}.guide{color:#333;margin-left:1.5rem;font-size:.95rem}
.differs{color:#8a1c00;font-weight:600}
.failure{border-left:4px solid #b00020;background:#fff5f5;padding:.25rem .75rem;margin:.75rem 0}
.note{border-left:4px solid #555;background:#f6f6f6;padding:.25rem .75rem;margin:.75rem 0}
.tfperf-chart{overflow-x:auto;min-height:2rem}figure{margin:1rem 0}figcaption{font-size:.9rem;color:#333}
.tfperf-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
"""

# Draws every chart once the libraries and tfperfNameChart (inlined above it) are there; names
# each for a screen reader and marks it drawn, as the site's tfperf.js does, so that a test can
# wait for them.
DRAW = """
(function () {
  "use strict";
  var opts = {mode: "vega-lite", renderer: "svg", actions: false};
  document.querySelectorAll("[data-tfperf-chart]").forEach(function (el) {
    var spec = JSON.parse(document.getElementById(el.id + "-spec").textContent);
    vegaEmbed(el, spec, opts).then(function () {
      tfperfNameChart(el);
      el.setAttribute("data-rendered", "true");
    }).catch(function (err) {
      el.setAttribute("data-rendered", "error");
      el.textContent = "This chart could not be drawn: " + err;
    });
  });
})();
"""


def _chart(ds: Dataset, topic: str, page: PageContext) -> Markup:
    """The topic's chart as on its page on the site: time per call by batch, or, for the
    threads and oneDNN settings, the speedup of each over TensorFlow's defaults."""
    info = ds.topics.get(topic)
    try:
        if info is not None and info.baseline_settings:
            from ..page.settings_chart import settings_chart_specs

            rows: list[ChartRow] = ds.settings_rows(topic)
            if not rows:
                return Markup("")
            base = ", ".join(ds.setting_label(topic, k, v) for k, v in info.baseline_settings.items())
            spec, _ = settings_chart_specs(rows, x="threads", color="onednn", baseline_label=base,
                                           settings_order=info.settings_values, param_order=info.param_values,
                                           runner_names=runner_names(ds, rows))
            alt = settings_alt(page, topic, "threads", base, rows)
        else:
            rows = ds.chart_rows(topic)
            if not rows:
                return Markup("")
            default = ds.default_variant(topic) or "the default"
            spec, _ = chart_specs(rows, view="latency", x="batch", default_label=ds.label(topic, default),
                                  order=info.param_values if info else None, unit=ds.unit(topic),
                                  default=default, variants=list(info.variants) if info else None,
                                  runner_names=runner_names(ds, rows))
            alt = chart_alt(page, topic, "latency", rows, spec)
    except ChartError as exc:
        return element("p", f"The chart could not be made: {exc}", class_="note")
    caption = element("figcaption", f"{alt} Each figure is in the answers above.")
    return Markup('<figure>' + chart_html(page.next_id("chart"), spec, None, alt) + caption + "</figure>")


def _machine(ds: Dataset, runner: str) -> Markup:
    """The machine and the versions the results record."""
    r = ds.runners.get(runner) or next(iter(ds.runners.values()), None)
    env: dict[str, Any] = dict(r.latest_environment() or {}) if r is not None else {}
    if not env:
        return element("p", "The results record no machine.")
    isa = ", ".join(k.upper().replace("_", "-") for k, v in (env.get("isa") or {}).items() if v) or "–"
    threads = env.get("threads") or {}
    rows: list[tuple[str, Any]] = [
        ("Runner label", r.label if r else runner), ("CPU", env.get("cpu_model")), ("Cores", env.get("cores")),
        ("Instruction sets", isa), ("Operating system", env.get("os")), ("Python", env.get("python")),
        ("oneDNN", "on" if env.get("onednn") else "off"),
        ("Threads (intra-op, inter-op; 0: TensorFlow's default)",
         f"{threads.get('intra_op', '–')}, {threads.get('inter_op', '–')}"),
        *((f"{name}", version) for name, version in sorted((env.get("versions") or {}).items()) if version),
        ("Measured", env.get("time")),
    ]
    return table(["What", "Value"], [(k, v) for k, v in rows if v not in (None, "")])


def _lines(items: Sequence[str]) -> Markup:
    return element("ul", join(element("li", s.strip()) for s in items)) if items else Markup("")


def page(ds: Dataset, ctx: Context, runner: str, scripts: Sequence[str] | None) -> str:
    """The whole page. ``scripts``: the chart libraries' code (:func:`tfperf.render.page.embed.chart_scripts`);
    None writes the page without charts."""
    pc = PageContext(ds=ds, prefix="", svgs=SvgCache(None))
    pub = ctx.published
    body: list[Markup] = [
        element("h1", "Your model, measured"),
        element("p", join(["Model: ", element("code", ctx.model), f" ({ctx.described})."])),
        element("p", f"How to read the findings: {RULE}"),
    ]
    if pub is not None:
        body.append(element("p", pub.heading(), class_="note"))
    if scripts is None:
        body.append(element("p", NO_CHARTS, class_="failure"))
    if ctx.interrupted:
        body.append(element("p", "Interrupted: the answers below are what was measured before; run the same "
                                 "command again to measure the rest.", class_="failure"))
    if ctx.skipped:
        titles = dict(ctx.topics)
        body.append(element("p", "Left out for lack of budget: " + "; ".join(
            f"{titles.get(t, t)} ({why})" for t, why in ctx.skipped) + ".", class_="note"))
    for name, title in ctx.topics:
        section: list[Markup] = [element("h2", title)]
        answers = question_answers(ds, name)
        why = dict(ctx.not_measured).get(name)
        if why is not None and not any(c.runners for qa in answers for c in qa.claims):
            section.append(element("p", f"Not measured: {why}", class_="note"))
            body.append(element("section", join(section)))
            continue
        for qa in answers:
            section.append(element("h3", qa.ask))
            if qa.lead:
                section.append(element("p", qa.lead_text(), class_="answer"))
            items = []
            for c in qa.claims:
                for r in c.runners:
                    b = pub.for_claim(c.claim_id) if pub is not None and pub.runner else None
                    guide = element("div", b.line(), class_="guide differs" if b.differs else "guide") \
                        if b is not None else ""
                    items.append(element("li", join([c.sentence(r), ".", guide])))
            section.append(element("ul", join(items)))
        dothis = do_this_lines(ds, name)
        if dothis:
            section.append(element("h3", "Do this"))
            winners = [w for w in pub.winners if w.topic == name] if pub is not None else []
            section.append(_lines([*dothis, *(w.line() + "." for w in winners)]))
        if name == "advise_xla":
            firsts = first_call_lines(ds)
            if firsts:
                section += [element("h3", "The first call"), _lines(firsts)]
        failed = failure_lines(ds, name)
        if failed:
            section.append(element("div", join([element("h3", "Failed, or a wrong output: never recommended"),
                                                 _lines(failed)]), class_="failure"))
        if scripts is not None:
            section.append(_chart(ds, name, pc))
        body.append(element("section", join(section)))
    body += [element("h2", "This machine"), _machine(ds, runner)]
    if ctx.results:
        body.append(element("p", join(["Results (the results schema): ", element("code", ctx.results)])))
    code = "".join(f"<script>{s}</script>" for s in scripts or ()) + (f"<script>{DRAW}</script>" if scripts else "")
    title = f"Your model, measured: {os.path.basename(ctx.model.rstrip('/')) or ctx.model}"
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{h(title)}</title><style>{STYLE}</style></head>"
            f"<body><main>{join(body)}</main>{code}</body></html>\n")
