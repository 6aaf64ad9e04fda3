"""The guide's one vocabulary: what a comparison found, what a set of comparisons found,
and whether a source's claim holds, with the rules that decide each and the words, symbols
and CSS classes every page, table, notebook and terminal report uses for them.

**A comparison** (A against B in one scenario: one runner, one set of parameters and
settings) has one of four findings, read from the 95% confidence interval of A's speedup
over B (time of B / time of A) and a margin m: the larger of :data:`MARGIN` (5%, or the
claim's own ``min_effect``) and the scenario's A/A noise floor:

* **faster**: the whole interval lies above 1 + m;
* **slower**: the whole interval lies below 1 / (1 + m);
* **the same**: the whole interval lies within [1 / (1 + m), 1 + m] (an equivalence test:
  any difference is smaller than m);
* **unclear**: the interval crosses an edge of that band: the measurement cannot tell.

The four are mutually exclusive and cover every interval (:func:`effect`).

**A set of comparisons** (a claim over its scenarios on one runner) is summarised by
:func:`summarise`: the finding most of its scenarios share, with the exceptions named,
"depends on the case" only when faster and slower are both substantial (:func:`depends`),
and "unclear" when fewer than half of the scenarios could tell.

**A claim** names a comparison and what its source said (``expect``: faster, slower or the
same); :func:`verdict` says whether the source's answer holds today.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from ... import stats
from ..versions import listing

MARGIN = stats.MIN_EFFECT  # the smallest difference the guide calls a difference (a claim may set its own)
SUBSTANTIAL_SHARE = 0.25  # "depends on the case": each side in at least this share of the scenarios ...
SUBSTANTIAL_COUNT = 2     # ... and in at least this many of them ...
SUBSTANTIAL_SIZE = 0.10   # ... and by at least 10% somewhere on each side
NAMED = 3                 # scenarios named one by one in a summary; more are counted


class Finding(str, Enum):
    """What one comparison, or a set of them, found."""

    FASTER = "faster"
    SLOWER = "slower"
    SAME = "the same"
    UNCLEAR = "unclear"
    DEPENDS = "depends on the case"      # a set only: faster in some scenarios, slower in others
    NO_DATA = "no results yet"

    def __str__(self) -> str:
        return self.value


class Verdict(str, Enum):
    """Whether a source's claim holds on today's measurements."""

    HOLDS = "holds"
    PARTLY = "holds in some cases"
    DOES_NOT_HOLD = "does not hold"
    UNCLEAR = "unclear"
    NO_DATA = "no results yet"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Word:
    text: str            # as prose and tables print it
    symbol: str          # beside it in badges and the terminal (never alone: colour-blind readers)
    css: str             # the badge's class, tfperf-<css>, styled in docs/assets/tfperf.css


WORDS: dict[Finding | Verdict, Word] = {
    Finding.FASTER: Word("faster", "▲", "faster"),
    Finding.SLOWER: Word("slower", "▼", "slower"),
    Finding.SAME: Word("the same", "=", "same"),
    Finding.UNCLEAR: Word("unclear", "?", "unclear"),
    Finding.DEPENDS: Word("depends on the case", "◆", "depends"),
    Finding.NO_DATA: Word("no results yet", "–", "nodata"),
    Verdict.HOLDS: Word("holds", "✓", "holds"),
    Verdict.PARTLY: Word("holds in some cases", "◐", "partly"),
    Verdict.DOES_NOT_HOLD: Word("does not hold", "✗", "fails"),
    Verdict.UNCLEAR: Word("unclear", "?", "unclear"),
    Verdict.NO_DATA: Word("no results yet", "–", "nodata"),
}

# The rules, each in the one sentence the pages that show the words carry (a legend).
RULE = (f"Faster or slower: the whole 95% confidence interval of the speedup lies beyond ±{MARGIN:.0%} (or beyond "
        "the scenario's run-to-run noise, when that is larger); the same: it lies wholly within that band; "
        "unclear: it crosses the band's edge, so the measurement cannot tell.")
SUMMARY_RULE = ("Over several scenarios the finding most of them share leads, with its count, its range of speedups "
                "and the exceptions named; it depends on the case only when faster and slower each hold in at least "
                f"{SUBSTANTIAL_SHARE:.0%} of the scenarios ({SUBSTANTIAL_COUNT} or more) and by "
                f"{SUBSTANTIAL_SIZE:.0%} or more somewhere; it is unclear when fewer than half of the scenarios can "
                "tell.")
VERDICT_RULE = ("A claim holds when that overall finding is what its source said, holds in some cases when a "
                f"substantial share of the scenarios say so ({SUBSTANTIAL_SHARE:.0%}, {SUBSTANTIAL_COUNT} or more), "
                "and does not hold otherwise.")

EXPECTED: dict[str, Finding | None] = {"faster": Finding.FASTER, "slower": Finding.SLOWER, "same": Finding.SAME,
                                       "none": None}


def vocabulary() -> set[str]:
    """Every word a page may show for a finding or a verdict."""
    return {w.text for w in WORDS.values()}


def effect(low: float, high: float, margin: float) -> Finding:
    """The finding of one comparison from its speedup's CI [low, high] and the margin
    (a fraction): faster, slower, the same or unclear (see the module's docstring; the
    rule itself is :func:`tfperf.stats.finding`, which the measuring side shares)."""
    return Finding(stats.finding(low, high, margin))


def ratio_text(x: float | None) -> str:
    """A speedup as the guide prints it: 2.3×, 0.48×, 11×."""
    if x is None or not math.isfinite(x):
        return "–"
    return f"{x:.3g}×" if x < 100 else f"{x:.0f}×"


def range_text(points: Sequence[float]) -> str:
    """"1.06×" or "0.20×–0.95×"."""
    if not points:
        return "–"
    lo, hi = ratio_text(min(points)), ratio_text(max(points))
    return lo if lo == hi else f"{lo}–{hi}"


@dataclass(frozen=True)
class Point:
    """One comparison in one scenario, as a summary reads it."""

    finding: Finding
    speedup: float | None                 # A's speedup over B (point estimate)
    low: float | None
    high: float | None
    where: Mapping[str, object]           # the scenario: parameters and settings (and the runner)
    label: str                            # the scenario in reader words: "MLP, batch 1"


@dataclass(frozen=True)
class Summary:
    """A comparison over its scenarios: the overall finding and its parts."""

    finding: Finding                      # FASTER / SLOWER / SAME / UNCLEAR / DEPENDS / NO_DATA
    points: tuple[Point, ...]

    def of(self, finding: Finding) -> list[Point]:
        return [p for p in self.points if p.finding == finding]

    def count(self, finding: Finding) -> int:
        return len(self.of(finding))

    @property
    def n(self) -> int:
        return len(self.points)

    @property
    def main(self) -> Finding:
        """The clear finding most scenarios share (ties go to the same, then slower: a tie
        never reads as a speedup), UNCLEAR without any clear one."""
        counts = [(self.count(f), -i, f) for i, f in enumerate((Finding.SAME, Finding.SLOWER, Finding.FASTER))]
        best = max(counts)
        return best[2] if best[0] else Finding.UNCLEAR

    @property
    def speedups(self) -> list[float]:
        return [p.speedup for p in self.points if p.speedup is not None]

    def typical(self, finding: Finding | None = None) -> float | None:
        """The median speedup over the scenarios with ``finding`` (default: the main one)."""
        pts = [p.speedup for p in self.of(finding or self.main) if p.speedup is not None]
        return statistics.median(pts) if pts else None

    def range(self, finding: Finding | None = None) -> str:
        pts = self.speedups if finding is None else [p.speedup for p in self.of(finding) if p.speedup is not None]
        return range_text(pts)


def substantial(points: Sequence[Point], n: int, finding: Finding) -> bool:
    """A side of a split that a reader must be told about up front: at least
    :data:`SUBSTANTIAL_COUNT` scenarios and :data:`SUBSTANTIAL_SHARE` of all ``n``, and an
    effect of at least :data:`SUBSTANTIAL_SIZE` in one of them."""
    side = [p for p in points if p.finding == finding]
    if len(side) < max(SUBSTANTIAL_COUNT, math.ceil(SUBSTANTIAL_SHARE * n)):
        return False
    size = [abs(math.log(p.speedup)) for p in side if p.speedup]
    return bool(size) and max(size) >= math.log1p(SUBSTANTIAL_SIZE)


def depends(points: Sequence[Point]) -> bool:
    """"Depends on the case": faster and slower are both :func:`substantial`."""
    n = len(points)
    return substantial(points, n, Finding.FASTER) and substantial(points, n, Finding.SLOWER)


def summarise(points: Iterable[Point]) -> Summary:
    """The overall finding of a comparison over its scenarios:

    * NO_DATA without any scenario;
    * DEPENDS when faster and slower are both substantial (:func:`depends`);
    * UNCLEAR when fewer than half of the scenarios have a clear finding;
    * else the clear finding most scenarios share (:attr:`Summary.main`)."""
    pts = tuple(points)
    if not pts:
        return Summary(Finding.NO_DATA, pts)
    if depends(pts):
        return Summary(Finding.DEPENDS, pts)
    clear = [p for p in pts if p.finding != Finding.UNCLEAR]
    if 2 * len(clear) < len(pts):
        return Summary(Finding.UNCLEAR, pts)
    return Summary(Summary(Finding.NO_DATA, pts).main, pts)


def verdict(expect: Finding, summary: Summary) -> Verdict:
    """Whether a source's answer ``expect`` (faster, slower or the same) holds:

    * holds: the overall finding is the expected one;
    * holds in some cases: the finding depends on the case and the source expected an
      effect, or the expected finding is a substantial minority (:func:`substantial`);
    * does not hold: another finding, with the expected one rare or absent;
    * unclear / no results yet: as the summary."""
    if summary.finding == Finding.NO_DATA:
        return Verdict.NO_DATA
    if summary.finding == expect:
        return Verdict.HOLDS
    if summary.finding == Finding.DEPENDS and expect != Finding.SAME:
        return Verdict.PARTLY
    if summary.finding == Finding.UNCLEAR:
        return Verdict.UNCLEAR
    if expect != Finding.SAME and substantial(summary.points, summary.n, expect):
        return Verdict.PARTLY
    return Verdict.DOES_NOT_HOLD


# -- in words --------------------------------------------------------------------------------

Label = Callable[[str, object], str]        # (parameter or setting, value) -> reader words


def plain(name: str, value: object) -> str:
    """A value in reader words without a topic's labels: a name as it is ("mlp"), a
    number with its parameter ("batch 1")."""
    return str(value) if isinstance(value, str) and not value.isdigit() else f"{name} {value}"


def where_text(side: Sequence[Point], others: Sequence[Point], order: Mapping[str, Sequence[object]] | None = None,
               label: Label = plain) -> str:
    """Where ``side`` holds, as briefly as the data allows: "for batch 64" when one
    parameter's values separate it from ``others``, else the scenarios by name ("mlp, batch
    1 (1.06×)"), the first :data:`NAMED` and a count of the rest."""
    if not side:
        return ""
    keys = [k for k in (order or {}) if all(k in p.where for p in side)]
    keys += sorted({k for p in side for k in p.where} - set(keys))
    for key in keys:
        mine = {str(p.where.get(key)) for p in side}
        theirs = {str(p.where.get(key)) for p in others}
        if others and not mine & theirs and all(key in p.where for p in (*side, *others)):
            declared = [str(v) for v in (order or {}).get(key, [])]
            raw = {str(p.where.get(key)): p.where.get(key) for p in side}
            values = sorted(mine, key=lambda v: (declared.index(v) if v in declared else len(declared), v))
            return "for " + listing([label(key, raw[v]) for v in values])
    names = [f"{p.label} ({_figure(p)})" for p in side[:NAMED]]
    more = len(side) - NAMED
    return listing(names + ([f"{more} more"] if more > 0 else []))


def _figure(p: Point) -> str:
    """A named scenario's speedup; for an unclear one with its interval too, which says why
    the measurement cannot tell ("0.307×, 95% CI 0.266×–3.43×")."""
    if p.finding == Finding.UNCLEAR and p.low is not None and p.high is not None:
        return f"{ratio_text(p.speedup)}, 95% CI {ratio_text(p.low)}–{ratio_text(p.high)}"
    return ratio_text(p.speedup)


def summary_text(s: Summary, order: Mapping[str, Sequence[object]] | None = None, unit: str = "scenario",
                 label: Label = plain, total: int | None = None) -> str:
    """The summary in words, magnitudes and exceptions included:

    "slower in 9 of 10 scenarios (0.20×–0.95×); faster in 1: mlp, batch 1 (1.06×)",
    "the same in all 6 scenarios (0.97×–1.04×)",
    "depends on the case: faster for batch 64 (1.3×–2×); slower for batch 1 (0.6×–0.8×)"."""
    if s.finding == Finding.NO_DATA:
        return str(Finding.NO_DATA)
    rest = summary_rest(s, order, unit, label, total)
    return f"{s.finding}: {rest}" if s.finding == Finding.DEPENDS else f"{s.finding} {rest}"


def summary_rest(s: Summary, order: Mapping[str, Sequence[object]] | None = None, unit: str = "scenario",
                 label: Label = plain, total: int | None = None, name_unclear: bool = True,
                 name_listed: bool = True) -> str:
    """:func:`summary_text` without its leading finding: "in 9 of 10 scenarios
    (0.20×–0.95×); faster in 1: mlp, batch 1 (1.06×)", or for "depends on the case" the
    sides: "faster for batch 64 (1.3×–2×); slower for batch 1 (0.6×–0.8×)". ``total``:
    the scenarios counted, those without a result included (a failure, a wrong output), so
    that one good scenario of two reads "in 1 of 2", not "in the one scenario measured".
    ``name_unclear=False``: the scenarios of "depends on the case" that could not tell are
    counted ("unclear in 2"), not named (a phone's first screen). ``name_listed=False``: a
    side that no shared setting describes is counted too ("slower in 5"), not listed scenario
    by scenario; a side "for MLP (1.1×–1.2×)" keeps its words and range."""
    if s.finding == Finding.NO_DATA:
        return ""
    kinds = (Finding.FASTER, Finding.SLOWER, Finding.SAME, Finding.UNCLEAR)
    if s.finding == Finding.DEPENDS:
        parts = []
        for f in kinds:
            side = s.of(f)
            if side and f == Finding.UNCLEAR and not name_unclear:
                parts.append(f"{f} in {len(side)}")
            elif side:
                rest = [p for p in s.points if p.finding != f]
                where = where_text(side, rest, order, label)
                parts.append(f"{f} {where}{_range_of(side)}" if where.startswith("for ")
                             else f"{f} in {len(side)}: {where}" if name_listed else f"{f} in {len(side)}")
        return "; ".join(parts)
    lead = s.finding
    n = max(s.n, total or 0)
    units = unit if n == 1 else unit + "s"
    k = s.count(lead)
    share = (f"in the one {unit} measured" if n == 1 else f"in both {units}" if k == n == 2
             else f"in all {n} {units}" if k == n
             else f"in {k} of {n} {units}")
    text = f"{share}{_range_of(s.of(lead))}"
    for f in sorted((x for x in kinds if x != lead and s.count(x)), key=lambda x: -s.count(x)):
        side = s.of(f)
        rest = [p for p in s.points if p.finding != f]
        where = where_text(side, rest, order, label)
        text += (f"; {f} in {len(side)}, {where}{_range_of(side)}" if where.startswith("for ")
                 else f"; {f} in {len(side)}: {where}")
    return text


def brief_text(s: Summary, unit: str = "scenario", total: int | None = None) -> str:
    """The summary without the exceptions' names, for a first screen that answers several
    claims at once: "faster in 3 of 4 (2.36×–7.29×); unclear in 1"; "depends on the case:
    faster in 2 (1.1×–1.3×), slower in 3 (0.5×–0.8×), unclear in 1"."""
    if s.finding == Finding.NO_DATA:
        return str(Finding.NO_DATA)
    kinds = (Finding.FASTER, Finding.SLOWER, Finding.SAME, Finding.UNCLEAR)
    if s.finding == Finding.DEPENDS:
        return f"{Finding.DEPENDS}: " + ", ".join(f"{f} in {s.count(f)}{_range_of(s.of(f))}"
                                                  for f in kinds if s.count(f))
    n, k = max(s.n, total or 0), s.count(s.finding)
    share = (f"in the one {unit} measured" if n == 1 else "in both" if k == n == 2 else f"in all {n}" if k == n
             else f"in {k} of {n}")
    rest = "".join(f"; {f} in {s.count(f)}" for f in sorted((x for x in kinds if x != s.finding and s.count(x)),
                                                              key=lambda x: -s.count(x)))
    return f"{s.finding} {share}{_range_of(s.of(s.finding))}{rest}"


def _range_of(side: Sequence[Point]) -> str:
    pts = [p.speedup for p in side if p.speedup is not None]
    return f" ({range_text(pts)})" if pts else ""


def phrase(finding: Finding, candidate: str, baseline: str) -> str:
    """The finding as a sentence about the two sides: "X is faster than Y", "X is as fast
    as Y", "whether X is faster than Y depends on the case"."""
    return {
        Finding.FASTER: f"{candidate} is faster than {baseline}",
        Finding.SLOWER: f"{candidate} is slower than {baseline}",
        Finding.SAME: f"{candidate} is as fast as {baseline}",
        Finding.UNCLEAR: f"whether {candidate} is faster than {baseline} is unclear",
        Finding.DEPENDS: f"whether {candidate} is faster than {baseline} depends on the case",
        Finding.NO_DATA: f"{candidate} against {baseline}: no results yet",
    }[finding]


def expectation_text(expect: Finding | None) -> str:
    """What the source said, as a verdict's sentence names it: "faster", "slower", "no
    difference"; "–" for a comparison no source made."""
    if expect is None:
        return "–"
    return "no difference" if expect == Finding.SAME else str(expect)
