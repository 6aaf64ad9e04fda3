#!/usr/bin/env python3
"""How much do two worker processes disagree about one speedup, and how wide would the
intervals be if they said so? Figures read from committed results, no TensorFlow.

    .venv/bin/python scripts/process_variance.py --runner R [--profile full]

A scenario measured with two (or more) worker processes per settings group takes its
rounds in turn in each process: every process measures the baseline and the candidate
side by side, so each process gives a speedup of its own (the median of its rounds'
ratios). Two processes of one run differ by what the rounds cannot average away (memory
layout, thread placement) and by chance, the chance being what each process's own
interval says. Over every comparison of the file this script pools

    between-process variance = mean(spread of the process medians) - mean(their chance),

on the log scale, a random-effects estimate (method of moments, floored at 0), per topic
and for the whole runner. It then prints, for every speedup of a case over its scenario's
baseline, the half-width the pages show now (the median's interval widened to the
process medians, ``tfperf.stats.paired_ratio``) beside a calibrated one,
1.96 * sqrt(se^2 + between / K): the paired median's chance plus the share of the
process difference that K processes leave. A calibrated width much larger than the
published one says the intervals understate how far two processes of one run land apart.
It says nothing of what differs between runs (the time, the host's state): for that,
measure one scenario in several runs (scripts/process_bias.py, method_report.py --again).

This is a diagnostic: the pages do not use the calibrated width.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from tfperf import stats
from tfperf.analyse import analyse
from tfperf.analyse.records import Measurement

Z = 1.959964


def _log_se(xs: list[float]) -> float:
    """The standard error of the median of ``xs`` on the log scale, from its 95%
    distribution-free interval (the whole range for fewer than 6 rounds)."""
    lo, hi = stats.median_ci(xs)
    return (math.log(hi) - math.log(lo)) / (2 * Z)


class Comparison:
    """One candidate against its scenario's baseline, split by process."""

    def __init__(self, topic: str, case: str, median_s: float, ratios: list[float], procs: list[int]):
        self.topic, self.case, self.median_s = topic, case, median_s
        self.ratios, self.procs = ratios, procs
        by: dict[int, list[float]] = defaultdict(list)
        for p, r in zip(procs, ratios):
            by[p].append(r)
        self.per = [xs for _, xs in sorted(by.items()) if len(xs) >= 2]

    @property
    def k(self) -> int:
        return len(self.per)

    def spread(self) -> tuple[float, float]:
        """(variance of the process medians' logs, mean chance variance of one of them)."""
        logs = [math.log(statistics.median(xs)) for xs in self.per]
        return statistics.variance(logs), statistics.fmean(_log_se(xs) ** 2 for xs in self.per)

    def published(self) -> float:
        point, lo, hi = stats.paired_ratio(self.ratios, [1.0] * len(self.ratios), processes=self.procs)
        return (hi - lo) / 2 / point

    def calibrated(self, between: float) -> float:
        se = _log_se(self.ratios)
        return math.exp(Z * math.sqrt(se ** 2 + between / self.k)) - 1


def comparisons(measurements: list[Measurement]) -> list[Comparison]:
    by = {(m.runner, m.interleave_id, m.case_id): m for m in measurements}
    out = []
    for m in measurements:
        base = by.get((m.runner, m.interleave_id, m.interleave.baseline if m.interleave else ""))
        if base is None or base is m or not base.ok or not m.ok:
            continue
        pair, procs = base.paired_with(m), base.paired_processes(m)
        if pair is None or procs is None or len(pair[0]) < 6:
            continue
        c = Comparison(m.topic, m.case_id, base.median or 0.0, [a / b for a, b in zip(*pair)], procs)
        if c.k >= 2:
            out.append(c)
    return out


def between(cs: list[Comparison]) -> float:
    parts = [c.spread() for c in cs]
    return max(0.0, statistics.fmean(v for v, _ in parts) - statistics.fmean(w for _, w in parts))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", default=str(ROOT / "data"))
    p.add_argument("--snippets", default=str(ROOT / "snippets"))
    p.add_argument("--runner", required=True, help="the runner label (data/results/RUNNER/)")
    p.add_argument("--profile", default="full")
    args = p.parse_args(argv)
    ds = analyse(Path(args.data) / "results", args.snippets)
    ms = [m for m in ds.current if m.runner == args.runner and m.source.profile == args.profile]
    cs = comparisons(ms)
    if not cs:
        print(f"{args.runner}/{args.profile}: no comparison measured in two or more processes")
        return 0
    print(f"{args.runner}/{args.profile}: {len(cs)} comparisons measured in two or more processes")
    rows = [("all", cs)] + sorted((t, [c for c in cs if c.topic == t]) for t in {c.topic for c in cs})
    rows += [("cases < 1 ms", [c for c in cs if c.median_s < 1e-3]), ("cases >= 1 ms", [c for c in cs if c.median_s >= 1e-3])]
    print(f"{'':<22}{'n':>5}{'between SD':>12}{'published':>11}{'calibrated':>12}   (CI half-widths, median)")
    for name, group in rows:
        if len(group) < 2:
            continue
        b = between(group)
        pub = statistics.median(c.published() for c in group)
        cal = statistics.median(c.calibrated(b) for c in group)
        print(f"{name:<22}{len(group):>5}{math.sqrt(b):>11.1%} {pub:>10.1%} {cal:>11.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
