"""When a TensorFlow release changes a claim's finding (analyse/judge/version_verdicts.py): only
when the finding differs on the scenarios the two releases share and, in one of them at
least, their confidence intervals do not overlap. No TensorFlow."""

from __future__ import annotations

from tfperf.analyse.judge.claims import ClaimCheck
from tfperf.analyse.judge.effects import MARGIN, Finding, effect
from tfperf.analyse.judge.scenarios import Ratio, Scenario
from tfperf.analyse.judge.version_verdicts import VersionStrip, _cell, changed


def check(batch: int, low: float, high: float) -> ClaimCheck:
    sc = Scenario("box", "t", {"batch": batch}, {})
    point = (low * high) ** 0.5
    return ClaimCheck("c", sc, Ratio(point, low, high, True, 20), None, effect(low, high, MARGIN), MARGIN)


def cell(version: str, *checks: ClaimCheck):  # type: ignore[no-untyped-def]
    return _cell(version, list(checks), Finding.FASTER, lambda k, v: f"{k} {v}")


def test_a_change_needs_another_finding_and_intervals_that_do_not_overlap() -> None:
    before = cell("2.15.1", check(1, 1.10, 1.30))           # faster
    after = cell("2.16.2", check(1, 0.98, 1.03))            # the same, intervals apart
    ch = changed(before, after)
    assert ch is not None and (ch.before, ch.after) == (Finding.FASTER, Finding.SAME)
    # Another finding, but the intervals overlap: the release did not change it.
    assert changed(cell("a", check(1, 1.055, 1.20)), cell("b", check(1, 0.97, 1.06))) is None
    # Intervals apart, the same finding: no change either.
    assert changed(cell("a", check(1, 1.10, 1.20)), cell("b", check(1, 1.40, 1.60))) is None
    # An unclear release changes nothing.
    assert changed(cell("a", check(1, 1.10, 1.20)), cell("b", check(1, 0.80, 0.99))) is None


def test_only_the_shared_scenarios_decide_and_the_strip_lists_exactly_its_changes() -> None:
    old = cell("2.20.0", check(8, 0.50, 0.60))                              # the history grid: one scenario
    new = cell("2.21.0", check(1, 1.10, 1.20), check(8, 0.55, 0.65), check(64, 0.3, 0.4))
    assert changed(old, new) is None                                        # batch 8: slower in both
    strip = VersionStrip("t", {"id": "c"}, "box", [cell("2.19.1", check(8, 1.1, 1.2)), old, new])
    assert [(c.version, c.before, c.after) for c in strip.changes] == [("2.20.0", Finding.FASTER, Finding.SLOWER)]
    assert new.text == "slower in 2 of 3 scenarios (0.346×–0.598×); faster in 1, for batch 1 (1.15×)"
