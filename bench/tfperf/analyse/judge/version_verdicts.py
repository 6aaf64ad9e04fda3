"""A claim's finding per TensorFlow release, on one runner: the strip a topic page shows under
"Across versions", and the releases where the finding changed.

A release's cell summarises the scenarios measured with that release
(:func:`tfperf.analyse.judge.effects.summarise`), in the same words as everywhere else. The
release of the page's headline (the current results) is the headline itself, so the two
agree; older releases were measured on each topic's smaller ``history`` grid, and the strip
says how many scenarios each release had (:attr:`VersionStrip.grid_note`).

A release **changes** a finding only when, on the scenarios it shares with the release
measured before it, the finding differs (neither being unclear) and, in at least one of
those scenarios, the two releases' 95% confidence intervals do not overlap
(:func:`changed`). A release whose results are ``unavailable`` (the variant does not exist
there: an API that is missing, ``tf_keras`` before 2.15) is "not available", with the
reason; one without results for the claim is "not measured"; neither counts as a change.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TypedDict

from ...cases import Claim, Control
from ..records import Measurement, Noise, params_id, settings_id
from ..versions import UNAVAILABLE, is_development, listing, nightly_label, short_labels, sort_versions, span
from .claims import NO_DATA, ClaimCheck, ClaimResult, Labeller, check_any_claim, plain_label, scenario_labels
from .effects import Finding, Summary, Verdict, summarise, summary_text, verdict
from .scenarios import RatioCache

NOT_AVAILABLE, FAILED, NOT_MEASURED = "not available", "failed", "not measured"
CLEAR = (Finding.FASTER, Finding.SLOWER, Finding.SAME, Finding.DEPENDS)   # what a change is read from


def reason(m: Measurement) -> str:
    """Why a result is unavailable or failed, in one line (the last line of its error)."""
    lines = [x.strip() for x in (m.error or "").splitlines() if x.strip()]
    return lines[-1] if lines else "no reason recorded"


@dataclass(frozen=True)
class VersionCell:
    """The claim with one release on one runner."""

    version: str                              # the TensorFlow release ("2.15.1")
    kind: str                                 # a Finding's text, NOT_AVAILABLE, FAILED or NOT_MEASURED
    text: str                                 # the summary in words, else the kind
    checks: tuple[ClaimCheck, ...] = ()       # the scenarios with data
    summary: Summary | None = None
    verdict: Verdict | None = None
    unavailable: tuple[str, ...] = ()         # distinct reasons, also when only some scenarios are unavailable
    unavailable_scenarios: int = 0
    failures: tuple[str, ...] = ()            # distinct error lines of failed (not unavailable) results
    headline: bool = False                    # the page's current results (the release of the headline)

    @property
    def definite(self) -> bool:
        return self.summary is not None and self.summary.finding != Finding.NO_DATA

    @property
    def finding(self) -> Finding | None:
        return self.summary.finding if self.summary is not None else None


@dataclass(frozen=True)
class Change:
    """The finding changed at ``version``: ``after`` from there, ``before`` in ``before_version``
    (the release measured just before), on the scenarios the two share."""

    version: str
    before_version: str
    before: Finding
    after: Finding


def _key(ch: ClaimCheck) -> str:
    return f"{settings_id(ch.scenario.settings)} {params_id(ch.scenario.params)}"


def _overlap(a: ClaimCheck, b: ClaimCheck) -> bool:
    ra, rb = a.ratio, b.ratio
    return ra is None or rb is None or not (ra.high < rb.low or rb.high < ra.low)


def changed(before: VersionCell, after: VersionCell, label: Labeller = plain_label, order: Sequence[str] = ()
            ) -> Change | None:
    """The change from ``before`` to ``after``, if any (see the module's docstring)."""
    old = {_key(ch): ch for ch in before.checks}
    new = {_key(ch): ch for ch in after.checks}
    common = [k for k in new if k in old]
    if not common:
        return None
    def summary(cells: dict[str, ClaimCheck]) -> Finding:
        chs = [cells[k] for k in common]
        labels = scenario_labels([c.scenario for c in chs], label, order)
        return summarise(c.point(labels[c.scenario.key]) for c in chs).finding
    f0, f1 = summary(old), summary(new)
    if f0 == f1 or f0 not in CLEAR or f1 not in CLEAR:
        return None
    if all(_overlap(old[k], new[k]) for k in common):
        return None
    return Change(after.version, before.version, f0, f1)


@dataclass
class VersionStrip:
    topic: str
    claim: Claim
    runner: str
    cells: list[VersionCell]                  # every release measured on this runner for the topic, in order
    label: Labeller = plain_label
    order: tuple[str, ...] = ()               # the topic's parameters in declared order

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
    def releases(self) -> list[VersionCell]:
        """The cells of releases: a development build (tf-nightly) is none."""
        return [c for c in self.cells if not is_development(c.version)]

    @property
    def nightly(self) -> VersionCell | None:
        """The newest development build's cell, a column apart from the releases, or None."""
        dev = [c for c in self.cells if is_development(c.version)]
        return dev[-1] if dev else None

    @property
    def changes(self) -> list[Change]:
        """Each release whose finding changed from the release with results before it."""
        out: list[Change] = []
        cells = [c for c in self.releases if c.definite]
        for a, b in pairwise(cells):
            ch = changed(a, b, self.label, self.order)
            if ch is not None:
                out.append(ch)
        return out

    @property
    def next_release(self) -> Change | None:
        """The nightly's finding against the newest release with results, where it changed
        (by the rule of :func:`changed`): what changes in the next release."""
        night = self.nightly
        last = next((c for c in reversed(self.releases) if c.definite), None)
        if night is None or last is None or not night.definite:
            return None
        return changed(last, night, self.label, self.order)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def grid_note(self) -> str | None:
        """Where releases were measured on fewer scenarios than the headline: "2.12–2.20: 1
        scenario each (the versions' smaller grid); 2.21: 10", else None."""
        counts = {c.version: len(c.checks) for c in self.cells if c.definite}
        head = next((c for c in self.cells if c.headline and c.definite), None)
        if head is None or all(n == counts[head.version] for n in counts.values()):
            return None
        labels = short_labels(self.versions)
        small = [v for v, n in counts.items() if n < counts[head.version]]
        sizes = sorted({counts[v] for v in small})
        each = (f"{sizes[0]} scenario{'s' if sizes[0] != 1 else ''}{' each' if len(small) > 1 else ''}"
                if len(sizes) == 1 else f"{sizes[0]} to {sizes[-1]} scenarios")
        # A range runs over releases only; a development build is named apart after it.
        dev = [labels[v] for v in small if is_development(v)]
        rel = [labels[v] for v in small if not is_development(v)]
        where = " and the ".join(([span(rel)] if rel else []) + ([listing(dev)] if dev else []))
        return (f"{where}: {each} (the smaller grid measured for every release); "
                f"{labels[head.version]}: {counts[head.version]} (the full grid of this page)")


def _cell(version: str, checks: list[ClaimCheck], expect: Finding | None, label: Labeller,
          order: Sequence[str] = (), headline: bool = False,
          values: Mapping[str, Sequence[object]] | None = None) -> VersionCell:
    data = [c for c in checks if c.has_data]
    na = [c for c in checks if not c.has_data and any(m.status == UNAVAILABLE for m in c.failed)]
    reasons = tuple(dict.fromkeys(reason(m) for c in na for m in c.failed if m.status == UNAVAILABLE))
    failures = tuple(dict.fromkeys(reason(m) for c in checks if not c.has_data
                                   for m in c.failed if m.status != UNAVAILABLE))
    if data:
        labels = scenario_labels([c.scenario for c in data], label, order)
        s = summarise(c.point(labels[c.scenario.key]) for c in data)
        return VersionCell(version, str(s.finding), summary_text(s, values, label=label, total=len(checks) - len(na)), tuple(data), s,
                           verdict(expect, s) if expect is not None else None, reasons, len(na), failures, headline)
    kind = NOT_AVAILABLE if na else FAILED if failures else NOT_MEASURED
    return VersionCell(version, kind, kind, (), None, None, reasons, len(na), failures, headline)


def version_strips(claim: Claim, measurements: Iterable[Measurement], topic: str, noise: list[Noise],
                   cache: RatioCache, controls: Sequence[Control] = (), headline: ClaimResult | None = None,
                   label: Labeller = plain_label, order: Sequence[str] = (),
                   values: Mapping[str, Sequence[object]] | None = None) -> list[VersionStrip]:
    """Per runner measured with two or more releases: the claim's finding in each release.
    ``measurements``: one per (runner, case, release), any status (:func:`tfperf.analyse.records.per_version`);
    ``headline``: the claim on the current results, whose release's cell it becomes."""
    mine = [m for m in measurements if m.topic == topic]
    by_version: dict[str, list[Measurement]] = defaultdict(list)
    measured: dict[str, set[str]] = defaultdict(set)
    for m in mine:
        by_version[m.tensorflow].append(m)
        measured[m.runner].add(m.tensorflow)
    per: dict[tuple[str, str], list[ClaimCheck]] = defaultdict(list)
    for version in sort_versions(by_version):
        for ch in check_any_claim(claim, by_version[version], topic, noise, cache, controls).checks:
            per[(ch.scenario.runner, version)].append(ch)
    expect = headline.expect if headline is not None else Finding.FASTER
    strips = []
    for runner in sorted(measured):
        versions = sort_versions(measured[runner])
        if len(versions) < 2 or not any(per.get((runner, v)) for v in versions):
            continue
        head_checks = headline.mine(runner) if headline is not None else []
        head_versions = sort_versions({m.tensorflow for ch in head_checks for m in ch.scenario.variants.values()})
        head = head_versions[-1] if len(head_versions) == 1 else None
        cells = [_cell(v, head_checks, expect, label, order, True, values) if v == head
                 else _cell(v, per.get((runner, v), []), expect, label, order, values=values) for v in versions]
        strips.append(VersionStrip(topic, claim, runner, cells, label, tuple(order)))
    return strips


# -- in words (plain strings; the renderer escapes them) -----------------------------------

def change_text(change: Change, labels: dict[str, str]) -> str:
    """"since TF 2.16: slower (was: the same in 2.15)"; for a development build "changes in
    the next release (nightly of 2026-11-25): slower (was: the same in 2.21)"."""
    was = f"(was: {change.before} in {labels.get(change.before_version, change.before_version)})"
    if is_development(change.version):
        return f"changes in the next release ({nightly_label(change.version)}): {change.after} {was}"
    return f"since TF {labels.get(change.version, change.version)}: {change.after} {was}"


def steady_text(strip: VersionStrip, labels: dict[str, str]) -> str:
    """For a strip without a change: "slower in every release with results (2.12 to
    2.21)"; "...; not available in 2.12"."""
    def named(kind: str) -> str:
        return listing([labels.get(c.version, c.version) for c in strip.releases if c.kind == kind])

    definite = [c for c in strip.releases if c.definite]
    kinds = list(dict.fromkeys(c.kind for c in definite))
    if len(kinds) == 1:
        out = f"{kinds[0]} in every release with results ({span([labels.get(c.version, c.version) for c in definite])})"
    elif definite:
        out = "; ".join(f"{k} in {named(k)}" for k in kinds) + (
            " (no change: where the finding differs, the confidence intervals overlap, or a release is unclear)")
    else:
        out = "no results in any release measured"
    for kind in (NOT_AVAILABLE, FAILED, NOT_MEASURED):
        if any(c.kind == kind for c in strip.releases):
            out += f"; {kind} in {named(kind)}"
    night = strip.nightly
    if night is not None:
        out += f"; {night.kind} in the {nightly_label(night.version)} (a development build)"
    return out


def strip_text(strip: VersionStrip, labels: dict[str, str] | None = None) -> str:
    """The strip in one line: its changes, or that it did not change."""
    labels = labels or short_labels(strip.versions)
    changes = strip.changes
    ahead = strip.next_release
    if changes:
        return "; ".join(change_text(c, labels) for c in [*changes, *([ahead] if ahead else [])])
    if ahead is not None:
        return "no change across releases: " + steady_text(strip, labels) + "; " + change_text(ahead, labels)
    return "no change: " + steady_text(strip, labels)


class SpeedupRow(TypedDict):
    """A point of a strip's chart: the candidate's speedup in one release and scenario."""

    version: str                  # the release's short label
    tensorflow: str
    scenario: str
    speedup: float
    speedup_low: float
    speedup_high: float
    finding: str
    noise: float | None


def speedup_rows(strip: VersionStrip, labels: dict[str, str] | None = None) -> list[SpeedupRow]:
    """The speedup of the candidate per release and scenario, with its 95% CI: the rows
    behind a strip's chart."""
    labels = labels or short_labels(strip.versions)
    named = scenario_labels([ch.scenario for cell in strip.cells for ch in cell.checks], strip.label, strip.order)
    rows: list[SpeedupRow] = []
    for cell in strip.cells:
        for ch in cell.checks:
            if ch.ratio is None:
                continue
            rows.append({"version": labels.get(cell.version, cell.version), "tensorflow": cell.version,
                         "scenario": named[ch.scenario.key], "speedup": ch.ratio.point,
                         "speedup_low": ch.ratio.low, "speedup_high": ch.ratio.high,
                         "finding": str(ch.finding), "noise": ch.noise.value if ch.noise else None})
    return rows


__all__ = ["FAILED", "NOT_AVAILABLE", "NOT_MEASURED", "NO_DATA", "Change", "SpeedupRow", "VersionCell",
           "VersionStrip", "change_text", "changed", "speedup_rows", "steady_text", "strip_text",
           "version_strips"]
