"""``tfperf advise``: the answers about the reader's model, from the same analysis as the
guide's pages (:func:`tfperf.analyse.question_answers`: the one vocabulary and finding
rule), in three forms: terminal text, JSON, and one self-contained HTML page. Nothing here
computes a statistic: the words, findings and speedups are the analysis's; this lays them out.

Beside the published runner (the first section): each answer beside what the guide found on
the published runner with the same CPU (the runner whose label is this machine's), and
where the two differ. Each advise claim stands for one of the guide's claims (:data:`GUIDE`):
the same two ways compared, at batch 1 or at a larger batch. The guide's claim is answered
by the same analysis over the published results (:func:`tfperf.analyse.claim_answer`); the
two differ where both are a plain finding (faster, slower, the same) and not the same one,
or where the reader's fastest way is not among the guide's fastest on that runner at that batch.

The HTML page (the last section) has the same words as the terminal, the same charts as the
site's topic pages (the Vega-Lite specs of :mod:`.page.topic_chart` and
:mod:`.page.settings_chart`, drawn by the vendored Vega, Vega-Lite and vega-embed, inlined so
that the page opens offline and loads nothing outside itself), the machine and versions the
results record, what the guide found on the published runner beside each answer, and what
failed or gave a wrong output. The charts' modules (Altair, of the ``site`` extra) are
imported when the page draws its first chart: the text and the JSON need the analysis alone.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..analyse import (
    RULE,
    ClaimAnswer,
    Dataset,
    Finding,
    claim_answer,
    error_line,
    failed_results,
    hardware_name,
    question_answers,
    ratio_text,
)
from .page.context import Context as PageContext
from .page.embed import SvgCache, chart_html
from .page.html import Markup, element, h, join, table
from .text import question_lines

# -- beside the published runner ----------------------------------------------------------

PLAIN = (Finding.FASTER, Finding.SLOWER, Finding.SAME)

# advise claim stem -> (guide topic, its claim at batch 1, its claim at a larger batch)
GUIDE: dict[str, tuple[str, str, str]] = {
    "call_vs_predict": ("predict_vs_call", "call_beats_predict_single", "call_beats_predict_large_batch"),
    "tf_function_vs_call": ("predict_vs_call", "tf_function_beats_call", "tf_function_beats_call"),
    "xla_vs_function": ("xla_jit", "xla_beats_function", "xla_beats_function"),
    "saved_model_vs_tf_function": ("serving_formats", "saved_model_vs_tf_function", "saved_model_vs_tf_function"),
    "tflite_vs_tf_function": ("serving_formats", "tflite_beats_tf_single", "tflite_vs_tf_batch"),
    "onnx_vs_tf_function": ("serving_formats", "onnx_beats_tf_single", "onnx_beats_tf_batch"),
    "xnnpack": ("serving_formats", "xnnpack_helps", "xnnpack_helps"),
    "one_thread": ("cpu_threads", "one_thread_single_request", "one_thread_slower"),
    "onednn": ("cpu_threads", "onednn_faster", "onednn_faster"),
}
# advise topic -> the guide's topic whose "Do this" it matches, and advise variant -> guide variant
WINNERS: dict[str, tuple[str, dict[str, str]]] = {
    "advise_predict": ("predict_vs_call", {"tf_function": "call_tf_function"}),
    "advise_serving": ("serving_formats", {}),
}
GUIDE_TOPICS = tuple(sorted({t for t, _, _ in GUIDE.values()}))
_CLAIM = re.compile(r"^(?P<stem>.+)_b(?P<batch>\d+)$")


@dataclass(frozen=True)
class Beside:
    """One answer about the reader's model and the guide's on the published runner."""

    topic: str                     # the advise topic
    claim_id: str                  # the advise claim ("call_vs_predict_b1")
    yours: str                     # its finding here ("faster")
    guide_topic: str
    guide_claim: str
    guide: str                     # the guide's finding on that runner ("faster"), or "" where it has none
    guide_text: str                # the guide's summary there ("faster in all 10 scenarios (7.5×–41.6×)")
    guide_brief: str               # the same without the exceptions' names ("faster in all 10 (7.5×–41.6×)")
    differs: bool

    def line(self, brief: bool = False) -> str:
        if not self.guide:
            return "the guide has no result for this on that runner"
        mark = "DIFFERS: " if self.differs else ""
        return f"{mark}on the guide's runner: {self.guide_brief if brief else self.guide_text}"


@dataclass(frozen=True)
class Winner:
    """The reader's fastest way at one batch against the guide's on the published runner."""

    topic: str
    batch: int
    yours: str                     # display name
    guide_batch: int               # the guide's batch nearest to it
    guide: tuple[str, ...]         # the guide's fastest (and level with it) over its models at that batch
    differs: bool

    def line(self) -> str:
        mark = "DIFFERS: " if self.differs else ""
        at = f"batch {self.guide_batch}" + (f", the nearest to your {self.batch}" if self.guide_batch != self.batch else "")
        return f"{mark}the guide's fastest on its runner at {at}, over its models: {', '.join(self.guide)}"


@dataclass(frozen=True)
class Published:
    """What the guide found on the runner with this machine's CPU, or why there is none."""

    runner: str | None             # the published runner's label; None when none matches
    hardware: str                  # "2-core AMD EPYC (AVX2)"
    why_none: str                  # when runner is None: the sentence that says so
    claims: tuple[Beside, ...] = ()
    winners: tuple[Winner, ...] = ()

    def heading(self) -> str:
        if self.runner is None:
            return self.why_none
        n = sum(b.differs for b in self.claims) + sum(w.differs for w in self.winners)
        where = f"{n} answer{'s' if n != 1 else ''} differ" if n else "no answer differs"
        return (f"Beside the guide's published runner with the same CPU, {self.hardware} ({self.runner}): "
                f"{where}.")

    def for_claim(self, claim_id: str) -> Beside | None:
        return next((b for b in self.claims if b.claim_id == claim_id), None)

    def as_json(self) -> dict[str, Any]:
        return {"runner": self.runner, "hardware": self.hardware, "why_none": self.why_none or None,
                "claims": [{"topic": b.topic, "claim": b.claim_id, "yours": b.yours, "guide_topic": b.guide_topic,
                            "guide_claim": b.guide_claim, "guide": b.guide or None, "guide_text": b.guide_text or None,
                            "guide_brief": b.guide_brief or None,
                            "differs": b.differs} for b in self.claims],
                "winners": [{"topic": w.topic, "batch": w.batch, "yours": w.yours, "guide_batch": w.guide_batch,
                             "guide": list(w.guide),
                             "differs": w.differs} for w in self.winners]}


def none_matches(label: str, labels: Iterable[str], published: str) -> Published:
    have = ", ".join(sorted(labels)) or "none"
    return Published(None, "", f"No published runner has this machine's CPU ({label}; published: {have} in "
                               f"{published}), so the answers stand alone.")


def _guide_claim(claim_id: str) -> tuple[str, str] | None:
    m = _CLAIM.match(claim_id)
    if m is None or m["stem"] not in GUIDE:
        return None
    topic, single, larger = GUIDE[m["stem"]]
    return topic, single if int(m["batch"]) == 1 else larger


def _winners(local: Dataset, published: Dataset, runner: str, topics: Sequence[str]) -> list[Winner]:
    out = []
    for topic in topics:
        if topic not in WINNERS:
            continue
        guide_topic, ids = WINNERS[topic]
        info, ginfo = local.topics.get(topic), published.topics.get(guide_topic)
        best: dict[int, list[str]] = {}
        for rec in published.recommendations(guide_topic):
            if rec.scenario.runner.split("/")[0] != runner or rec.best is None:
                continue
            batch = int(str(rec.scenario.params.get("batch", 0)))
            for v in (rec.best, *rec.tied):
                name = ginfo.display_name(v) if ginfo else v
                if name not in best.setdefault(batch, []):
                    best[batch].append(name)
        for rec in local.recommendations(topic):
            if rec.best is None or len(rec.scenario.variants) < 2:
                continue
            batch = int(str(rec.scenario.params.get("batch", 0)))
            nearest = min(best, key=lambda b: (abs(b - batch), b), default=None)
            if nearest is None:
                continue
            mine = [ginfo.display_name(ids.get(v, v)) if ginfo else v for v in (rec.best, *rec.tied)]
            yours = info.display_name(rec.best) if info else rec.best
            out.append(Winner(topic, batch, yours, nearest, tuple(best[nearest]),
                              differs=not set(mine) & set(best[nearest])))
    return out


def beside(local: Dataset, published: Dataset, runner: str, topics: Sequence[str]) -> Published:
    """The advise answers of ``topics`` beside the guide's on the published ``runner``."""
    claims = []
    for topic in topics:
        for qa in question_answers(local, topic):
            for c in qa.claims:
                if not c.runners:
                    continue
                target = _guide_claim(c.claim_id)
                if target is None:
                    continue
                yours = c.runners[0].finding
                answer = claim_answer(published, *target)
                there = next((r for r in answer.runners if r.runner.split("/")[0] == runner), None) if answer else None
                guide = there.finding if there else None
                differs = guide is not None and yours in PLAIN and guide in PLAIN and yours != guide
                claims.append(Beside(topic, c.claim_id, str(yours), *target, str(guide) if guide else "",
                                     there.text if there else "", there.brief if there else "", differs))
    runners = {r.split("/")[0] for r in published.runners}
    hw = hardware_name(published.runners.get(runner), runner) if runner in runners else runner
    return Published(runner, hw, "", tuple(claims), tuple(_winners(local, published, runner, topics)))


# -- terminal text and JSON ---------------------------------------------------------------

XLA = ("advise_xla", "function", "xla")          # topic, baseline, candidate of the first-call cost


@dataclass(frozen=True)
class Context:
    """What the measuring side says about the run, in plain words."""

    model: str                                    # the path as given
    described: str                                # "one input 'image' of 32x32x3 float32, 1 output"
    topics: Sequence[tuple[str, str]]             # (name, title), in the order measured
    not_measured: Sequence[tuple[str, str]] = ()  # (topic, why)
    interrupted: bool = False
    results: str = ""                             # the results file's path
    extra: dict[str, Any] = field(default_factory=dict)   # more to write into the JSON
    published: Published | None = None            # the guide's answers on the runner with this CPU
    skipped: Sequence[tuple[str, str]] = ()       # (topic, why) left out for lack of budget (in not_measured too)


def _seconds(x: float) -> str:
    return f"{x * 1e3:.3g} ms" if x < 1 else f"{x:.3g} s"


def first_calls(ds: Dataset) -> list[dict[str, Any]]:
    """XLA's first call (trace and compile) against the plain tf.function's, per scenario,
    with the break-even of :meth:`Dataset.breakeven`."""
    out = []
    for row, _ in ds.breakeven(*XLA):
        out.append({"params": dict(row.params), "first_call_s": {"function": row.first_base, "xla": row.first_cand},
                    "median_s": {"function": row.median_base, "xla": row.median_cand}, "break_even": row.label,
                    "calls": row.calls})
    return out


def first_call_lines(ds: Dataset) -> list[str]:
    lines = []
    for row in first_calls(ds):
        batch = row["params"].get("batch")
        f, x = row["first_call_s"]["function"], row["first_call_s"]["xla"]
        pays = ("it never pays for itself (it is not faster per call)" if row["calls"] is None
                else "it pays for itself from the first call" if row["calls"] == 1
                else f"it pays for itself after {row['calls']:,} calls")
        lines.append(f"   batch {batch}: XLA's first call (tracing and compiling) takes {_seconds(x)}, the plain "
                     f"tf.function's {_seconds(f)}; {pays}.")
    return lines


def do_this(ds: Dataset, topic: str) -> list[dict[str, Any]]:
    """Per scenario, the fastest variant with a correct output against the topic's default
    (:meth:`Dataset.recommendations`, the guide's "Do this"): what it is, its speedup and
    finding, the variants level with it, and those never recommended."""
    info = ds.topics.get(topic)
    name = info.display_name if info else str
    out = []
    for rec in ds.recommendations(topic):
        if rec.best is None or len(rec.scenario.variants) < 2:
            continue
        out.append({"params": dict(rec.scenario.params), "default": name(rec.default), "best": name(rec.best),
                    "speedup": rec.speedup.point if rec.speedup else None,
                    "ci": [rec.speedup.low, rec.speedup.high] if rec.speedup else None,
                    "finding": str(rec.finding) if rec.finding else None, "level_with": [name(v) for v in rec.tied],
                    "never_recommended": {name(v): why for v, why in rec.excluded.items()}})
    return sorted(out, key=lambda r: [str(v) for v in r["params"].values()])


def do_this_lines(ds: Dataset, topic: str) -> list[str]:
    lines = []
    for r in do_this(ds, topic):
        where = ", ".join(f"{k} {v}" for k, v in r["params"].items())
        if r["finding"] is None:
            text = f"{r['best']} (the default) is the fastest"
        else:
            text = (f"{r['best']}: {ratio_text(r['speedup'])} the speed of {r['default']} ({r['finding']}, 95% CI "
                    f"{ratio_text(r['ci'][0])}–{ratio_text(r['ci'][1])})")
        level = f"; level with it: {', '.join(r['level_with'])}" if r["level_with"] else ""
        lines.append(f"   Do this at {where}: {text}{level}.")
    return lines


def failure_lines(ds: Dataset, topic: str) -> list[str]:
    """What could not be measured, once per error (a conversion fails alike at every batch),
    and the outputs outside tolerance, which are never recommended."""
    by_error: dict[str, list[str]] = {}
    for m in failed_results(ds.current):
        if m.topic == topic:
            by_error.setdefault(error_line(m), []).append(f"{ds.label(topic, m.variant)} at batch {m.params.get('batch')}")
    out = [f"   not measured: {'; '.join(dict.fromkeys(cases))}: {error}" for error, cases in by_error.items()]
    for m in ds.current:
        if m.topic == topic and m.ok and m.within_tolerance is False:
            out.append(f"   wrong output, never recommended: {ds.label(topic, m.variant)} at batch "
                       f"{m.params.get('batch')} (differs from the reference by up to {m.max_abs_diff:.3g})")
    return out


def report(ds: Dataset, ctx: Context) -> str:
    """The questions about the reader's model and their answers, topic by topic."""
    pub = ctx.published
    lines = [f"Your model: {ctx.model} ({ctx.described})", f"How to read the findings: {RULE}"]
    if pub is not None:
        lines.append(pub.heading())
    lines.append("")

    def guide(c: ClaimAnswer) -> list[str]:
        b = pub.for_claim(c.claim_id) if pub is not None and pub.runner else None
        return [f"      {b.line(brief=True)}."] if b is not None else []

    for name, title in ctx.topics:
        answers = question_answers(ds, name)
        why = dict(ctx.not_measured).get(name)
        lines.append(f"== {title}")
        if why is not None and not any(c.runners for qa in answers for c in qa.claims):
            lines += [f"   not measured: {why}", ""]
            continue
        for qa in answers:
            lines += question_lines(qa, guide)
        lines += do_this_lines(ds, name)
        if pub is not None:
            lines += [f"      {w.line()}." for w in pub.winners if w.topic == name]
        if name == XLA[0]:
            lines += first_call_lines(ds)
        lines += failure_lines(ds, name)
        lines.append("")
    if ctx.skipped:
        titles = dict(ctx.topics)
        lines.append("Left out for lack of budget: " + "; ".join(f"{titles.get(t, t)} ({why})" for t, why in ctx.skipped)
                     + ".")
    if ctx.interrupted:
        lines.append("Interrupted: the answers above are what was measured before; run the same command again "
                     "to measure the rest.")
    if ctx.results:
        lines.append(f"Results (the results schema): {ctx.results}")
    return "\n".join(lines) + "\n"


def _point(p: Any) -> dict[str, Any]:
    return {"scenario": p.label, "finding": str(p.finding), "speedup": p.speedup, "ci_low": p.low, "ci_high": p.high}


def as_json(ds: Dataset, ctx: Context) -> dict[str, Any]:
    """The answers as data: each question's lead and sentences, each claim's finding per
    scenario with its speedup and interval, XLA's first calls, what was not measured."""
    questions = []
    for name, _ in ctx.topics:
        for qa in question_answers(ds, name):
            questions.append({
                "topic": name, "id": qa.id, "ask": qa.ask, "lead": qa.lead, "answer": qa.lead_text(),
                "lines": [{"hardware": hw, "text": s} for hw, s in qa.lines()],
                "claims": [{"id": c.claim_id, "candidate": c.candidate, "baseline": c.baseline, "scope": c.scope,
                            "finding": str(r.finding), "text": c.sentence(r), "hardware": r.hardware,
                            "scenarios": [_point(p) for p in r.summary.points]}
                           for c in qa.claims for r in c.runners]})
    failures = [{"topic": m.topic, "variant": m.variant, "params": dict(m.params), "settings": dict(m.settings),
                 "error": error_line(m)} for m in failed_results(ds.current) if m.topic in dict(ctx.topics)]
    wrong = [{"topic": m.topic, "variant": m.variant, "params": dict(m.params), "max_abs_diff": m.max_abs_diff}
             for m in ds.current if m.topic in dict(ctx.topics) and m.ok and m.within_tolerance is False]
    return {"model": ctx.model, "described": ctx.described, "rule": RULE, "questions": questions,
            "do_this": {name: do_this(ds, name) for name, _ in ctx.topics},
            "first_calls": first_calls(ds), "failed": failures, "wrong_output": wrong,
            "not_measured": [{"topic": t, "why": w} for t, w in ctx.not_measured],
            "skipped_for_budget": [{"topic": t, "why": w} for t, w in ctx.skipped],
            "published": ctx.published.as_json() if ctx.published is not None else None,
            "interrupted": ctx.interrupted, "results": ctx.results, **ctx.extra}


# -- the HTML page ------------------------------------------------------------------------

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
    # Altair (the site extra) only here: the text and the JSON need the analysis alone.
    from .page.builder import ChartError, chart_alt, runner_names, settings_alt
    from .page.topic_chart import chart_specs

    info = ds.topics.get(topic)
    try:
        if info is not None and info.baseline_settings:
            from .page.settings_chart import settings_chart_specs

            settings_rows = ds.settings_rows(topic)
            if not settings_rows:
                return Markup("")
            base = ", ".join(ds.setting_label(topic, k, v) for k, v in info.baseline_settings.items())
            spec, _ = settings_chart_specs(settings_rows, x="threads", color="onednn", baseline_label=base,
                                           settings_order=info.settings_values, param_order=info.param_values,
                                           runner_names=runner_names(ds, settings_rows))
            alt = settings_alt(page, topic, "threads", base, settings_rows)
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
