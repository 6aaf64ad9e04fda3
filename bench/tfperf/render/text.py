"""The CLI's reports as terminal text, laid out from the analysis (nothing here computes a
statistic):

* ``tfperf answers``: every topic's questions and their answers, from the same analysis as
  the pages' first screen (:func:`tfperf.analyse.question_answers`); ``tfperf advise`` writes
  its questions with the same lines (:func:`question_lines`);
* ``tfperf compare`` (the second section): this machine's results beside the published
  runners' (the numbers come from :mod:`tfperf.analyse.views.versus`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..analyse import RULE, WORDS, ClaimAnswer, Dataset, QuestionAnswer, Versus, params_id, question_answers


def report(ds: Dataset, topics: Sequence[str] = ()) -> str:
    """The question, its lead (Yes, No, It depends, Unclear), and one line per claim and
    runner, naming the hardware."""
    lines = [f"How to read the findings: {RULE}", ""]
    for topic in topics or ds.topic_names():
        info = ds.topics.get(topic)
        answers = question_answers(ds, topic)
        if not answers:
            continue
        lines.append(f"== {info.title if info else topic} ({topic})")
        for qa in answers:
            lines += question_lines(qa)
            if qa.note:
                lines.append(f"   {qa.note}")
        lines.append("")
    return "\n".join(lines)


def question_lines(qa: QuestionAnswer, after: Callable[[ClaimAnswer], list[str]] | None = None) -> list[str]:
    """A question, its lead and each runner's sentence, as the terminal shows them, then
    the arrival pattern it is answered under and what that pattern changes; ``after``
    gives the lines under each claim's sentences (what the guide found beside it)."""
    lines = [f"Q: {qa.ask}", *([f"A: {qa.lead_text()}"] if qa.lead else [])]
    for c in qa.claims:
        lines += [f"   [{r.hardware}] {c.sentence(r)}." for r in c.runners]
        if after is not None and c.runners:
            lines += after(c)
    return [*lines, *([f"   {qa.arrival_text}"] if qa.arrival else []),
            *(f"   How requests arrive changes the answer: {change}." for change in qa.changes),
            *(f"   Accuracy: {a}." for a in qa.accuracy)]


# -- tfperf compare -----------------------------------------------------------------------

def seconds(x: float | None) -> str:
    if x is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(x) >= scale * 0.9995:        # 0.9996 ms is "1 ms", not "1e+03 us"
            return f"{x / scale:.3g} {unit}"
    return f"{x / 1e-9:.3g} ns"


def times(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}x"


def _printable(value: Any, limit: int = 60) -> str:
    """Data strings are shown as text: control characters (terminal escapes) are replaced."""
    text = "".join(ch if ch.isprintable() else "?" for ch in str(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def _scenario(params: Mapping[str, object], settings: dict[str, str]) -> str:
    p = params_id(params) or "-"
    s = ",".join(f"{k}={v}" for k, v in sorted(settings.items()))
    return _printable(f"{p} {s}".strip(), 50)


def render(v: Versus) -> str:
    env: Mapping[str, object] = v.here.environment or {}
    same = [s.name for s in v.runners if s.same_cpu]
    out = [(f"this machine: {_printable(v.here.runner)} ({_printable(env.get('cpu_model') or '?')}, "
            f"{env.get('cores') or '?'} cores), {v.here.profile} profile, {len(v.here.measurements)} result(s) "
            f"from {_printable(v.here.path, 200)}"),
           (f"published runner with this CPU: {', '.join(map(_printable, same))}" if same
            else "no published runner has this CPU: every comparison is with another processor"),
           "ratio = time here / time there (median over median, 95% CI); below 1 means faster here.",
           f"findings: {RULE}"]
    if v.errors:
        out += ["", "published files skipped (the others are used):"] + [f"  {_printable(e, 300)}" for e in v.errors]
    out += ["", "Published runners"]
    rows = [[_printable(s.name) + (" *" if s.same_cpu else ""), _printable(s.cpu or "?", 40), str(s.cases),
             times(s.typical_ratio), f"{s.in_iqr}/{s.cases}", f"{s.in_ci}/{s.cases}",
             _printable(s.contributed_by or "-", 24)] for s in v.runners]
    out += ["  " + x for x in table(["runner/profile", "cpu", "cases", "typical ratio", "in their IQR",
                                     "in their CI", "contributed by"], rows)]
    if not v.runners:
        out.append("  (no published results found)")
    for topic in v.topics():
        out += ["", f"== {topic}"]
        cases = [c for c in v.cases if c.topic == topic]
        if cases:
            rows = [[_scenario(c.params, c.settings), _printable(c.variant, 24), _printable(c.runner, 32),
                     seconds(c.here_median), seconds(c.there_median),
                     f"{times(c.ratio.point)} [{c.ratio.low:.2f}-{c.ratio.high:.2f}]",
                     "yes" if c.in_iqr else "no", "yes" if c.in_ci else "no",
                     ("stale " if c.stale else "") + ("" if c.same_software else "other TF/Keras")]
                    for c in cases]
            out += ["  " + x for x in table(["case", "variant", "runner", "here", "there", "ratio [95% CI]",
                                             "in IQR", "in CI", "note"], rows)]
        else:
            out.append("  no case measured both here and on a published runner")
        claims = [c for c in v.claims if c.topic == topic]
        if claims:
            out += ["", "  Claims: the finding here, and on each runner over the same cases"]
            for c in claims:
                out.append(f"  {_printable(c.text, 200)}")
                out.append(f"    {WORDS[c.here_finding].symbol} here: {c.here}")
                for n in sorted(c.there):
                    f = c.there_finding.get(n)
                    sym = WORDS[f].symbol if f is not None else "-"
                    out.append(f"    {sym} {_printable(n, 60)}: {c.there[n]}")
        recs = [r for r in v.recommendations if r.topic == topic]
        if recs:
            out += ["", "  Recommendations (the page's pick per runner and scenario: does it hold here?)"]
            rows = [[_printable(r.runner, 32), _scenario(r.params, r.settings), _printable(r.there_best or "-", 24),
                     times(r.there_speedup.point if r.there_speedup else None),
                     times(r.here_speedup.point if r.here_speedup else None),
                     {True: "holds", False: "does not hold", None: "?"}[r.holds_here],
                     _printable(r.here_best or "-", 24), _printable(r.note or "", 60)] for r in recs]
            out += ["  " + x for x in table(["runner", "scenario", "recommended", "speedup there", "speedup here",
                                             "here", "best here", "note"], rows)]
    return "\n".join(out) + "\n"
