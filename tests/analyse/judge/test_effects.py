"""The one vocabulary (analyse/judge/effects.py) on synthetic intervals, without TensorFlow: the
four findings, the summary over scenarios, a claim's verdict, and the words."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfperf.analyse.judge.effects import (
    MARGIN,
    WORDS,
    Finding,
    Point,
    Verdict,
    effect,
    summarise,
    summary_rest,
    summary_text,
    verdict,
    vocabulary,
)


def pt(finding: Finding, speedup: float, **where: object) -> Point:
    label = ", ".join(str(v) if isinstance(v, str) else f"{k} {v}" for k, v in where.items())
    return Point(finding, speedup, speedup * 0.98, speedup * 1.02, where, label)


@pytest.mark.parametrize("low, high, expected", [
    (0.97, 1.03, Finding.SAME),            # inside ±5%: an equivalence, not "no result"
    (1.06, 1.20, Finding.FASTER),
    (0.50, 0.90, Finding.SLOWER),
    (1.02, 1.10, Finding.UNCLEAR),         # straddles the upper edge of the band
    (0.90, 0.99, Finding.UNCLEAR),         # straddles the lower edge
    (0.80, 1.40, Finding.UNCLEAR),         # too wide to say anything
])
def test_a_comparison_has_one_of_four_findings(low: float, high: float, expected: Finding) -> None:
    assert effect(low, high, MARGIN) is expected


def test_the_margin_is_the_larger_of_the_noise_and_the_minimum() -> None:
    assert effect(1.06, 1.08, 0.10) is Finding.SAME          # a noisy scenario: 8% is within its noise
    assert effect(1.06, 1.08, MARGIN) is Finding.FASTER


@settings(max_examples=500, deadline=None)
@given(st.floats(0.05, 20.0), st.floats(0.0, 3.0), st.floats(0.0, 0.5))
def test_the_four_findings_exclude_each_other_and_cover_every_interval(low: float, width: float,
                                                                       margin: float) -> None:
    high = low * math.exp(width)
    up = 1 + margin
    found = effect(low, high, margin)
    rules = {Finding.FASTER: low > up, Finding.SLOWER: high < 1 / up,
             Finding.SAME: low >= 1 / up and high <= up}
    rules[Finding.UNCLEAR] = not any(rules.values())
    assert [f for f, holds in rules.items() if holds] == [found]


def test_nine_slower_and_one_barely_faster_is_slower_with_the_exception_named() -> None:
    points = [pt(Finding.SLOWER, x, model=m, batch=b) for x, (m, b) in zip(
        (0.20, 0.31, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95),
        [("mobilenet", 1), ("mobilenet", 8), ("mobilenet", 64), ("efficientnet", 1), ("efficientnet", 8),
         ("efficientnet", 64), ("mlp", 8), ("mlp", 64), ("efficientnetv2s", 1)])]
    points.append(pt(Finding.FASTER, 1.06, model="mlp", batch=1))
    s = summarise(points)
    assert s.finding is Finding.SLOWER
    assert summary_text(s) == "slower in 9 of 10 scenarios (0.2×–0.95×); faster in 1: mlp, batch 1 (1.06×)"


def test_depends_can_count_its_unclear_scenarios_instead_of_naming_them() -> None:
    fast = [pt(Finding.FASTER, 1.3, batch=64, model=m) for m in ("a", "b", "c")]
    slow = [pt(Finding.SLOWER, 0.7, batch=1, model=m) for m in ("a", "b", "c")]
    unclear = [pt(Finding.UNCLEAR, 0.98, batch=8, model=m) for m in ("a", "b")]
    s = summarise([*fast, *slow, *unclear])
    assert s.finding is Finding.DEPENDS
    assert "unclear for batch 8" in summary_rest(s)
    assert summary_rest(s, name_unclear=False) == "faster for batch 64 (1.3×); slower for batch 1 (0.7×); unclear in 2"


def test_depends_can_count_a_side_it_would_list_scenario_by_scenario() -> None:
    fast = [pt(Finding.FASTER, x, batch=b, model=m) for x, (m, b) in zip(
        (1.3, 1.2, 1.25), [("mlp", 64), ("mlp", 8), ("a", 64)])]
    slow = [pt(Finding.SLOWER, x, batch=b, model=m) for x, (m, b) in zip(
        (0.4, 0.3, 0.5), [("mlp", 1), ("a", 8), ("a", 1)])]
    s = summarise([*fast, *slow, pt(Finding.UNCLEAR, 0.98, batch=1, model="b")])
    assert s.finding is Finding.DEPENDS
    listed = summary_rest(s, name_unclear=False)
    assert "slower in 3: " in listed
    counted = summary_rest(s, name_unclear=False, name_listed=False)
    assert counted == "faster in 3; slower in 3; unclear in 1", counted


def test_depends_only_when_both_sides_are_substantial_in_count_and_size() -> None:
    fast = [pt(Finding.FASTER, 1.3, batch=64, model=m) for m in ("a", "b", "c")]
    slow = [pt(Finding.SLOWER, 0.7, batch=1, model=m) for m in ("a", "b", "c")]
    s = summarise([*fast, *slow])
    assert s.finding is Finding.DEPENDS
    assert summary_text(s) == "depends on the case: faster for batch 64 (1.3×); slower for batch 1 (0.7×)"
    # The same split with the slower side only 3% slower: not a substantial side.
    small = [pt(Finding.SLOWER, 0.94, batch=1, model=m) for m in ("a", "b", "c")]
    assert summarise([*fast, *small]).finding is not Finding.DEPENDS
    # One scenario the other way is an exception, not "depends", however large.
    assert summarise([*fast, pt(Finding.SLOWER, 0.3, batch=1, model="a")]).finding is Finding.FASTER


def test_unclear_when_fewer_than_half_can_tell_and_ties_never_read_as_a_speedup() -> None:
    unclear = [pt(Finding.UNCLEAR, 1.04, batch=b) for b in (1, 8, 64)]
    assert summarise([*unclear, pt(Finding.FASTER, 1.3, batch=2)]).finding is Finding.UNCLEAR
    tie = [pt(Finding.FASTER, 1.2, batch=1), pt(Finding.SAME, 1.0, batch=8)]
    assert summarise(tie).finding is Finding.SAME
    assert summarise([]).finding is Finding.NO_DATA


def test_an_equivalence_claim_holds_on_the_same_and_a_faster_claim_does_not() -> None:
    same = summarise(pt(Finding.SAME, x, batch=b) for x, b in ((0.97, 1), (1.01, 8), (1.04, 64)))
    assert verdict(Finding.SAME, same) is Verdict.HOLDS
    assert verdict(Finding.FASTER, same) is Verdict.DOES_NOT_HOLD
    assert summary_text(same) == "the same in all 3 scenarios (0.97×–1.04×)"
    slower = summarise([pt(Finding.SLOWER, 0.8, batch=1), pt(Finding.SLOWER, 0.7, batch=8)])
    assert verdict(Finding.SAME, slower) is Verdict.DOES_NOT_HOLD
    assert verdict(Finding.SLOWER, slower) is Verdict.HOLDS


def test_a_substantial_minority_for_the_source_holds_in_some_cases() -> None:
    points = [pt(Finding.SAME, 1.0, batch=b) for b in (1, 2, 4, 8, 16)]
    points += [pt(Finding.FASTER, 1.4, batch=b) for b in (32, 64)]
    s = summarise(points)
    assert s.finding is Finding.SAME
    assert verdict(Finding.FASTER, s) is Verdict.PARTLY
    assert verdict(Finding.FASTER, summarise([*points[:5], points[5]])) is Verdict.DOES_NOT_HOLD


def test_every_word_has_a_symbol_and_a_class_and_the_rule_names_the_margin() -> None:
    from tfperf.analyse.judge.effects import RULE

    assert {"faster", "slower", "the same", "unclear", "depends on the case", "holds", "does not hold",
            "holds in some cases"} <= vocabulary()
    assert all(w.symbol and w.css for w in WORDS.values())
    assert f"±{MARGIN:.0%}" in RULE
