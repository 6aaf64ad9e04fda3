"""The headline findings of the home page: each claim of each topic, how widely it holds
and the range of speedups measured."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .dataset import Dataset


@dataclass
class Finding:
    topic: str
    topic_title: str
    claim_id: str
    text: str
    summary: str                      # "holds on N of M runners", "failed: N cases (first error: ...)" or "no results yet"
    counts: dict[str, int]            # verdict -> number of scenarios
    speedup_min: float | None         # smallest and largest point estimate over scenarios
    speedup_max: float | None
    flipped: bool                     # the verdict flipped between software versions somewhere
    stale: bool                       # some of the results behind it are stale


def findings(ds: Dataset, order: Sequence[str] = ()) -> list[Finding]:
    """Every claim of every topic, topics in ``order`` (the pages' reading order) first,
    then the others by name; a topic's claims in the order its YAML gives them."""
    rank = {t: i for i, t in enumerate(order)}
    out: list[Finding] = []
    for topic in sorted(ds.topic_names(), key=lambda t: (rank.get(t, len(rank)), t)):
        info = ds.topics.get(topic)
        flips = ds.changed_claims(topic)
        for cr in ds.claim_results(topic):
            points = [c.ratio.point for c in cr.checks if c.ratio is not None]
            out.append(Finding(
                topic=topic, topic_title=info.title if info else topic, claim_id=cr.id,
                text=str(cr.claim.get("text", cr.id)), summary=cr.summary, counts=cr.counts(),
                speedup_min=min(points) if points else None, speedup_max=max(points) if points else None,
                flipped=cr.id in flips, stale=any(c.scenario.stale for c in cr.checks)))
    return out
