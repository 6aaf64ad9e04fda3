"""The "Do this" answer at the top of a topic page, computed from the recommendations:
which call to use, its typical speedup over the default with the range over scenarios,
and where it does not pay."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

from .. import stats
from .compare import Recommendation, Scenario
from .dataset import Dataset


@dataclass
class Advice:
    topic: str
    default: str
    use: str | None                       # None: nothing beats the default beyond the noise
    wins: int = 0                         # scenarios where `use` beats the default beyond the noise
    scenarios: int = 0                    # scenarios where both were measured with correct output
    typical: float | None = None          # median speedup of `use` over the default
    low: float | None = None              # smallest and largest speedup over those scenarios
    high: float | None = None
    not_paying: list[Scenario] = field(default_factory=list)   # where `use` is not faster beyond the noise
    level_with: Counter[str] = field(default_factory=Counter)  # variants tied with `use`, and in how many scenarios


def _winner(recs: list[Recommendation]) -> str | None:
    """The variant that beats the default beyond the noise in most scenarios (the fastest of
    a tie that leaves the default out; a tie with the default is no win)."""
    won = Counter(r.best for r in recs if r.best and r.best != r.default and r.default not in r.tied
                  and r.verdict == stats.HOLDS)
    return won.most_common(1)[0][0] if won else None


def advise(ds: Dataset, topic: str) -> Advice | None:
    recs = ds.recommendations(topic)
    if not recs:
        return None
    default = recs[0].default
    use = _winner(recs)
    advice = Advice(topic, default, use)
    if use is None:
        return advice
    points = []
    for r in recs:
        sc = r.scenario
        d, u = sc.variants.get(default), sc.variants.get(use)
        if d is None or u is None or not (d.ok and u.ok) or use in r.excluded or default in r.excluded:
            continue
        if r.best == use:
            advice.level_with.update(v for v in r.tied if v != default)
        ratio = ds.cache.speedup(d, u)
        advice.scenarios += 1
        points.append(ratio.point)
        if stats.verdict(ratio.low, ratio.high, r.noise.value) == stats.HOLDS:
            advice.wins += 1
        else:
            advice.not_paying.append(sc)
    if points:
        advice.typical, advice.low, advice.high = statistics.median(points), min(points), max(points)
    return advice
