"""A claim's verdict per TensorFlow release, on one runner: the strip of verdicts a topic
page shows under "Across versions", and the release where the verdict changed.

Per release, the claim is judged over its scenarios as everywhere else
(:func:`tfperf.analyse.claims.verdict_words`: "holds", "refuted: slower", "depends on the
case", ...). Only scenarios measured with two or more releases enter a strip, so every
release is judged on the same grid (the published profile's extra scenarios, measured with
one release only, would otherwise look like a change in the newest one). A release whose
results are ``unavailable`` (the variant does not exist there: an API that is missing,
``tf_keras`` before 2.15) is "not available", with the reason; one without results for the
claim is "not measured"; neither counts as a change.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

from ..topic_schema import Claim, Control
from .claims import NO_DATA, ClaimCheck, check_any_claim, verdict_words
from .compare import Scenario
from .ratios import RatioCache
from .records import Measurement, Noise, params_id, settings_id
from .versions import UNAVAILABLE, listing, short_labels, sort_versions, span

HOLDS, REFUTED, UNCLEAR, MIXED = "holds", "refuted", "unclear", "depends on the case"
NOT_AVAILABLE, FAILED, NOT_MEASURED = "not available", "failed", "not measured"
DEFINITE = (HOLDS, REFUTED, UNCLEAR, MIXED)      # the kinds a change is read from


def kind_of(word: str) -> str:
    """The verdict a change is read from, of a :func:`verdict_words` phrase: "holds where
    clear" is "holds", "refuted: slower" is "refuted", "depends on the case" stays."""
    for kind in (HOLDS, REFUTED, MIXED):
        if word.startswith(kind.split()[0]):
            return kind
    return UNCLEAR


def reason(m: Measurement) -> str:
    """Why a result is unavailable or failed, in one line (the last line of its error)."""
    lines = [x.strip() for x in (m.error or "").splitlines() if x.strip()]
    return lines[-1] if lines else "no reason recorded"


def scenario_label(sc: Scenario) -> str:
    """"batch=1, model=mlp, keras=3": the parameters, then the settings."""
    parts = [f"{k}={v}" for k, v in sc.params.items()] + [f"{k}={v}" for k, v in sorted(sc.settings.items())]
    return ", ".join(parts) or "default"


@dataclass(frozen=True)
class VersionCell:
    """The claim with one release on one runner."""

    version: str                              # the TensorFlow release ("2.15.1")
    kind: str                                 # a DEFINITE kind, NOT_AVAILABLE, FAILED or NOT_MEASURED
    word: str                                 # verdict_words over its scenarios ("refuted: slower"), else the kind
    checks: tuple[ClaimCheck, ...] = ()       # the scenarios judged (with a verdict)
    unavailable: tuple[str, ...] = ()         # distinct reasons, also when only some scenarios are unavailable
    unavailable_scenarios: int = 0
    failures: tuple[str, ...] = ()            # distinct error lines of failed (not unavailable) results

    @property
    def definite(self) -> bool:
        return self.kind in DEFINITE


@dataclass(frozen=True)
class Change:
    """The verdict changed at ``version``: ``kind`` from then on, ``before`` in the run of
    measured releases just before it (``before_versions``)."""

    version: str
    kind: str
    before: str
    before_versions: tuple[str, ...]
    from_first: bool                          # the old verdict held from the first release measured


@dataclass
class VersionStrip:
    topic: str
    claim: Claim
    runner: str
    cells: list[VersionCell]                  # every release measured on this runner for the topic, in order
    scenarios: tuple[str, ...]                # the scenarios judged in every release, as labels

    @property
    def claim_id(self) -> str:
        return str(self.claim.get("id"))

    @property
    def text(self) -> str:
        return str(self.claim.get("text", self.claim_id))

    @property
    def versions(self) -> list[str]:
        return [c.version for c in self.cells]

    @property
    def changes(self) -> list[Change]:
        """Each release whose verdict differs from the run of releases before it, whose
        speedup moved by more than ``CROSS_RUN`` from the release just before, and whose
        verdict the next release keeps (releases not available, failed or not measured are
        passed over). A verdict that flips while the speedup stays put is the claim sitting
        on its margin (:attr:`borderline`)."""
        out: list[Change] = []
        run: list[VersionCell] = []
        first = True
        cells = [c for c in self.cells if c.definite]
        for i, c in enumerate(cells):
            if run and self._starts_run(run, c, cells[i + 1:]):
                out.append(Change(c.version, c.kind, run[0].kind, tuple(x.version for x in run), first))
                run, first = [], False
            run.append(c)
        return out

    @staticmethod
    def _starts_run(run: list[VersionCell], c: VersionCell, later: list[VersionCell]) -> bool:
        """``c`` changes the verdict of ``run``: another verdict that is not "unclear" (a
        measurement that cannot tell does not overturn one that could), a speedup that
        moved more than ``CROSS_RUN``, and the next release with a verdict (if any) agrees
        with it, so that one release's blip in a claim with several scenarios is not a
        change."""
        return (c.kind != run[0].kind and c.kind != UNCLEAR and moved(run[-1], c)
                and (not later or later[0].kind == c.kind))

    @property
    def borderline(self) -> list[VersionCell]:
        """Releases whose verdict differs from their run's without a change: the speedup
        moved less than ``CROSS_RUN`` (the verdict follows the noise between runs), or the
        next release went back."""
        out: list[VersionCell] = []
        run: list[VersionCell] = []
        cells = [c for c in self.cells if c.definite]
        for i, c in enumerate(cells):
            if run and self._starts_run(run, c, cells[i + 1:]):
                run = []
            if run and c.kind != run[0].kind:
                out.append(c)
            run.append(c)
        return out

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def latest(self) -> Change | None:
        """The change since which the newest verdict holds."""
        ch = self.changes
        return ch[-1] if ch else None


# Releases are measured in different runs (other processes, minutes or hours apart): the
# same speedup measured in two runs agrees within 10% (the reproducibility target of
# scripts/method_report.py). A smaller move between two releases is not read as a change.
CROSS_RUN = 0.10


def moved(a: VersionCell, b: VersionCell, margin: float = CROSS_RUN) -> bool:
    """Whether the claim's speedup moved by more than ``margin`` from release ``a`` to ``b``
    in a scenario both measured (True when they share none: nothing says it stayed)."""
    ra = {_scenario_id(ch): ch.ratio.point for ch in a.checks if ch.ratio is not None}
    rb = {_scenario_id(ch): ch.ratio.point for ch in b.checks if ch.ratio is not None}
    common = [k for k in ra if k in rb and ra[k] > 0]
    if not common:
        return True
    return any(abs(rb[k] / ra[k] - 1.0) > margin for k in common)


def _cell(version: str, checks: list[ClaimCheck]) -> VersionCell:
    definite = [c for c in checks if c.verdict != NO_DATA]
    na = [c for c in checks if c.verdict == NO_DATA and any(m.status == UNAVAILABLE for m in c.failed)]
    reasons = tuple(dict.fromkeys(reason(m) for c in na for m in c.failed if m.status == UNAVAILABLE))
    failures = tuple(dict.fromkeys(reason(m) for c in checks if c.verdict == NO_DATA
                                   for m in c.failed if m.status != UNAVAILABLE))
    if definite:
        word = verdict_words(definite)
        kind = kind_of(word)
    elif na:
        kind = word = NOT_AVAILABLE
    elif failures:
        kind = word = FAILED
    else:
        kind = word = NOT_MEASURED
    return VersionCell(version, kind, word, tuple(definite), reasons, len(na), failures)


def _scenario_id(ch: ClaimCheck) -> str:
    return f"{settings_id(ch.scenario.settings)} {params_id(ch.scenario.params)}"


def version_strips(claim: Claim, measurements: Iterable[Measurement], topic: str, noise: list[Noise],
                   cache: RatioCache, controls: tuple[Control, ...] = ()) -> list[VersionStrip]:
    """Per runner measured with two or more releases: the claim's verdict in each release,
    over the scenarios measured with at least two. ``measurements``: one per (runner,
    case, release), any status (``select.per_version``)."""
    mine = [m for m in measurements if m.topic == topic]
    by_version: dict[str, list[Measurement]] = defaultdict(list)
    measured: dict[str, set[str]] = defaultdict(set)
    for m in mine:
        by_version[m.tensorflow].append(m)
        measured[m.runner].add(m.tensorflow)
    table: dict[tuple[str, str], dict[str, ClaimCheck]] = defaultdict(dict)
    labels: dict[tuple[str, str], str] = {}
    for version in sort_versions(by_version):
        for ch in check_any_claim(claim, by_version[version], topic, noise, cache, controls).checks:
            k = (ch.scenario.runner, _scenario_id(ch))
            table[k][version] = ch
            labels[k] = scenario_label(ch.scenario)
    strips = []
    for runner in sorted(measured):
        versions = sort_versions(measured[runner])
        keys = sorted(k for k, by in table.items() if k[0] == runner and len(by) >= 2)
        if len(versions) < 2 or not keys:
            continue
        cells = [_cell(v, [table[k][v] for k in keys if v in table[k]]) for v in versions]
        strips.append(VersionStrip(topic, claim, runner, cells, tuple(labels[k] for k in keys)))
    return strips


# -- in words (plain strings; the renderer escapes them) -----------------------------------

def change_text(change: Change, labels: dict[str, str], changes: int = 1) -> str:
    """"since TF 2.16: refuted (was: holds up to 2.15)"; "... (was: unclear in 2.17; 3
    changes across the releases measured)" when it changed more than once."""
    before = [labels.get(v, v) for v in change.before_versions]
    when = f"up to {before[-1]}" if change.from_first else f"in {span(before)}"
    more = f"; {changes} changes across the releases measured" if changes > 1 else ""
    return f"since TF {labels.get(change.version, change.version)}: {change.kind} (was: {change.before} {when}{more})"


def steady_text(strip: VersionStrip, labels: dict[str, str]) -> str:
    """For a strip without a change: "holds in every release measured (2.12, 2.15 and
    2.21); not available in 2.12"."""
    def named(kind: str) -> str:
        return listing([labels.get(c.version, c.version) for c in strip.cells if c.kind == kind])

    definite = [c for c in strip.cells if c.definite]
    edge = strip.borderline
    if definite and edge:
        kind = definite[0].kind
        others = listing([f"{c.kind} in {labels.get(c.version, c.version)}" for c in edge])
        out = (f"{kind} in {named(kind)}; {others}, with a speedup within "
               f"{CROSS_RUN:.0%} of the release before: the claim sits on its margin, not a change")
    elif definite:
        out = f"{definite[0].kind} in every release with a verdict ({named(definite[0].kind)})"
    else:
        out = "no verdict in any release measured"
    for kind in (NOT_AVAILABLE, FAILED, NOT_MEASURED):
        if any(c.kind == kind for c in strip.cells):
            out += f"; {kind} in {named(kind)}"
    return out


def strip_text(strip: VersionStrip, labels: dict[str, str] | None = None) -> str:
    """The strip in one line: its latest change, or that it did not change."""
    labels = labels or short_labels(strip.versions)
    latest = strip.latest
    return change_text(latest, labels, len(strip.changes)) if latest else "no change: " + steady_text(strip, labels)


class SpeedupRow(TypedDict):
    """A point of a strip's chart: the claimed winner's speedup in one release and scenario."""

    version: str                  # the release's short label
    tensorflow: str
    scenario: str
    speedup: float
    speedup_low: float
    speedup_high: float
    verdict: str
    noise: float | None


def speedup_rows(strip: VersionStrip, labels: dict[str, str] | None = None) -> list[SpeedupRow]:
    """The speedup of the claimed winner per release and scenario, with its 95% CI: the
    rows behind a strip's chart."""
    labels = labels or short_labels(strip.versions)
    rows: list[SpeedupRow] = []
    for cell in strip.cells:
        for ch in cell.checks:
            if ch.ratio is None:
                continue
            rows.append({"version": labels.get(cell.version, cell.version), "tensorflow": cell.version,
                         "scenario": scenario_label(ch.scenario), "speedup": ch.ratio.point,
                         "speedup_low": ch.ratio.low, "speedup_high": ch.ratio.high,
                         "verdict": ch.verdict, "noise": ch.noise.value if ch.noise else None})
    return rows
