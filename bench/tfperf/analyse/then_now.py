"""What changed since the source: a source's finding (quoted from ``docs/sources/<topic>.yaml``,
:mod:`tfperf.analyse.origins`) beside today's verdict on the claim that tests it,
computed from the current results ("2019: compile() made predict() 30× slower → today:
refuted: no difference, 0.95× to 1.04× over 30 scenarios")."""

from __future__ import annotations

from dataclasses import dataclass

from .claims import NO_DATA
from .dataset import Dataset
from .origins import SourceFigure, Sources
from .versions import minor, sort_versions


@dataclass(frozen=True)
class ThenNow:
    figure: SourceFigure
    claim_text: str
    today: str                 # the claim's verdict in words (ClaimResult.summary), or "no results yet"
    scenarios: int             # scenarios with a verdict
    low: float | None          # smallest and largest speedup the claim predicts (> 1: it holds there)
    high: float | None
    releases: tuple[str, ...]  # TensorFlow releases of those results ("2.21")

    @property
    def measured(self) -> bool:
        return self.scenarios > 0


def then_now(ds: Dataset, topic: str, sources: Sources) -> list[ThenNow]:
    """One line per source figure of ``topic`` (``sources``: :func:`origins.load_sources`),
    in the file's order."""
    out = []
    for fig in sources.get(topic, []):
        claim = ds.claim(topic, fig.claim) or {}
        res = ds.claim_result(topic, fig.claim)
        checks = [c for c in (res.checks if res else []) if c.verdict != NO_DATA and c.ratio is not None]
        points = [c.ratio.point for c in checks if c.ratio is not None]
        releases = sort_versions(m.tensorflow for c in checks for m in c.scenario.variants.values())
        out.append(ThenNow(fig, str(claim.get("text") or fig.claim),
                           res.summary if res is not None else "no results yet", len(checks),
                           min(points) if points else None, max(points) if points else None,
                           tuple(dict.fromkeys(minor(v) for v in releases))))
    return out
