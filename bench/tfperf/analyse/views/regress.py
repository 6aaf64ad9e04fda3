"""Regressions between two result sets of one runner: each case's newest result in the old
set against its newest result in the new set, judged by the stored 95% CIs of the medians.

A case is *slower* (or *faster*) only when both hold:

* the two intervals do not overlap (the new interval lies wholly above, or below, the old);
* the medians differ by more than ``threshold`` (a ratio beyond ``1 + threshold`` or below
  ``1 / (1 + threshold)``, the same distance either way on a log scale).

Anything else is *within noise*. A case whose newest result is the very same record in both
sets was not measured again and is only counted. A case that worked and now fails (or the
other way round) is reported apart from the timings. Plain data in, plain data out; the
markdown is made by ``markdown``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ...store.record_types import Result, ResultsDoc, Summary

Verdict = Literal["slower", "faster", "within noise", "fails now", "works again", "still failing"]

DEFAULT_THRESHOLD = 0.10


@dataclass(frozen=True)
class Point:
    """One result's median and the 95% CI of that median (seconds per call)."""

    median: float
    ci_low: float
    ci_high: float
    n: int
    finished_at: str


@dataclass(frozen=True)
class Change:
    case_id: str
    verdict: Verdict
    old: Point | None
    new: Point | None
    old_status: str
    new_status: str

    @property
    def ratio(self) -> float | None:
        """New median over old median (> 1: slower)."""
        if self.old is None or self.new is None:
            return None
        return self.new.median / self.old.median


@dataclass
class Report:
    threshold: float
    changes: list[Change] = field(default_factory=list)   # every case measured again in the new set
    same_record: int = 0                                  # cases whose newest result did not change
    only_old: list[str] = field(default_factory=list)
    only_new: list[str] = field(default_factory=list)

    def count(self, verdict: Verdict) -> int:
        return sum(1 for c in self.changes if c.verdict == verdict)

    @property
    def flagged(self) -> list[Change]:
        return [c for c in self.changes if c.verdict in ("slower", "fails now", "faster", "works again")]


def _canonical(record: Mapping[str, object]) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _summary(r: Result) -> Summary | None:
    timing = r.get("timing")
    return timing.get("summary") if timing else None


def _ok(r: Result) -> bool:
    summary = _summary(r)
    median = summary.get("median") if summary else None
    return r.get("status") == "ok" and isinstance(median, (int, float)) and median > 0


def newest(results: Iterable[Result]) -> dict[str, Result]:
    """Each case's newest result, ok or not (so a case that worked and now fails shows)."""
    best: dict[str, Result] = {}
    for r in results:
        cid = r.get("case_id")
        if not isinstance(cid, str) or cid.endswith("#aa"):
            continue
        rank = (str(r.get("finished_at") or ""), _canonical(r))
        old = best.get(cid)
        if old is None or rank > (str(old.get("finished_at") or ""), _canonical(old)):
            best[cid] = r
    return best


def _point(r: Result) -> Point | None:
    s = _summary(r)
    if not _ok(r) or s is None:
        return None
    return Point(median=float(s["median"]), ci_low=float(s["ci_low"]), ci_high=float(s["ci_high"]),
                 n=int(s.get("n") or 0), finished_at=str(r.get("finished_at") or ""))


def judge(old: Point, new: Point, threshold: float = DEFAULT_THRESHOLD) -> Verdict:
    """slower / faster when the CIs do not overlap and the medians differ by more than
    ``threshold``; otherwise within noise."""
    ratio = new.median / old.median
    if new.ci_low > old.ci_high and ratio > 1 + threshold:
        return "slower"
    if new.ci_high < old.ci_low and ratio < 1 / (1 + threshold):
        return "faster"
    return "within noise"


def compare(old_doc: ResultsDoc, new_doc: ResultsDoc, threshold: float = DEFAULT_THRESHOLD) -> Report:
    """Every case of ``new_doc`` whose newest result differs from ``old_doc``'s, judged."""
    if threshold < 0:
        raise ValueError("threshold must be 0 or more")
    old, new = newest(old_doc.get("results") or []), newest(new_doc.get("results") or [])
    report = Report(threshold=threshold, only_old=sorted(set(old) - set(new)), only_new=sorted(set(new) - set(old)))
    for cid in sorted(set(old) & set(new)):
        a, b = old[cid], new[cid]
        if _canonical(a) == _canonical(b):
            report.same_record += 1
            continue
        pa, pb = _point(a), _point(b)
        if pa is not None and pb is not None:
            verdict: Verdict = judge(pa, pb, threshold)
        elif pa is not None:
            verdict = "fails now"
        elif pb is not None:
            verdict = "works again"
        else:
            verdict = "still failing"
        report.changes.append(Change(cid, verdict, pa, pb, str(a.get("status")), str(b.get("status"))))
    return report


# ---------------------------------------------------------------- markdown

_ORDER: dict[str, int] = {"fails now": 0, "slower": 1, "works again": 2, "faster": 3}


def seconds(x: float) -> str:
    """A duration with three significant digits in a readable unit."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if x >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x / 1e-9:.3g} ns"


def _cell(p: Point | None, status: str) -> str:
    if p is None:
        return status
    return f"{seconds(p.median)} [{seconds(p.ci_low)}, {seconds(p.ci_high)}]"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def markdown(report: Report, title: str = "Regression report", max_rows: int = 60) -> str:
    """A heading, one summary sentence and a table of the flagged cases (worst first)."""
    t = f"{report.threshold:.0%}"
    lines = [f"### {_md(title)}", ""]
    lines.append(
        f"{len(report.changes)} case(s) measured again: **{report.count('slower')} slower**, "
        f"**{report.count('faster')} faster**, {report.count('within noise')} within noise "
        f"(95% CIs of the medians overlap, or the change is at most {t}); "
        f"{report.count('fails now')} fail now, {report.count('works again')} work again, "
        f"{report.count('still failing')} still fail. "
        f"{report.same_record} case(s) not measured again, {len(report.only_new)} new, "
        f"{len(report.only_old)} only in the old set.")
    flagged = sorted(report.flagged, key=lambda c: (_ORDER[c.verdict], -abs((c.ratio or 1.0) - 1.0), c.case_id))
    if not flagged:
        lines += ["", f"No case changed by more than {t} with non-overlapping intervals."]
        return "\n".join(lines) + "\n"
    lines += ["", "| case | old median [95% CI] | new median [95% CI] | change | verdict |",
              "| --- | --- | --- | ---: | --- |"]
    for c in flagged[:max_rows]:
        change = f"{(c.ratio - 1):+.1%}" if c.ratio is not None else "—"
        lines.append(f"| `{_md(c.case_id)}` | {_cell(c.old, c.old_status)} | {_cell(c.new, c.new_status)} "
                     f"| {change} | {c.verdict} |")
    if len(flagged) > max_rows:
        lines += ["", f"… and {len(flagged) - max_rows} more flagged case(s)."]
    return "\n".join(lines) + "\n"


def summary_line(report: Report) -> str:
    """One line for logs."""
    return (f"{len(report.changes)} measured again: {report.count('slower')} slower, {report.count('faster')} faster, "
            f"{report.count('within noise')} within noise, {report.count('fails now')} fail now, "
            f"{report.count('works again')} work again; {report.same_record} unchanged, "
            f"{len(report.only_new)} new, {len(report.only_old)} only old")


def flagged_ids(report: Report, verdicts: Sequence[Verdict] = ("slower", "fails now")) -> list[str]:
    return [c.case_id for c in report.changes if c.verdict in verdicts]
