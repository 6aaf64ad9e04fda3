"""The home page's table of claims × TensorFlow releases: every claim measured with two or
more releases, grouped by topic in the pages' reading order, with its finding per release
(:mod:`tfperf.analyse.judge.version_verdicts`); one row per runner where several runners were
measured across releases."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..dataset import Dataset
from ..judge.version_verdicts import NOT_MEASURED, VersionCell, VersionStrip
from ..load.versions import short_labels, sort_versions


@dataclass
class VersionRow:
    topic: str
    topic_title: str
    strip: VersionStrip

    def cell(self, version: str) -> VersionCell:
        """The claim's cell for ``version``; "not measured" where this runner did not
        measure the topic with it."""
        return next((c for c in self.strip.cells if c.version == version),
                    VersionCell(version, NOT_MEASURED, NOT_MEASURED))


@dataclass
class VersionsTable:
    versions: list[str]                       # every release of any row, in order
    rows: list[VersionRow]
    runners: list[str]                        # runners with rows (hardware, not software)
    unmeasured: list[tuple[str, str, str]] = field(default_factory=list)   # (topic, claim id, text) of
    # claims of topics measured across releases whose own scenarios were not

    @property
    def labels(self) -> dict[str, str]:
        return short_labels(self.versions)

    @property
    def changed(self) -> list[VersionRow]:
        return [r for r in self.rows if r.strip.changed]


def versions_table(ds: Dataset, order: Sequence[str] = ()) -> VersionsTable:
    """Topics in ``order`` (the nav's) first, then the others by name; a topic's claims in
    its YAML's order; within a claim, runners by name."""
    rank = {t: i for i, t in enumerate(order)}
    rows: list[VersionRow] = []
    unmeasured: list[tuple[str, str, str]] = []
    for topic in sorted(ds.topic_names(), key=lambda t: (rank.get(t, len(rank)), t)):
        strips = ds.version_strips(topic)
        if not strips:
            continue
        info = ds.topics.get(topic)
        title = info.title if info else topic
        for claim in ds.claims_of(topic):
            mine = [s for s in strips if s.claim_id == str(claim.get("id"))]
            rows += [VersionRow(topic, title, s) for s in mine]
            if not mine:
                unmeasured.append((topic, str(claim.get("id")), str(claim.get("text", claim.get("id")))))
    versions = sort_versions(v for r in rows for v in r.strip.versions)
    return VersionsTable(versions, rows, sorted({r.strip.runner for r in rows}), unmeasured)
