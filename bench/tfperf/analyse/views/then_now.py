"""What changed since the source: a source's figure (quoted from ``docs/sources/<topic>.yaml``,
:mod:`tfperf.analyse.load.origins`) beside today's finding on the claim that tests it, in the
words every other place uses (:func:`tfperf.analyse.views.answers.claim_answer`): "2019: compile()
made predict() 30× slower → today: does not hold: the same in 28 of 30 scenarios ..."."""

from __future__ import annotations

from dataclasses import dataclass

from ..dataset import Dataset
from ..load.origins import SourceFigure, Sources
from .answers import ClaimAnswer, claim_answer


@dataclass(frozen=True)
class ThenNow:
    figure: SourceFigure
    claim_text: str
    answer: ClaimAnswer | None     # today's finding per runner; None: no such claim

    @property
    def measured(self) -> bool:
        return self.answer is not None and bool(self.answer.runners)


def then_now(ds: Dataset, topic: str, sources: Sources) -> list[ThenNow]:
    """One line per source figure of ``topic`` (``sources``: :func:`origins.load_sources`),
    in the file's order."""
    out = []
    for fig in sources.get(topic, []):
        claim = ds.claim(topic, fig.claim) or {}
        out.append(ThenNow(fig, str(claim.get("text") or fig.claim), claim_answer(ds, topic, fig.claim)))
    return out
