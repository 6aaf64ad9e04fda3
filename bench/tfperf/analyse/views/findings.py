"""The home page's table of every claim: per runner, its finding in words and whether the
source's answer holds (:func:`tfperf.analyse.views.answers.claim_answer`), with whether its finding
changed across releases and whether some of its results are stale."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..dataset import Dataset
from .answers import ClaimAnswer, claim_answer


@dataclass
class ClaimRow:
    topic: str
    topic_title: str
    answer: ClaimAnswer
    changed: bool                     # the finding changed between TensorFlow releases somewhere
    stale: bool                       # some of the results behind it are stale
    failed: str | None                # "failed: N cases (first error: ...)" when no runner has data


def findings(ds: Dataset, order: Sequence[str] = ()) -> list[ClaimRow]:
    """Every claim of every topic, topics in ``order`` (the pages' reading order) first,
    then the others by name; a topic's claims in the order its YAML gives them."""
    rank = {t: i for i, t in enumerate(order)}
    out: list[ClaimRow] = []
    for topic in sorted(ds.topic_names(), key=lambda t: (rank.get(t, len(rank)), t)):
        info = ds.topics.get(topic)
        flips = ds.changed_claims(topic)
        for cr in ds.claim_results(topic):
            answer = claim_answer(ds, topic, cr.id)
            if answer is None:
                continue
            out.append(ClaimRow(topic=topic, topic_title=info.title if info else topic, answer=answer,
                               changed=cr.id in flips, stale=any(c.scenario.stale for c in cr.checks),
                               failed=None if cr.runners_with_data else cr.failed_text()))
    return out
