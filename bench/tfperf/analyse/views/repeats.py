"""Scenarios measured twice on one runner: how far a second run moved each speedup.

A speedup's interval says what one run can tell: the rounds of that run, in that run's
worker processes, on that hour's machine. ``tfperf run --force`` measures a scenario again
and keeps the earlier records in the results file, so a file that has been measured twice
holds the answer to a question no single run can: measured again with the same code, the
same settings and the same TensorFlow on the same CPU, how far does a speedup move, and
does the second run's value fall inside the first run's interval?

A pair is one case's speedup over its scenario's baseline in the two newest runs (two
scenarios, two interleave ids) of the same runner, profile and arrival pattern whose
candidate and baseline have the same key (snippet, harness, TensorFlow, Keras and
settings) in both. This view gathers those pairs runner by runner for the How we measure
page and ``scripts/method_report.py``: how far the values moved, and whether the second
run repeated the first run's *finding* (each run judged by the guide's rule, with its own
interval and noise floor), which is what a reader acts on.

Where both runs recorded the host probe (``measure.host_probe``: the same small CPU work
timed before and after every scenario), a pair also carries both runs' probes
(``RunPair.probes``): two runs on the same CPU model can sit on hosts of different speed, and
the speedups move with that, because the cases do not all slow down alike. One probe is a
moment: on a shared host the same work can take 0.9 ms one second and 1.7 ms the next, so
two runs are compared by the median of all the probes of each (``RunnerRepeats.host``), and
only over ``MIN_PROBED`` scenarios or more.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from ..dataset import Dataset
from ..judge.effects import MARGIN, Finding, effect
from ..judge.scenarios import Ratio, RatioCache, pair_noise
from ..records import Measurement, Noise

AGREE = 0.10     # two runs "agree" on a speedup when they are within ±10% of each other
CLEAR = frozenset({Finding.FASTER, Finding.SLOWER, Finding.SAME})
MIN_PROBED = 5   # scenarios whose two runs both timed the host probe, before the runs' hosts are compared


@dataclass(frozen=True)
class RunPair:
    """One case's speedup over its baseline in two runs, the earlier first."""

    earlier: Measurement
    later: Measurement
    before: Ratio
    after: Ratio
    baseline: Measurement          # what the later run's speedup is over (the scenario's baseline)
    earlier_baseline: Measurement  # what the earlier run's speedup is over
    findings: tuple[Finding, Finding]   # what each run found, by the guide's rule
    probes: tuple[tuple[float, ...], tuple[float, ...]] | None = None  # each run's host probes (ms), where both have them

    @property
    def change(self) -> float:
        """The later speedup over the earlier, less 1 (0.08: the second run said 8% more)."""
        return self.after.point / self.before.point - 1

    @property
    def agree(self) -> bool:
        return abs(self.change) <= AGREE + 1e-12

    @property
    def inside(self) -> bool:
        """The second run's value lies inside the first run's interval."""
        return self.before.low <= self.after.point <= self.before.high

    @property
    def contradicted(self) -> bool:
        """The two runs gave clear findings (faster, slower, the same) that differ."""
        a, b = self.findings
        return a != b and {a, b} <= CLEAR


@dataclass(frozen=True)
class RunnerRepeats:
    """Every speedup a runner measured in two runs (pairs of all its profiles)."""

    runner: str
    pairs: tuple[RunPair, ...]

    @property
    def agreeing(self) -> int:
        return sum(p.agree for p in self.pairs)

    @property
    def inside(self) -> int:
        return sum(p.inside for p in self.pairs)

    @property
    def clear(self) -> int:
        """Findings, run by run, that were clear (faster, slower or the same): each pair
        counts twice, once for each run, as the finding a reader of that run was given."""
        return sum(f in CLEAR for p in self.pairs for f in p.findings)

    @property
    def repeated(self) -> int:
        """Of those, how many the other run gave too."""
        return sum(2 * (p.findings[0] == p.findings[1]) for p in self.pairs if p.findings[0] in CLEAR)

    @property
    def contradicted(self) -> int:
        """Of those, how many the other run contradicted with another clear finding (each
        such pair counts twice, as in :attr:`clear`); the rest it found unclear."""
        return sum(2 * p.contradicted for p in self.pairs)

    @property
    def typical(self) -> float:
        """The median size of the change (0.05: half the speedups moved by 5% or less)."""
        return statistics.median(abs(p.change) for p in self.pairs)

    @property
    def scenarios(self) -> int:
        """How many scenarios these speedups come from (pairs of runs)."""
        return len({(p.earlier.interleave_id, p.later.interleave_id) for p in self.pairs})

    @property
    def probed(self) -> list[tuple[tuple[float, ...], tuple[float, ...]]]:
        """The host probes of the first and the second run of each scenario whose two runs
        both timed it (once per scenario: its speedups share them)."""
        runs = {(p.earlier.interleave_id, p.later.interleave_id): p.probes for p in self.pairs if p.probes}
        return [p for p in runs.values() if p]

    @property
    def host(self) -> float | None:
        """How much longer the second runs' hosts took on the probe: the median of all their
        probes over the median of all the first runs' (1.6: 1.6x as long), over the scenarios
        of :attr:`probed`; None below ``MIN_PROBED`` of them."""
        probed = self.probed
        if len(probed) < MIN_PROBED:
            return None
        return statistics.median(x for p in probed for x in p[1]) / statistics.median(x for p in probed for x in p[0])

    @property
    def largest(self) -> RunPair:
        return max(self.pairs, key=lambda p: abs(math.log(p.after.point / p.before.point)))

    @property
    def spread(self) -> float:
        """The root mean square of log(later / earlier), about zero, so that a shift of the
        whole run counts too: how much a speedup moves between runs, as a relative figure
        (0.08: about 8%)."""
        return _rms([math.log(p.after.point / p.before.point) for p in self.pairs])

    @property
    def explained(self) -> float:
        """What that spread would be if each run's interval held all of its run's error: the
        two 95% intervals' half-widths (log scale, as standard errors) added in quadrature,
        as a root mean square over the pairs. ``spread`` well above it means the runs differ
        by more than one run's interval can see."""
        return math.sqrt(statistics.fmean(_se(p.before) ** 2 + _se(p.after) ** 2 for p in self.pairs))


def _rms(xs: list[float]) -> float:
    return math.sqrt(statistics.fmean(x * x for x in xs)) if xs else 0.0


def _se(r: Ratio) -> float:
    """A 95% interval's half-width on the log scale, as a standard error."""
    return (math.log(r.high) - math.log(r.low)) / 2 / 1.96 if r.low > 0 and r.high > 0 else 0.0


def run_pairs(measurements: list[Measurement], cache: RatioCache, noise: list[Noise],
              probes: Mapping[str, tuple[float, ...]] | None = None) -> list[RunPair]:
    """The pairs (see the module) among ``measurements``, in the order of runner and case,
    each run's finding judged as the pages judge a comparison: its interval against the
    larger of 5% and its scenario's noise floor (``noise``, the A/A pairs), with the two runs'
    host probes where ``probes`` (interleave id -> milliseconds) has both."""
    probes = probes or {}
    by_run: dict[tuple[str, str], dict[str, Measurement]] = defaultdict(dict)
    for m in measurements:
        if m.interleave_id and m.ok:
            by_run[(m.source.path, m.interleave_id)][m.case_id] = m
    # each (case, its baseline) per run, under what must be the same for two runs to compare
    runs: dict[tuple[str, ...], dict[str, tuple[Measurement, Measurement]]] = defaultdict(dict)
    for (path, run), cases in by_run.items():
        for m in cases.values():
            base = cases.get(str(m.interleave.baseline)) if m.interleave else None
            if base is not None and base is not m:
                runs[(m.runner, path, m.case_id, m.arrival_id, m.key_hash, base.key_hash)][run] = (m, base)
    out = []
    for _, by_id in sorted(runs.items()):
        if len(by_id) < 2:
            continue
        (earlier, b1), (later, b2) = sorted(by_id.values(), key=lambda pair: pair[0].finished)[-2:]
        before, after = cache.speedup(b1, earlier), cache.speedup(b2, later)
        found = (_finding(before, b1, earlier, noise), _finding(after, b2, later, noise))
        first, second = probes.get(earlier.interleave_id or ""), probes.get(later.interleave_id or "")
        out.append(RunPair(earlier, later, before, after, b2, b1, found, (first, second) if first and second else None))
    return out


def _finding(r: Ratio, base: Measurement, m: Measurement, noise: list[Noise]) -> Finding:
    return effect(r.low, r.high, max(pair_noise(noise, base, m, m.topic).value, MARGIN))


def repeats_by_runner(ds: Dataset) -> list[RunnerRepeats]:
    """The pairs of each runner that measured any scenario twice, runner by runner."""
    found: dict[str, list[RunPair]] = defaultdict(list)
    probes = {i: ms for r in ds.runners.values() for i, ms in r.probes.items()}
    for p in run_pairs(ds.measurements, ds.cache, ds.noise, probes):
        found[p.later.runner].append(p)
    return [RunnerRepeats(runner, tuple(pairs)) for runner, pairs in sorted(found.items())]
