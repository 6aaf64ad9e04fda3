"""``tfperf advise``: the answers about the reader's model, as terminal text and as JSON,
from the same analysis as the guide's pages (:func:`tfperf.analyse.question_answers`: the
one vocabulary and finding rule). Nothing here computes a statistic: the words, findings
and speedups are the analysis's; this lays them out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...analyse import RULE, ClaimAnswer, Dataset, error_line, failed_results, question_answers, ratio_text
from .advise_beside import Published
from .answers_text import question_lines

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
