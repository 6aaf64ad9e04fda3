"""Render each placeholder kind to HTML from an analysed :class:`~tfperf.analyse.Dataset`:
the dispatcher (``BLOCKS``: each kind to its renderer, here or in the other modules of
``blocks``), the tables and charts every topic has, and the blocks of the home, Runners and
Data pages (findings, runners, data files, load errors, failed results).

Statistics come from the analysis; this module only lays them out. Every data string
goes through :func:`tfperf.render.page.html.h`.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from ...analyse import (
    MARGIN,
    RULE,
    VERDICT_RULE,
    ClaimCheck,
    ClaimRow,
    Dataset,
    Finding,
    LoadedBreakdown,
    Verdict,
    claim_answer,
    controls_by_runner,
    cpu_text,
    error_line,
    exclusion_reason,
    expectation_text,
    failed_results,
    hardware_name,
    headline_findings,
    machine_differences,
    maybe_one_cpu,
    release_key,
    repeats_by_runner,
    runner_name,
)
from ..page.builder import ChartError, chart_alt, runner_names, settings_alt
from ..page.context import (
    DATA_URL,
    SCHEMA_URL,
    STALE_HEAD,
    SVG_URL,
    Context,
    Directive,
    DirectiveError,
    badge,
    no_result_tag,
    no_results,
    provenance,
    stale_mark,
    stated,
)
from ..page.embed import chart_html
from ..page.html import (
    Markup,
    admonition,
    again,
    element,
    fold,
    h,
    hidden,
    join,
    link,
    percent,
    rows_text,
    seconds,
    table,
    times,
    times_ci,
)
from ..page.notebooks import packages
from ..page.topic_chart import chart_specs, has_trend
from .answers_block import ANSWER_BLOCKS, block_dothis
from .per_step_block import PER_STEP_BLOCKS
from .topic_blocks import ARRIVAL_BLOCKS, EXTRA_BLOCKS
from .version_blocks import VERSION_BLOCKS

# -- block renderers ----------------------------------------------------------------------

def render_block(d: Directive, ctx: Context) -> Markup:
    fn: Callable[[Directive, Context], Markup] | None = BLOCKS.get(d.kind)
    if fn is None:
        raise DirectiveError(f"unknown placeholder kind {d.kind!r}")
    if d.kind in NEEDS_TOPIC and not d.topic:
        raise DirectiveError(f"{d.text}: names no topic")
    return fn(d, ctx)


def block_chart(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    ds = ctx.ds
    view = d.options.get("view", "latency")
    if view == "settings":
        return _settings_chart(d, ctx)
    rows = ds.chart_rows(topic)
    if view == "trend" and (len(ds.versions(topic)) < 2 or not has_trend(rows)):
        return admonition("info", "One software version so far",
                          "This topic has been measured with one TensorFlow/Keras version only; "
                          "the trend appears once a second version is measured.")
    if not rows:
        return no_results(ds, f"Chart of {topic}")
    default = ds.default_variant(topic) or "the default"
    info = ds.topics.get(topic)
    order = info.param_values if info else None
    try:
        spec, static = chart_specs(rows, view=view, x=d.options.get("x"), facet=d.options.get("facet"),
                                   default_label=ds.label(topic, default), title=d.options.get("title"),
                                   order=order, unit=ds.unit(topic),
                                   settings_order=info.settings_values if info else None,
                                   groups=info.groups if info else None, default=default,
                                   variants=list(info.variants) if info else None,
                                   runner_names=runner_names(ds, rows))
    except ChartError as exc:
        raise DirectiveError(f"{d.text}: {exc}") from None
    svg = ctx.svgs.svg_name(static)
    alt_text = chart_alt(ctx, topic, view, rows, spec)
    ms = [m for m in ds.history if m.topic == topic] + [m for m in ds.current if m.topic == topic and m.stale]
    return Markup('<figure class="tfperf-figure">' + chart_html(ctx.next_id("chart"), spec, ctx.prefix + SVG_URL + svg,
                                                               alt_text, ctx.shared_rows, ctx.fragments)
                  + "<figcaption>" + provenance(ctx, ms) + "</figcaption></figure>")


def _settings_chart(d: Directive, ctx: Context) -> Markup:
    """``view=settings``: a setting on the x axis, speedups over the baseline settings."""
    from ..page.settings_chart import settings_chart_specs

    topic, ds = str(d.topic), ctx.ds
    info = ds.topics.get(topic)
    if info is None or not info.baseline_settings:
        raise DirectiveError(f"{d.text}: topic {topic} declares no baseline_settings")
    if not d.options.get("x"):
        raise DirectiveError(f"{d.text}: view=settings needs x=<setting>")
    rows = ds.settings_rows(topic)
    if not rows:
        return no_results(ds, f"Settings chart of {topic}")
    base = ", ".join(ds.setting_label(topic, k, v) for k, v in info.baseline_settings.items())
    try:
        spec, static = settings_chart_specs(rows, x=d.options["x"], color=d.options.get("color"),
                                            facet=d.options.get("facet"), row=d.options.get("row"),
                                            baseline_label=base, title=d.options.get("title"),
                                            settings_order=info.settings_values, param_order=info.param_values,
                                            runner_names=runner_names(ds, rows))
    except ChartError as exc:
        raise DirectiveError(f"{d.text}: {exc}") from None
    svg = ctx.svgs.svg_name(static)
    ms = [s.measurement for s in ds.settings_speedups(topic)]
    x = str(d.options["x"])
    values = sorted({str(r.case.settings.get(x)) for r in rows}, key=lambda v: (not v.isdigit(), int(v) if v.isdigit() else 0, v))
    key = join([join([element("code", v), ": ", ds.setting_label(topic, x, v)]) for v in values], "; ")
    return Markup('<figure class="tfperf-figure">'
                  + chart_html(ctx.next_id("chart"), spec, ctx.prefix + SVG_URL + svg,
                               settings_alt(ctx, topic, x, base, rows), ctx.shared_rows, ctx.fragments)
                  + f'<figcaption><p class="tfperf-legend-key">Baseline: {h(base)}. Numeric values of '
                  f"<code>{h(x)}</code> on a log2 axis, then the named ones. {h(x)}: {key}</p>" + provenance(ctx, ms)
                  + "</figcaption></figure>")


def block_recommendations(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    ds = ctx.ds
    recs = ds.recommendations(topic)
    if not recs:
        return no_results(ds, f"Recommendations for {topic}")
    by_runner: dict[str, list[Any]] = defaultdict(list)
    for r in recs:
        by_runner[r.scenario.runner].append(r)
    out = []
    for runner, rs in sorted(by_runner.items()):
        rows = []
        show_settings = len({r.scenario.key[1] for r in rs}) > 1    # a column only where settings vary
        # Rows without the default to compare with (e.g. train_step's eager=off group) last.
        rs = sorted(rs, key=lambda r: r.best is not None and r.speedup is None and r.default not in r.scenario.variants)
        for r in rs:
            sc = r.scenario
            if r.best is None:
                best: Any = element("em", "no variant with correct output")
                sp: Any = "–"
                verdict: Any = "–"
            else:
                best = element("strong", ds.label(topic, r.best))
                if r.tied:                            # none clearly faster than the others
                    names = [ds.label(topic, v) for v in (r.best, *r.tied)]
                    best = join([element("strong", "no clear winner: "), ", ".join(names[:-1]), " and ", names[-1],
                                 element("small", f" (none faster than the others by more than "
                                                  f"±{percent(max(r.noise.value, MARGIN))})")])
                if r.speedup:
                    sp = times_ci(r.speedup.point, r.speedup.low, r.speedup.high)
                elif r.default not in sc.variants:    # e.g. train_step's eager=off group: by design
                    sp = element("em", "default not measured in this setting")
                else:
                    sp = join(["default failed: ", exclusion_reason(sc.variants[r.default]) or "no timing"])
                if r.best == r.default:
                    verdict = element("span", "the default is the fastest", class_="tfperf-tag tfperf-same")
                else:
                    verdict = badge(r.finding)
            excluded = join([join([ds.label(topic, v), ": ", why])
                             for v, why in sorted(r.excluded.items())], "; ") if r.excluded else "–"
            rows.append([*([ds.settings_words(topic, sc.settings)] if show_settings else []), ds.params_words(topic, sc.params),
                         sp, verdict, best, excluded, stale_mark(sc.variants.values())])
        t = table([*(["settings"] if show_settings else []), "parameters",
                   f"speedup over {ds.label(topic, recs[0].default)}", "finding", "fastest correct variant",
                   "never recommended here", STALE_HEAD], rows)
        ms = [m for r in rs for m in r.scenario.variants.values()]
        out.append(fold(f"{runner_name(ctx.ds, runner)}: the fastest correct variant in {rows_text(len(rows), 'scenario')}",
                        join([ctx.fetched(t, "the table"), provenance(ctx, ms)]), len(rows)))
    return Markup("".join(out))


def _power(ch: Any) -> str:
    """The smallest speedup the check could have seen, and how it was measured."""
    if ch.detectable is None or ch.ratio is None:
        return "–"
    how = f"paired, {ch.ratio.n} rounds" if ch.ratio.paired else f"unpaired, {ch.ratio.n} samples"
    return f"≥ {percent(ch.detectable)} faster ({how})"


def block_claims(d: Directive, ctx: Context) -> Markup:
    """Each claim: what its source said, then per runner whether that holds and the finding
    over the runner's scenarios, in the vocabulary's words; every scenario folded below."""
    topic = str(d.topic)
    ds = ctx.ds
    claims = ds.claim_results(topic)
    if not ds.claims_of(topic):
        return admonition("info", "No claims", f"The topic {topic} declares no claims.")
    flips = ds.changed_claims(topic)
    rows = []
    details = []
    for cr in claims:
        a = claim_answer(ds, topic, cr.id)
        per_runner = [join([element("strong", r.hardware), ": ", _runner_badge(cr.mine(r.runner), r.verdict), " ",
                            stated(r.text, topic, cr.id, r.runner, r.releases, r.finding)])
                      for r in (a.runners if a else ())]
        if not per_runner:
            per_runner = [element("span", cr.failed_text() or "no results yet", class_="tfperf-nodata")]
        elif a is not None and a.disagreement:
            per_runner.append(element("em", a.disagreement))
        rows.append([_claim_cell(cr.claim.get("text", cr.id), cr.expect, changed=cr.id in flips),
                     join(per_runner, Markup("<br>")),
                     stale_mark(m for ch in cr.checks for m in ch.scenario.variants.values())])
        scen_rows = [[ch.scenario.runner, ds.settings_words(topic, ch.scenario.settings), ds.params_words(topic, ch.scenario.params),
                      times_ci(ch.ratio.point, ch.ratio.low, ch.ratio.high) if ch.ratio else "–",
                      f"±{percent(ch.margin)}" if ch.margin is not None else "–",
                      no_result_tag(bool(ch.failed), ch.wrong_output) or badge(ch.finding),
                      _power(ch), ch.note or "", stale_mark(ch.scenario.variants.values())] for ch in cr.checks]
        if scen_rows and a is not None:
            details.append(fold(
                f"{cr.claim.get('text', cr.id)} Every scenario: the speedup of {a.candidate} over {a.baseline} "
                f"in {rows_text(len(scen_rows), 'scenario')}",
                ctx.fetched(table(["runner", "settings", "parameters", "speedup (95% CI)", "the same within",
                                   "finding", "could detect", "note", STALE_HEAD], scen_rows), "the table"),
                len(scen_rows), "tfperf-claim-detail", open_=False))
    t = table(["claim", "today, per runner", STALE_HEAD], rows)
    ms = [m for cr in claims for ch in cr.checks for m in ch.scenario.variants.values()]
    return Markup(legend() + t + "".join(details) + provenance(ctx, ms))


def _runner_badge(checks: list[ClaimCheck], verdict: Verdict | None) -> Markup:
    """The verdict's badge on one runner; "failed" or "wrong output" where no scenario there
    has a finding because of a fault (a verdict of wrong outputs, "does not hold", stays)."""
    if checks and not any(ch.has_data for ch in checks) and not (
            verdict is not None and all(ch.wrong_output for ch in checks)):
        tag = no_result_tag(any(ch.failed for ch in checks), any(ch.wrong_output for ch in checks))
        if tag is not None:
            return tag
    return badge(verdict)


def _claim_cell(text: str, expect: Finding | None, changed: bool = False, stale: bool = False) -> Markup:
    """A claim, what its source said, and its marks: its finding changed between releases,
    some of its results are stale."""
    marks = [element("span", "changed between releases", class_="tfperf-flip") if changed else "",
             element("span", "partly stale", class_="tfperf-stale") if stale else ""]
    return join([text, Markup("<br>"), element("small", _said(expect)),
                 *([Markup("<br>"), join([m for m in marks if m], " ")] if any(marks) else [])])


def _said(expect: Finding | None) -> str:
    return f"the source said: {expectation_text(expect)}" if expect is not None else "no source: this guide's comparison"


def legend() -> Markup:
    """The rule behind the words, in one sentence, where the words appear."""
    return Markup(f'<p class="tfperf-legend">{h(RULE)} {h(VERDICT_RULE)}</p>')


def block_breakdown(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    bds = [b for b in ctx.ds.breakdowns if b.record.get("topic") == topic]
    if not bds:
        return no_results(ctx.ds, f"Profiler breakdown of {topic}")
    # newest per case and runner
    newest: dict[tuple[str, str], LoadedBreakdown] = {}
    for bd in bds:
        newest[(bd.runner, str(bd.record.get("case_id")))] = bd
    out = []
    for (runner, case_id), bd in sorted(newest.items()):
        b = bd.record
        calls = int(b.get("calls") or 1)
        # The stored seconds are already per call of the profiled variant (schema: breakdown).
        cats = [[c.get("name"), seconds(float(c.get("seconds", 0))), percent(float(c.get("share", 0)))]
                for c in b.get("categories") or []]
        funcs = [[element("code", f.get("function")), seconds(float(f.get("cumulative_s", 0)))]
                 for f in (b.get("top_functions") or []) if "<frozen runpy>" not in str(f.get("function"))][:10]
        src = bd.source
        env: Mapping[str, object] = bd.env or {}
        prov = Markup('<p class="tfperf-provenance">Data: ' + link(ctx.prefix + DATA_URL + src.rel, src.rel)
                      + f" — runner <code>{h(runner)}</code>, commit <code>{h(str(env.get('git_commit') or 'unknown')[:10])}</code>"
                      + f", measured {h(str(env.get('time', ''))[:10])}</p>")
        out.append(Markup(
            f'<details class="tfperf-breakdown" open><summary>{h(ctx.ds.label(topic, str(b.get("variant"))))} — '
            f"{h(ctx.ds.params_words(topic, b.get('params') or {}))}, {h(ctx.ds.settings_words(topic, b.get('settings') or {}))}, "
            f"runner {h(runner)} ({h(calls)} calls, {h(b.get('tool', 'profiler'))})</summary>"
            + table(["where the time goes", "per call", "share"], cats)
            + table(["function (inclusive)", "per call"], funcs) + prov + "</details>"))
    return Markup("".join(out))


def block_notebook(d: Directive, ctx: Context) -> Markup:
    topic = str(d.topic)
    url = ctx.notebooks.get(topic)
    if not url:
        return admonition("info", "No notebook", f"No snippet for {topic} to turn into a notebook.")
    page = ctx.prefix + url
    ipynb = ctx.prefix + f"notebooks/{topic}.ipynb"
    info = ctx.ds.topics.get(topic)
    snippet = info.path.with_suffix(".py") if info else None
    extra = packages(snippet.read_text(encoding="utf-8")) if snippet and snippet.is_file() else []
    needs = ("TensorFlow and " + ", ".join(extra) + ", which its first cell installs") if extra else "only TensorFlow"
    colab = ctx.colab.get(topic)
    opens = f" · {link(colab, 'open in Colab', rel='noopener')}" if colab else ""
    return Markup(f'<p class="tfperf-notebook">Run it yourself as a notebook: {link(page, "view the notebook")} · '
                  f'<a href="{h(ipynb)}" download>download {h(topic)}.ipynb</a>{opens} (Jupyter or Colab; needs '
                  f"{h(needs)}).</p>")


def block_findings(d: Directive, ctx: Context) -> Markup:
    """The home page's table of every claim: per runner, whether the source's answer holds
    and the finding with its figures."""
    ds = ctx.ds
    fs = headline_findings(ds, ctx.topic_order)
    if not fs:
        return no_results(ds, "Headline findings")
    rows: list[list[Any]] = []
    last_topic = None
    for f in fs:
        a = f.answer
        title = _topic_cell(ctx, f, again_=bool(rows) and f.topic == last_topic)
        last_topic = f.topic
        cr = ds.claim_result(f.topic, a.claim_id)
        today = [join([element("strong", r.hardware), ": ",
                       _runner_badge(cr.mine(r.runner) if cr is not None else [], r.verdict), " ",
                       stated(r.text, f.topic, a.claim_id, r.runner, r.releases, r.finding)]) for r in a.runners]
        rows.append([title, _claim_cell(a.claim_text, a.expect, changed=f.changed, stale=f.stale),
                     join(today, Markup("<br>")) or element("span", f.failed or "no results yet",
                                                             class_="tfperf-nodata")])
    return Markup(legend() + table(["topic", "claim", "today, per runner"], rows) + provenance(ctx, ds.current))


def _topic_cell(ctx: Context, row: ClaimRow, again_: bool, anchor: str = "") -> Any:
    """A claims table's topic cell: linked to the topic's page on its first claim, then
    repeated for a card on a phone (:func:`again`); plain text for a topic without a page."""
    if again_:
        return again(row.topic_title)
    if ctx.topic_pages is None or row.topic in ctx.topic_pages:
        return link(f"{ctx.prefix}topics/{row.topic}/{anchor}", row.topic_title)
    return row.topic_title


def block_differences(d: Directive, ctx: Context) -> Markup:
    """The Runners page's table of the claims whose finding differs between CPUs: one column
    per runner with its finding and figures, so a reader on another processor sees which of
    the guide's answers depend on it."""
    ds = ctx.ds
    rows_in, compared = machine_differences(ds, ctx.topic_order)
    if compared == 0:
        return no_results(ds, "Claims measured on two or more machines")
    if not rows_in:
        return Markup(element("p", f"On all {compared} claims measured on two or more machines, the machines "
                                   "agree, or one of them could not tell."))
    runners = sorted({r.runner for row in rows_in for r in row.answer.runners})
    shorts = {r.runner: r.short for row in rows_in for r in row.answer.runners}
    rows: list[list[Any]] = []
    last_topic = None
    for row in rows_in:
        a = row.answer
        title = _topic_cell(ctx, row, again_=bool(rows) and row.topic == last_topic, anchor="#the-claims-tested")
        last_topic = row.topic
        cells = {r.runner: r.brief for r in a.runners}
        rows.append([title, a.claim_text, *(cells.get(label, "not measured") for label in runners)])
    lead = element("p", f"{len(rows_in)} of the {compared} claims measured on two or more machines get a different "
                        "answer on different CPUs (a machine that could not tell is not counted as disagreeing):")
    return Markup(lead + table(["topic", "claim", *(shorts[label] for label in runners)], rows)
                  + provenance(ctx, ds.current))


def block_controls(d: Directive, ctx: Context) -> Markup:
    """How we measure's table of each runner's controls (``analyse.controls_by_runner``): how
    far apart two worker processes with the same settings landed, typically and at most
    (and where), and how many of those gaps made their scenario's settings claims unclear."""
    ds = ctx.ds
    runners = controls_by_runner(ds)
    if not runners:
        if not ds.current:
            return no_results(ds, "Controls")
        having = [info.title for _, info in sorted(ds.topics.items()) if info.controls]
        return Markup(element("p", "No runner has measured a control yet"
                                   + (f" (they are in the full profile of: {'; '.join(having)})." if having else ".")))
    rows: list[list[Any]] = []
    for rc in runners:
        w = rc.widest
        m, ref = w.measured, w.reference
        common = {k: v for k, v in m.settings.items() if ref.settings.get(k) == v}
        context = ", ".join(x for x in (ds.label(m.topic, m.variant), ds.params_words(m.topic, m.params),
                                         ds.settings_words(m.topic, common)) if x != "–")
        title = ds.topics[m.topic].title if m.topic in ds.topics else m.topic
        ours, theirs = ({k: v for k, v in x.settings.items() if k not in common} for x in (m, ref))
        pair = (f"{ds.settings_words(m.topic, ours)} measured {w.ratio.point:.3g}× the speed of "
                f"{ds.settings_words(m.topic, theirs)}")
        where = f"{pair} ({title}; {context})"
        rows.append([runner_name(ds, rc.runner), len(rc.results), percent(rc.median_gap),
                     f"{percent(max(rc.gaps))}: {where}", len(rc.failed)])
    lead = element("p", "The table shows, for each runner, how far apart two worker processes with the same "
                        "settings landed (each control is one such pair, measured side by side like any other "
                        "comparison). A scenario measured in one process per settings group has gaps like these in no "
                        "interval: all its rounds ran in the same processes. One measured in two processes per group "
                        "widens its intervals to take in what each pair of processes measured, which still does not "
                        "cover every gap. When a control's whole interval lies beyond its margin, the settings claims "
                        "of its scenario are unclear.")
    return Markup(lead + table(["runner", "controls", "typical gap", "largest gap", "controls that made a scenario unclear"],
                               rows) + provenance(ctx, [r.measured for rc in runners for r in rc.results]))


def _own(ds: Dataset, m: Any, common: Mapping[str, str]) -> str:
    """A case in words (its variant and settings), without the settings in ``common``."""
    mine = {k: v for k, v in m.settings.items() if k not in common}
    return ", ".join(t for t in (ds.label(m.topic, m.variant), ds.settings_words(m.topic, mine)) if t != "–")


def block_repeats(d: Directive, ctx: Context) -> Markup:
    """How we measure's table of the speedups each runner measured in two runs
    (``analyse.repeats_by_runner``): how many agree within ±10%, how far they typically
    moved, how often the second run landed inside the first run's interval, and the
    largest move (and where)."""
    ds = ctx.ds
    runners = repeats_by_runner(ds)
    if not runners:
        if not ds.current:
            return no_results(ds, "Measured twice")
        return Markup(element("p", "No runner has measured a scenario twice with the same code yet."))
    rows: list[list[Any]] = []
    for rr in runners:
        w = rr.largest
        m, base = w.later, w.baseline
        common = {k: v for k, v in m.settings.items() if base.settings.get(k) == v}
        context = ", ".join(x for x in (ds.params_words(m.topic, m.params), ds.settings_words(m.topic, common),
                                         m.version) if x != "–")
        title = ds.topics[m.topic].title if m.topic in ds.topics else m.topic
        where = (f"{_own(ds, m, common)} against {_own(ds, base, common)}: {times(w.before.point)} in the first run, "
                 f"{times(w.after.point)} in the second ({title}; {context})")
        n = len(rr.pairs)
        answers = join([f"{rr.repeated} of {rr.clear} ({percent(rr.repeated / rr.clear)})" if rr.clear else "–",
                        Markup("<br>"), element("small", f"{rr.contradicted} contradicted, the rest unclear")])
        typical: Any = percent(rr.typical)
        if rr.host is not None:
            timed = len(rr.probed)
            some = f" ({timed} of {rr.scenarios} scenarios timed it in both runs)" if timed < rr.scenarios else ""
            typical = join([typical, Markup("<br>"),
                            element("small", f"host probe: {times(rr.host)} as long in the second run{some}")])
        rows.append([runner_name(ds, rr.runner), n, f"{rr.agreeing} ({percent(rr.agreeing / n)})",
                     typical, f"{rr.inside} ({percent(rr.inside / n)})", answers, where])
    once = [runner_name(ds, label) for label in sorted(ds.runners) if label not in {rr.runner for rr in runners}]
    lead = element("p", "The table compares each speedup of those scenarios in the two runs: how many agree within "
                        "±10%, how much they typically moved, and how often the second run's value fell inside the "
                        "first run's interval (a 95% interval that took in everything that varies would do so about "
                        "19 times in 20). Then what a reader acts on: each run's finding by the rule above (faster, "
                        "slower, the same or unclear), and, of the clear ones, how many the other run gave too."
                        + (" Where both runs timed the host probe (the same small piece of CPU work before and "
                           "after every scenario) in enough scenarios, the typical change says how much longer the "
                           "second runs' machine took on it (the median of all their probes against the first "
                           "runs'): a virtual machine on a busier or slower host moves the speedups, because the "
                           "cases do not all slow down alike."
                           if any(rr.host is not None for rr in runners) else "")
                        + (f" Not in the table, because they measured each scenario once with the code of their "
                           f"results: {'; '.join(once)}." if once else ""))
    return Markup(lead + table(["runner", "speedups measured twice", "within ±10% of the first run",
                                "typical change", "second run inside the first run's interval",
                                "clear findings the other run repeated", "largest change"], rows)
                  + provenance(ctx, [x for rr in runners for p in rr.pairs for x in (p.earlier, p.later)]))


_ONEDNN: dict[Any, str] = {True: "on", False: "off"}     # environment.onednn (None: unknown)
_RUNTIMES = (("tf2onnx", "tf2onnx"), ("onnxruntime", "ONNX Runtime"), ("ai_edge_litert", "ai-edge-litert"))


def _keras_in_use(in_use: dict[str, list[str]], versions: Mapping[str, object]) -> str:
    """"Keras 3.15.1; tf_keras 2.21.0 (TF_USE_LEGACY_KERAS=1)": the Keras each kind of
    worker process really imported, not the packages installed."""
    used = in_use.get("keras") or ([str(keras)] if (keras := versions.get("keras")) else [])   # a str or None
    if not used:
        return "–"
    legacy = set(in_use.get("tf_keras") or [])
    return "; ".join(f"tf_keras {v} (TF_USE_LEGACY_KERAS=1)" if v in legacy and not v.startswith("3.")
                     else f"Keras {v}" for v in used)


_OS_NAMES = {"Darwin": "macOS"}


def os_name(env: Mapping[str, Any]) -> str:
    """"Linux (x86_64)": the operating system a runner's record names, and its architecture.
    The record says ``platform.system()`` and ``platform.release()``; a kernel's release (a
    VM's build string, or Darwin's) tells a reader nothing, but Windows' release is its version."""
    system, _, release = str(env.get("os") or "").strip().partition(" ")
    if not system:
        return "–"
    name = _OS_NAMES.get(system, system) + (f" {release}" if system == "Windows" and release else "")
    return f"{name} ({env['machine']})" if env.get("machine") else name


def block_runners(d: Directive, ctx: Context) -> Markup:
    ds = ctx.ds
    if not ds.runners:
        return no_results(ds, "Runners")
    out = []
    for label, r in sorted(ds.runners.items()):
        env: Mapping[str, Any] = r.latest_environment() or {}
        versions = env.get("versions") or {}
        in_use = r.versions_in_use()
        isa = ", ".join(k for k, v in sorted((env.get("isa") or {}).items()) if v) or "–"
        gpus = "; ".join(f"{g.get('name')} (driver {g.get('driver') or '?'})" for g in env.get("gpus") or []) or "none"
        threads = env.get("threads") or {}
        noise = [n.rel_noise for n in ds.noise if n.runner == label]
        rows = [
            ["description", r.description or "–"], ["contributed by", r.contributed_by or "–"],
            ["CPU", cpu_text(env)], ["cores", env.get("cores", "–")],
            ["memory", f"{env['memory_bytes'] / 2**30:.1f} GiB" if env.get("memory_bytes") else "–"],
            ["instruction sets", isa], ["GPU", gpus],
            ["CUDA / cuDNN", f"{env.get('cuda') or '–'} / {env.get('cudnn') or '–'}"],
            ["OS", os_name(env)], ["Python", env.get("python", "–")],
            ["TensorFlow", versions.get("tensorflow") or "–"],
            ["Keras used by the worker processes", _keras_in_use(in_use, versions)],
            ["NumPy", versions.get("numpy") or "–"],
            ["serving runtimes", ", ".join(f"{name} {' / '.join(in_use[key])}" for key, name in _RUNTIMES
                                           if in_use.get(key)) or "none recorded"],
            ["oneDNN", _ONEDNN.get(env.get("onednn"), "–")],
            ["threads (intra / inter)", f"{threads.get('intra_op') or 'default'} / {threads.get('inter_op') or 'default'}"],
            ["noise floor (max A/A)", percent(max(noise)) if noise else "no A/A pair stored"],
            ["time per scenario", _budget_text(ctx, *r.scaled_scenarios(ds.shown_scenarios(label)))],
            ["software versions measured", ", ".join(sorted({m.version for m in ds.measurements if m.runner == label},
                                                            key=release_key))],
            ["results files", join([link(ctx.prefix + DATA_URL + s.rel, s.rel) for s in r.sources], ", ")],
        ]
        title = f"{hardware_name(r, label)} ({label})"
        out.append(Markup(f'<h3 id="runner-{h(label)}">{h(title)}</h3>' + table([hidden("what"), hidden("value")], rows, "tfperf-table tfperf-kv")))
    return Markup(_maybe_one_cpu_note(ctx) + "".join(out))


def _budget_text(ctx: Context, total: int, scaled: Mapping[float, int]) -> Markup:
    """How much time a runner's ``total`` published scenarios had: the profile's budget, or
    a multiple of it in ``scaled`` of them (scale -> scenarios; ``tfperf run --budget-scale``)."""
    if not scaled:
        return Markup("the usual time")
    parts = [f"{scale:g}&times; the usual time in {n} of its {total} scenarios" for scale, n in sorted(scaled.items())]
    rest = total - sum(scaled.values())
    return Markup(join([Markup(p) for p in parts], "; ") + (f"; the usual time in the other {rest}" if rest else "")
                  + " (" + link(f"{ctx.prefix}how-we-measure/#time-per-scenario", "why") + ")")


def _maybe_one_cpu_note(ctx: Context) -> str:
    """A note before the runners where two of them may be one CPU (the older measured before
    the harness read the family and model): kept apart, and a shared finding counts twice."""
    pairs = maybe_one_cpu(ctx.ds)
    if not pairs:
        return ""
    items = []
    rows = headline_findings(ctx.ds, ctx.topic_order)
    for old, new in pairs:
        first, second = (hardware_name(ctx.ds.runners.get(x), x) for x in (old, new))
        pairs_found = [(f[old], f[new]) for f in ({r.runner: r.finding for r in row.answer.runners} for row in rows)
                       if Finding.NO_DATA not in (f.get(old, Finding.NO_DATA), f.get(new, Finding.NO_DATA))]
        same = sum(1 for a, b in pairs_found if a == b)
        agree = (f" Of the {len(pairs_found)} claims both measured, they give the same answer on {same}."
                 if pairs_found else "")
        items.append(f"<p>The runner {h(old)}, a {h(first)}, was measured before tfperf recorded a CPU's "
                     f"family and model numbers; the runner {h(new)}, a {h(second)}, reports the same "
                     "model name, core count and instruction sets, so the two may be one CPU. They are "
                     "published as two runners, never merged, and a finding they share counts twice in "
                     f"&ldquo;on N of M runners&rdquo;.{agree}</p>")
    return admonition("note", "Two runners that may be one CPU", Markup("".join(items)))


def block_datafiles(d: Directive, ctx: Context) -> Markup:
    ds = ctx.ds
    rows = []
    for label, r in sorted(ds.runners.items()):
        for s in r.sources:
            n = sum(1 for m in ds.measurements if m.source == s)
            st = sum(1 for m in ds.measurements if m.source == s and m.stale)
            rows.append([link(ctx.prefix + DATA_URL + s.rel, s.rel), label, s.profile, n, st])
    body = (table(["file", "runner", "profile", "results", "of which stale"], rows) if rows
            else no_results(ds, "Results files"))
    return Markup(body + f'<p>The schema these files follow: {link(ctx.prefix + SCHEMA_URL, SCHEMA_URL.rpartition("/")[2])} '
                  "(JSON Schema, draft 2020-12).</p>")


def block_errors(d: Directive, ctx: Context) -> Markup:
    if not ctx.ds.errors:
        return Markup("<p>Every results file under <code>" + h(_rel(str(ctx.ds.results_root))) + "</code> loaded without error.</p>")
    return errors_box(ctx.ds)


def errors_box(ds: Dataset) -> Markup:
    items = "".join(element("li", join([element("code", _rel(getattr(e, "path", "?"))), ": field ",
                                        element("code", getattr(e, "field", "?")), ": ", getattr(e, "problem", str(e))]))
                    for e in ds.errors)
    return admonition("failure", "Some data could not be used",
                      Markup(f"<p>These files were skipped; everything else on this page is drawn from the files "
                             f"that loaded.</p><ul>{items}</ul>"))


def _rel(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


# -- the Data page's failures -------------------------------------------------------------

# ``<!-- tfperf:failures -->`` on the Data page: every current result that failed, of every
# topic. A topic page shows its own failures beside its figures, but a topic without a page
# (a YAML added before its page, or a results file from a contributor's own topic) would
# otherwise show them nowhere; so the list names each topic and links the ones with a page.
def block_failures(d: Directive, ctx: Context) -> Markup:
    failed = failed_results(ctx.ds.current)
    if not failed:
        return Markup("<p>No current result is a failure.</p>")
    rows: list[list[Any]] = []
    for m in failed:
        has_page = ctx.topic_pages is None or m.topic in ctx.topic_pages
        topic: Any = (link(f"{ctx.prefix}topics/{m.topic}/", m.topic) if has_page
                      else join([m.topic, " ", element("em", "(no page)")]))
        rows.append([topic, element("code", m.runner), element("code", m.case_id), error_line(m),
                     m.finished.date().isoformat(), stale_mark([m])])
    return Markup(table(["topic", "runner", "case", "what went wrong", "measured", STALE_HEAD], rows)
                  + provenance(ctx, failed))


BLOCKS: dict[str, Callable[[Directive, Context], Markup]] = {
    "chart": block_chart, "recommendations": block_recommendations, "claims": block_claims,
    "breakdown": block_breakdown, "notebook": block_notebook,
    "findings": block_findings, "differences": block_differences, "controls": block_controls,
    "repeats": block_repeats,
    "runners": block_runners,
    "datafiles": block_datafiles, "errors": block_errors,
    "failures": block_failures, "dothis": block_dothis,
}
NEEDS_TOPIC = {"dothis", "chart", "recommendations", "claims", "trends", "breakdown", "notebook",
               "settings", "metrics", "breakeven", "tenrun", "changes", "perstep", "answers", "arrivals", "outputs"}


BLOCKS.update(ANSWER_BLOCKS)
BLOCKS.update(ARRIVAL_BLOCKS)
BLOCKS.update(EXTRA_BLOCKS)
BLOCKS.update(VERSION_BLOCKS)
BLOCKS.update(PER_STEP_BLOCKS)
