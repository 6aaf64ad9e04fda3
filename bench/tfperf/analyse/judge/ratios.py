"""Speedups with confidence intervals, computed once per pair of sample sets.

``tfperf.stats.ratio_ci`` bootstraps (a few ms to tens of ms per pair); a site build asks
for the same pairs from several pages and across builds, so results are memoised by the
content of the samples, and optionally kept in a JSON file between builds.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ... import stats
from ..load.records import Measurement


@dataclass(frozen=True)
class Ratio:
    """Speedup of a candidate over a baseline. Paired (measured side by side): the median
    of per-round ratios; unpaired: median(baseline) / median(candidate)."""

    point: float
    low: float
    high: float
    paired: bool = False
    n: int = 0                 # rounds (paired) or the smaller sample count

    @property
    def rel_halfwidth(self) -> float:
        return (self.high - self.low) / 2.0 / self.point if self.point > 0 else float("inf")


def _key_prefix() -> str:
    """The statistics' parameters, part of every key: a change to them never serves an old interval."""
    return f"boot{stats.CONFIDENCE}:{stats.N_BOOT}:{stats.BOOT_SEED}:"


def _digest(xs: Sequence[float] | Sequence[int]) -> str:
    return hashlib.sha1(struct.pack(f"{len(xs)}d", *xs)).hexdigest()


class RatioCache:
    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else None
        self._memo: dict[str, tuple[float, float, float]] = {}
        self._dirty = False
        if self.path and self.path.is_file():
            try:
                raw = json.loads(self.path.read_text(encoding="utf-8"))
                self._memo = {k: (float(v[0]), float(v[1]), float(v[2])) for k, v in raw.items()}
            except (OSError, ValueError, TypeError, IndexError):
                self._memo = {}

    def ratio(self, baseline: Sequence[float], candidate: Sequence[float]) -> Ratio:
        key = _key_prefix() + _digest(baseline) + _digest(candidate)
        hit = self._memo.get(key)
        if hit is None:
            hit = stats.ratio_ci(baseline, candidate)
            self._memo[key] = hit
            self._dirty = True
        return Ratio(*hit)

    def speedup(self, baseline: Measurement, candidate: Measurement) -> Ratio:
        """Speedup of ``candidate`` over ``baseline``: paired when both were measured in
        the same interleave (at least 6 common rounds, the fewest for a 95% CI of a
        median), else the bootstrap ratio of medians."""
        pair = baseline.paired_with(candidate)
        if pair is not None and len(pair[0]) >= 6:
            return Ratio(*stats.paired_ratio(*pair), paired=True, n=len(pair[0]))
        r = self.ratio(baseline.samples, candidate.samples)
        return Ratio(r.point, r.low, r.high, paired=False, n=min(len(baseline.samples), len(candidate.samples)))

    def tail_speedup(self, baseline: Measurement, candidate: Measurement, q: float) -> Ratio | None:
        """Speedup of ``candidate`` over ``baseline`` at the ``q`` quantile of their request
        latencies (per-request patterns), from the rounds both measured side by side
        (:func:`tfperf.stats.paired_quantile_ratio`, a bootstrap over whole rounds, memoised);
        None without 6 such rounds."""
        if not baseline.interleave or baseline.interleave != candidate.interleave:
            return None
        mine, theirs = dict(zip(baseline.rounds, baseline.latencies)), dict(zip(candidate.rounds, candidate.latencies))
        common = [i for i in sorted(set(mine) & set(theirs)) if mine[i] and theirs[i]]
        if len(common) < 6:
            return None
        a, b = [list(mine[i]) for i in common], [list(theirs[i]) for i in common]
        key = (_key_prefix() + f"q{q}:" + _digest([x for r in a for x in r]) + _digest([len(r) for r in a])
               + _digest([x for r in b for x in r]) + _digest([len(r) for r in b]))
        hit = self._memo.get(key)
        if hit is None:
            hit = stats.paired_quantile_ratio(a, b, q)
            self._memo[key] = hit
            self._dirty = True
        return Ratio(*hit, paired=True, n=len(common))

    def save(self) -> None:
        if not (self.path and self._dirty):
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(self._memo, fh)
        os.replace(tmp, self.path)
        self._dirty = False
