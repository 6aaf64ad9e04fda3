"""The interleaved method without TensorFlow: the round scheduler, the paired estimator
under drift (against the old sequential blocks), the stopping rule, the finding of one
comparison (faster, slower, the same or unclear, with the smallest effect it could have
seen) and how a claim's findings read over its scenarios."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import TYPE_CHECKING

import pytest

from tfperf import stats
from tfperf.measure.supervise.rounds import AA_SUFFIX, RoundRule, Rounds, Slot, relative_halfwidth, round_order

if TYPE_CHECKING:
    from tfperf.analyse.judge.claims import ClaimCheck, ClaimResult
    from tfperf.analyse.judge.scenarios import Ratio

SLOTS = [Slot("g1", "a"), Slot("g1", "b"), Slot("g2", "a2"), Slot("g2", "b2"), Slot("g1", "a", aa=True)]


# -- the schedule ---------------------------------------------------------------------------

def test_each_slot_once_per_round_in_a_seeded_random_order() -> None:
    orders = [round_order(SLOTS, "topic/batch=1", i) for i in range(200)]
    for order in orders:
        assert sorted(s.name for s in order) == sorted(s.name for s in SLOTS)
    # Replayable: the same scenario and round give the same order.
    assert orders[7] == round_order(SLOTS, "topic/batch=1", 7)
    # Another scenario draws other orders.
    assert [round_order(SLOTS, "topic/batch=64", i) for i in range(20)] != orders[:20]
    # Not one fixed order: many distinct orders, and every slot is first now and then,
    # about as often as the others (200 rounds / 5 slots = 40 each).
    assert len({tuple(s.name for s in o) for o in orders}) > 50
    first = Counter(o[0].name for o in orders)
    assert set(first) == {s.name for s in SLOTS}
    assert max(first.values()) < 70 and min(first.values()) > 15


def test_aa_slot_is_named_after_the_baseline() -> None:
    assert Slot("g", "x", aa=True).name == "x" + AA_SUFFIX
    assert Slot("g", "x").name == "x"


# -- paired ratios under drift ----------------------------------------------------------------

TRUE_SPEEDUP = 1.25          # the candidate takes 1 / 1.25 of the baseline's time
DRIFT = 0.30                 # the machine slows down linearly by 30% across the run
ROUNDS = 40


def _speed(t: float) -> float:
    """The machine's slowdown factor at time t in [0, 1] of the run."""
    return 1.0 + DRIFT * t


def _noisy(rng: random.Random, x: float) -> float:
    return x * math.exp(rng.gauss(0.0, 0.02))


def _interleaved(seed: int) -> tuple[float, float, float]:
    """Both variants measured in each round, in a random order: slots 2i and 2i+1."""
    rng = random.Random(seed)
    base, cand = [], []
    for i in range(ROUNDS):
        order = ["base", "cand"]
        rng.shuffle(order)
        for j, who in enumerate(order):
            t = (2 * i + j) / (2 * ROUNDS)
            if who == "base":
                base.append(_noisy(rng, 1.0 * _speed(t)))
            else:
                cand.append(_noisy(rng, 1.0 / TRUE_SPEEDUP * _speed(t)))
    return stats.paired_ratio(base, cand)


def _sequential(seed: int) -> tuple[float, float, float]:
    """The old method: all of the baseline's samples, then all of the candidate's."""
    rng = random.Random(seed)
    base = [_noisy(rng, 1.0 * _speed(i / (2 * ROUNDS))) for i in range(ROUNDS)]
    cand = [_noisy(rng, 1.0 / TRUE_SPEEDUP * _speed((ROUNDS + i) / (2 * ROUNDS))) for i in range(ROUNDS)]
    return stats.ratio_ci(base, cand)


@pytest.mark.parametrize("seed", range(5))
def test_interleaved_ratio_stays_within_two_percent_under_a_30_percent_drift(seed: int) -> None:
    point, lo, hi = _interleaved(seed)
    assert abs(point / TRUE_SPEEDUP - 1.0) < 0.02, point
    assert lo <= TRUE_SPEEDUP * 1.02 and hi >= TRUE_SPEEDUP * 0.98


@pytest.mark.parametrize("seed", range(5))
def test_sequential_blocks_carry_the_drift(seed: int) -> None:
    """The same samples' budget in two blocks: the drift between the blocks (about 15%)
    lands in the ratio, and the CI, tight as it is, excludes the truth."""
    point, _lo, hi = _sequential(seed)
    assert abs(point / TRUE_SPEEDUP - 1.0) > 0.10, point
    assert hi < TRUE_SPEEDUP


def test_paired_ratio_needs_equal_lengths() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        stats.paired_ratio([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="empty"):
        stats.paired_ratio([], [])


# -- the rounds table and the stopping rule ---------------------------------------------------------

def _table(n: int, spread: float, speedup: float = 1.0, seed: int = 0) -> Rounds:
    rng = random.Random(seed)
    r = Rounds(baseline="base")
    for i in range(n):
        r.add(i, "base", 1.0 * math.exp(rng.gauss(0, spread)))
        r.add(i, "base" + AA_SUFFIX, 1.0 * math.exp(rng.gauss(0, spread)))
        r.add(i, "cand", 1.0 / speedup * math.exp(rng.gauss(0, spread)))
    r.count = n
    return r


def test_ratios_use_only_rounds_both_slots_have() -> None:
    r = Rounds(baseline="base")
    for i in range(8):
        r.add(i, "base", 2.0)
    for i in (0, 2, 4, 6):
        r.add(i, "cand", 1.0)
    assert r.paired("base", "cand") == ([2.0] * 4, [1.0] * 4)
    assert r.ratio("base", "cand") == (2.0, 2.0, 2.0)
    r.drop("cand")
    assert r.ratio("base", "cand") is None


def test_rule_stops_at_min_rounds_when_every_ci_is_tight() -> None:
    rule = RoundRule(min_rounds=10, max_rounds=100, target_rel_ci=0.02, budget_s=60)
    assert rule.stop(_table(9, 0.001), 1.0) is None            # below the minimum
    assert rule.stop(_table(10, 0.001), 1.0) == "ci"


def test_rule_goes_on_while_the_ci_is_wide_then_stops_at_max_or_budget() -> None:
    rule = RoundRule(min_rounds=10, max_rounds=40, target_rel_ci=0.01, budget_s=60)
    wide = _table(20, 0.2)
    assert wide.widest() > 0.01
    assert rule.stop(wide, 1.0) is None
    assert rule.stop(wide, 61.0) is None                     # wider than publish_ci: extended
    assert rule.stop(wide, 120.0) is None                    # ... then the A/A floor, still wide
    assert rule.stop(wide, 150.0) == "budget"                # ... for at most half a budget more
    assert rule.stop(_table(40, 0.2), 1.0) == "max_rounds"


def test_a_spent_budget_ends_the_scenario_once_every_ratio_is_publishable() -> None:
    """Past its budget a scenario stops when its widest ratio (the A/A pair included) is
    within publish_ci, even though target_rel_ci is not reached."""
    rule = RoundRule(min_rounds=10, max_rounds=200, target_rel_ci=0.005, budget_s=60, publish_ci=0.05)
    middling = _table(60, 0.05)
    assert 0.005 < middling.widest() <= 0.05
    assert rule.stop(middling, 30.0) is None
    assert rule.stop(middling, 61.0) == "budget"
    no_extension = RoundRule(min_rounds=10, target_rel_ci=0.01, budget_s=60, extend=0.0, aa_extend=0.0)
    assert no_extension.stop(_table(20, 0.2), 61.0) == "budget"


def test_in_the_extension_only_the_wide_slots_and_the_baseline_stay() -> None:
    """Once the budget is spent, a slot within publish_ci leaves even if it is wider than
    target_rel_ci or its claim is undecided; the wide one and the A/A pair stay."""
    rng = random.Random(11)
    rounds = Rounds(baseline="base")
    for i in range(30):
        rounds.add(i, "base", 1.0)
        rounds.add(i, "base" + AA_SUFFIX, math.exp(rng.gauss(0, 0.25)))
        rounds.add(i, "mid", 0.99 * math.exp(rng.gauss(0, 0.03)))
    rounds.count = 30
    rule = RoundRule(min_rounds=10, target_rel_ci=0.005, budget_s=10, decide=(("mid", "base"),))
    assert "mid" not in rule.settled(rounds, elapsed_s=5.0)          # undecided, wider than target
    late = rule.settled(rounds, elapsed_s=11.0)
    assert "mid" in late and "base" + AA_SUFFIX not in late and "base" not in late


def test_a_very_slow_scenario_still_takes_three_rounds() -> None:
    rule = RoundRule(min_rounds=10, budget_s=5)
    assert rule.stop(_table(2, 0.01), 100.0) is None
    assert rule.stop(_table(3, 0.01), 100.0) == "budget"


def test_an_inconclusive_claim_gets_more_rounds() -> None:
    """The CIs are within target, but the claim's CI straddles 1 + noise: go on."""
    rounds = _table(30, 0.01, speedup=1.012, seed=3)
    loose = RoundRule(min_rounds=10, target_rel_ci=0.05)
    decide = RoundRule(min_rounds=10, target_rel_ci=0.05, decide=(("cand", "base"),))
    assert loose.stop(rounds, 1.0) == "ci"
    assert decide.undecided(rounds) == [("cand", "base")]
    assert decide.stop(rounds, 1.0) is None
    clear = _table(30, 0.01, speedup=1.5, seed=3)
    assert decide.undecided(clear) == [] and decide.stop(clear, 1.0) == "ci"


def test_a_slot_whose_ci_is_tight_leaves_the_rounds_and_a_wide_one_stays() -> None:
    rng = random.Random(5)
    rounds = Rounds(baseline="base")
    for i in range(12):
        rounds.add(i, "base", 1.0)
        rounds.add(i, "base" + AA_SUFFIX, 1.0 * math.exp(rng.gauss(0, 0.001)))
        rounds.add(i, "tight", 0.5 * math.exp(rng.gauss(0, 0.001)))
        rounds.add(i, "wide", 0.5 * math.exp(rng.gauss(0, 0.3)))
    rounds.count = 12
    rule = RoundRule(min_rounds=10, target_rel_ci=0.02)
    assert rule.settled(rounds) == {"tight", "base" + AA_SUFFIX}
    # Below min_rounds in common with the baseline nothing settles, however tight.
    assert RoundRule(min_rounds=13, target_rel_ci=0.02).settled(rounds) == set()
    # A claim still undecided keeps both of its slots in the rounds, tight or not.
    claim = RoundRule(min_rounds=10, target_rel_ci=0.02, decide=(("tight", "wide"),))
    assert claim.undecided(rounds) == [("tight", "wide")]
    assert claim.settled(rounds) == {"base" + AA_SUFFIX}


def test_an_aa_slot_settles_on_its_noise_floor_not_on_its_ci_alone() -> None:
    """An A/A ratio of 1.05 with a 1% CI is not a settled 2% noise floor (the last run's
    train_step A/A slot left after 23 rounds at 1.053 +-2.5%); at 1.00 it settles."""
    rng = random.Random(2)
    biased, fine = Rounds(baseline="base"), Rounds(baseline="base")
    for i in range(30):
        base = math.exp(rng.gauss(0, 0.005))
        for r, aa in ((biased, base / 1.05), (fine, base)):
            r.add(i, "base", base)
            r.add(i, "base" + AA_SUFFIX, aa * math.exp(rng.gauss(0, 0.005)))
    biased.count = fine.count = 30
    rule = RoundRule(min_rounds=10, target_rel_ci=0.02)
    assert relative_halfwidth(*biased.ratio("base", "base" + AA_SUFFIX)) < 0.02
    assert biased.width("base" + AA_SUFFIX) == pytest.approx(0.05, abs=0.01)
    assert rule.settled(biased) == set() and rule.stop(biased, 1.0) is None
    assert rule.settled(fine) == {"base" + AA_SUFFIX} and rule.stop(fine, 1.0) == "ci"


def _noisy_aa(n: int, aa_spread: float, others: tuple[str, ...] = ("a", "b", "c")) -> Rounds:
    rng = random.Random(9)
    r = Rounds(baseline="base")
    for i in range(n):
        r.add(i, "base", 1.0)
        r.add(i, "base" + AA_SUFFIX, math.exp(rng.gauss(0, aa_spread)))
        for name in others:
            r.add(i, name, 0.5)
    r.count = n
    return r


def test_the_noise_floor_phase_keeps_the_baseline_its_aa_slot_and_one_companion_in_turn() -> None:
    """After budget and extension, a wide A/A floor gets rounds of its own: the baseline,
    its A/A slot and one other slot, a different one each round."""
    rule = RoundRule(min_rounds=10, target_rel_ci=0.02, budget_s=10, extend=1.0, aa_extend=0.5)
    rounds = _noisy_aa(40, 0.2)
    assert rule.phase(5.0) == "main" and rule.phase(15.0) == "extend" and rule.phase(21.0) == "noise"
    companions = []
    for count in (40, 41, 42, 43):
        rounds.count = count
        settled = rule.settled(rounds, elapsed_s=21.0)
        left = set(rounds.samples) - settled
        assert {"base", "base" + AA_SUFFIX} < left and len(left) == 3
        companions.append((left - {"base", "base" + AA_SUFFIX}).pop())
    assert sorted(set(companions)) == ["a", "b", "c"] and companions[0] == companions[3]
    assert rule.stop(rounds, 21.0) is None                        # floor still wide: go on
    assert rule.stop(rounds, 25.1) == "budget"                    # half a budget more at most
    quiet = _noisy_aa(40, 0.001)
    assert rule.stop(quiet, 21.0) == "budget"                     # floor within publish_ci: done
    assert RoundRule(min_rounds=10, budget_s=10, aa_extend=0.0).stop(rounds, 21.0) == "budget"


def test_a_tightened_pair_keeps_its_slots_until_its_own_ci_is_tight() -> None:
    """Two slots of other processes compared with each other (a negative control) can be
    tight against the baseline and still wide against each other: they stay."""
    rng = random.Random(4)
    rounds = Rounds(baseline="base")
    for i in range(30):
        common = math.exp(rng.gauss(0, 0.15))           # both slots' block shares the baseline's
        rounds.add(i, "base", common)
        rounds.add(i, "base" + AA_SUFFIX, common)
        shift = math.exp(rng.gauss(0, 0.15))            # but the two move against each other
        rounds.add(i, "x", common * shift)
        rounds.add(i, "y", common / shift)
    rounds.count = 30
    plain = RoundRule(min_rounds=10, target_rel_ci=0.1)
    paired = RoundRule(min_rounds=10, target_rel_ci=0.1, tighten=(("x", "y"),))
    assert {"x", "y"} <= plain.settled(rounds)
    assert rounds.pair_width("x", "y") > 0.1 >= rounds.width("x")
    assert {"x", "y"}.isdisjoint(paired.settled(rounds))
    assert rounds.widest(paired.tighten) > rounds.widest()
    assert plain.stop(rounds, 1.0) == "ci" and paired.stop(rounds, 1.0) is None


def _slow_slot(n: int, slow_s: float, aa_spread: float = 0.002) -> Rounds:
    """A 26 ms float32 training step (the baseline), a 35 ms bfloat16 one and a float16 one
    of ``slow_s`` seconds: history's mixed_precision training scenario under TF 2.13."""
    rng = random.Random(8)
    r = Rounds(baseline="f32")
    for i in range(n):
        r.add(i, "f32", 0.026)
        r.add(i, "f32" + AA_SUFFIX, 0.026 * math.exp(rng.gauss(0, aa_spread)))
        r.add(i, "bf16", 0.035 * math.exp(rng.gauss(0, 0.002)))
        r.add(i, "f16", slow_s * math.exp(rng.gauss(0, 0.1)))
    r.count = n
    return r


def test_a_costly_slot_far_slower_than_the_baseline_leaves_after_three_rounds() -> None:
    """2 s float16 steps, 80x slower than the baseline: their question is answered after
    three rounds, however wide their interval, and they no longer take the rounds the
    baseline and its A/A pair need; nor does their width keep the scenario going."""
    rule = RoundRule(min_rounds=10, target_rel_ci=0.02, budget_s=14.0)
    assert rule.settled(_slow_slot(2, 2.0)) == set()                  # two rounds: not yet
    three = _slow_slot(3, 2.0)
    assert three.width("f16") > 0.02 and "f16" in rule.costly(three)
    assert "f16" in rule.settled(three)
    ten = _slow_slot(10, 2.0)
    assert ten.widest() > 0.02 and rule.stop(ten, 1.0) == "ci"       # bf16 and A/A are tight
    # A claim about it is decided by the same far interval, so it leaves with its claim.
    claim = RoundRule(min_rounds=10, target_rel_ci=0.02, budget_s=14.0, decide=(("bf16", "f16"),))
    assert claim.undecided(three) == [] and "f16" in claim.settled(three)


def test_a_slot_far_slower_but_cheap_is_not_costly() -> None:
    """80 ms calls take their ten rounds well within their share of a 14 s budget: they
    stay until their interval is tight, like any other slot (predict() against model(x))."""
    rule = RoundRule(min_rounds=10, target_rel_ci=0.02, budget_s=14.0)
    rounds = _slow_slot(3, 0.08)
    assert rule.costly(rounds) == set() and "f16" not in rule.settled(rounds)
    # Nor does a costly slot leave while its interval reaches back within 2x of the baseline.
    near = _slow_slot(3, 0.04)
    assert RoundRule(min_rounds=10, budget_s=1.0).costly(near) == set()


def test_the_noise_floor_phase_does_not_take_a_costly_slot_as_companion() -> None:
    rule = RoundRule(min_rounds=10, target_rel_ci=0.02, budget_s=14.0, extend=1.0, aa_extend=0.5)
    rounds = _slow_slot(12, 2.0, aa_spread=0.3)
    for count in (12, 13):
        rounds.count = count
        left = set(rounds.samples) - rule.settled(rounds, elapsed_s=30.0)
        assert left == {"f32", "f32" + AA_SUFFIX, "bf16"}


def test_aa_noise_is_the_distance_from_one_or_the_ci_halfwidth() -> None:
    r = Rounds(baseline="base")
    for i in range(10):
        r.add(i, "base", 1.0)
        r.add(i, "base" + AA_SUFFIX, 0.95)
    assert r.aa_noise() == pytest.approx(1 / 0.95 - 1)


# -- four findings and their power --------------------------------------------------------------

def test_four_findings_one_rule_for_the_measuring_side_and_the_pages() -> None:
    """stats.finding is the rule both sides use: the rounds go on while a comparison is
    unclear, and the pages word the same finding (analyse.effects.effect)."""
    from tfperf.analyse.judge.effects import Finding, effect

    assert stats.judge(1.30, 1.25, 1.35, noise=0.02).finding == stats.FASTER
    assert stats.judge(1.00, 0.99, 1.01, noise=0.02).finding == stats.SAME      # within the noise
    assert stats.judge(0.70, 0.66, 0.74, noise=0.02).finding == stats.SLOWER
    assert stats.judge(1.05, 0.90, 1.20, noise=0.02).finding == stats.UNCLEAR   # too wide to tell
    assert stats.judge(0.95, 0.93, 0.97, noise=0.05).finding == stats.UNCLEAR   # crosses 1 / 1.05
    for low, high in ((1.25, 1.35), (0.99, 1.01), (0.66, 0.74), (0.90, 1.20), (0.93, 0.97)):
        assert effect(low, high, 0.05) == Finding(stats.finding(low, high, 0.05))


def test_detectable_effect_grows_with_the_ci_and_the_noise() -> None:
    tight = stats.judge(1.0, 0.99, 1.01, noise=0.01)
    loose = stats.judge(1.0, 0.90, 1.10, noise=0.01)
    noisy = stats.judge(1.0, 0.99, 1.01, noise=0.10)
    # A true 2.0% speedup would give a CI of about [1.0099, 1.0302]: above 1.01.
    assert tight.detectable == pytest.approx(1.01 / 0.99 - 1)
    assert loose.detectable > 0.10 > tight.detectable
    assert noisy.detectable > 0.10
    assert stats.judge(1.0, 0.99, 1.01, noise=0.0, min_effect=0.05).margin == 0.05


def _claim_check(ratio: Ratio, within_tolerance: bool | None = True, **claim: object) -> ClaimCheck:
    from types import SimpleNamespace

    from tfperf.analyse.judge.claims import _check
    from tfperf.analyse.judge.scenarios import NoiseFloor, Scenario

    winner = SimpleNamespace(within_tolerance=within_tolerance)     # all _check reads of the winner
    return _check({"id": "c", **claim}, Scenario("box", "t", {}, {}), ratio, NoiseFloor(0.01, "A/A"),
                  winner, "fast")  # type: ignore[arg-type]


def _result(*checks: ClaimCheck) -> ClaimResult:
    """A claim (expect: faster, the default) over ``checks``, each its own scenario (batch 1, 2, 4...)."""
    from tfperf.analyse.judge.claims import ClaimResult
    from tfperf.analyse.judge.scenarios import Scenario

    for i, ch in enumerate(checks):
        ch.scenario = Scenario("box", "t", {"batch": 2 ** i}, {})
    return ClaimResult({"id": "c"}, list(checks))


def test_a_claim_counts_only_speedups_of_its_minimum_effect() -> None:
    """A tight 3% speedup under a 1% noise floor: below the default minimum effect of 5%
    the comparison finds the two the same and the claim does not hold, unless the claim
    asks for less."""
    from tfperf.analyse.judge.effects import MARGIN, Finding, Verdict
    from tfperf.analyse.judge.scenarios import Ratio

    r = Ratio(1.03, 1.02, 1.04, paired=True, n=40)
    assert MARGIN == 0.05
    default = _claim_check(r)
    assert default.finding == Finding.SAME and default.margin == 0.05
    assert _result(default).verdict("box") == Verdict.DOES_NOT_HOLD
    asks_less = _claim_check(r, min_effect=0)
    assert asks_less.finding == Finding.FASTER and asks_less.margin == 0.01       # the noise floor remains
    assert _result(asks_less).verdict("box") == Verdict.HOLDS
    assert _claim_check(Ratio(1.2, 1.15, 1.25), min_effect=0.1).finding == Finding.FASTER
    assert _claim_check(Ratio(1.2, 1.08, 1.25), min_effect=0.1).finding == Finding.UNCLEAR


def test_a_wrong_output_never_wins() -> None:
    """Three times faster, but the winner's output is outside tolerance: no result for that
    scenario (never "faster"), a claim with only such scenarios does not hold, and the
    words say so."""
    from tfperf.analyse.judge.effects import Finding, Verdict
    from tfperf.analyse.judge.scenarios import Ratio

    fast = Ratio(3.0, 2.9, 3.1, paired=True, n=40)
    assert _claim_check(fast).finding == Finding.FASTER
    wrong = _claim_check(fast, within_tolerance=False)
    assert wrong.finding == Finding.NO_DATA and wrong.wrong_output
    assert wrong.note == "wrong output: fast's output is outside tolerance"
    alone = _result(wrong)
    assert alone.verdict("box") == Verdict.DOES_NOT_HOLD and alone.verdict_text() == "does not hold"
    assert alone.summary_text("box").startswith("wrong output (outside tolerance) in ")
    # Beside a correct 3x, the wrong one is not counted as faster, and the words name it.
    mixed = _result(wrong, _claim_check(fast))
    s = mixed.summary("box")
    assert s.finding == Finding.FASTER and s.count(Finding.FASTER) == 1 and s.n == 1
    assert mixed.summary_text("box").endswith("; wrong output in 1")
    # Unknown tolerance (no reference to compare with) is not a wrong output.
    assert _claim_check(fast, within_tolerance=None).finding == Finding.FASTER
    # Both scenarios were measured: the words must not say only one was.
    assert "the one scenario measured" not in mixed.summary_text("box"), mixed.summary_text("box")


def test_does_not_hold_and_unclear_read_as_different_lines() -> None:
    """The summary never merges "does not hold" with "unclear": each finding, and
    their mixes, is its own line, with the direction of a claim that does not hold in
    words."""
    from tfperf.analyse.judge.effects import Finding
    from tfperf.analyse.judge.scenarios import Ratio

    def faster() -> ClaimCheck:
        return _claim_check(Ratio(2.0, 1.9, 2.1, paired=True, n=40))

    def slower() -> ClaimCheck:
        return _claim_check(Ratio(0.5, 0.48, 0.52, paired=True, n=40))

    def level() -> ClaimCheck:
        return _claim_check(Ratio(1.0, 0.99, 1.01, paired=True, n=40))

    def unclear() -> ClaimCheck:
        return _claim_check(Ratio(1.1, 0.8, 1.5, paired=True, n=40))

    assert [f().finding for f in (faster, slower, level, unclear)] == \
        [Finding.FASTER, Finding.SLOWER, Finding.SAME, Finding.UNCLEAR]
    cases = {
        "holds": [faster(), faster()],
        "slower": [slower()],
        "level": [level()],
        "not faster": [level(), slower()],
        "unclear": [unclear()],
        "mixed": [faster(), faster(), slower(), slower()],
        "holds, else unclear": [faster(), unclear()],
        "mostly unclear": [faster(), unclear(), unclear()],
    }
    lines = {}
    for name, checks in cases.items():
        cr = _result(*checks)
        lines[name] = f"{cr.verdict('box')}: {cr.summary_text('box')}"
    assert lines == {
        "holds": "holds: faster in both scenarios (2×)",
        "slower": "does not hold: slower in the one scenario measured (0.5×)",
        "level": "does not hold: the same in the one scenario measured (1×)",
        "not faster": "does not hold: the same in 1 of 2 scenarios (1×); slower in 1, for batch 2 (0.5×)",
        "unclear": "unclear: unclear in the one scenario measured (1.1×)",
        "mixed": "holds in some cases: depends on the case: faster for batch 1 and batch 2 (2×); "
                 "slower for batch 4 and batch 8 (0.5×)",
        "holds, else unclear": "holds: faster in 1 of 2 scenarios (2×); unclear in 1, for batch 2 (1.1×)",
        "mostly unclear": "unclear: unclear in 2 of 3 scenarios (1.1×); faster in 1, for batch 1 (2×)",
    }
    assert len(set(lines.values())) == len(lines)


def test_a_scenario_with_unavailable_cases_gives_their_budget_back() -> None:
    """budget_s is per planned slot: cases that never became ready take their share with
    them, so the remaining slots do not get more time than in a full scenario."""
    from types import SimpleNamespace

    from tfperf.arrival import BACK_TO_BACK
    from tfperf.measure.supervise.scenario import ScenarioRun

    tasks = [SimpleNamespace(id=f"t{i}", case=SimpleNamespace(group_key=f"g{i % 2}", arrival=BACK_TO_BACK))
             for i in range(4)]
    run = ScenarioRun(None, tasks, tasks[0], RoundRule(budget_s=50.0), "seed", [],  # type: ignore[arg-type]
                      on_progress=lambda *a: None)
    run.prepared = {"t0": {}, "t2": {}}           # t1 and t3 unavailable: 2 + A/A of 5 slots live
    run._scale_budget()
    assert run.rule.budget_s == pytest.approx(50.0 * 3 / 5)
    run.prepared = {t.id: {} for t in tasks}
    run.rule = RoundRule(budget_s=50.0)
    run._scale_budget()
    assert run.rule.budget_s == 50.0


def test_a_pattern_scenario_has_the_budget_for_its_minimum_rounds_of_blocks() -> None:
    """A block of 20 requests after 10 ms idle lasts 0.2 s and more, not ``min_sample_s``: the
    budget covers ``min_rounds`` rounds of the blocks the prepared cases make."""
    from types import SimpleNamespace

    from tfperf.arrival import Arrival, Pattern
    from tfperf.measure.supervise.scenario import ScenarioRun

    idle = Arrival(Pattern.IDLE, gap_s=0.01)
    tasks = [SimpleNamespace(id=f"t{i}", case=SimpleNamespace(group_key="g", arrival=idle)) for i in range(2)]
    run = ScenarioRun(None, tasks, tasks[0], RoundRule(budget_s=1.0, min_rounds=10), "seed", [],  # type: ignore[arg-type]
                      on_progress=lambda *a: None)
    run.prepared = {t.id: {} for t in tasks}  # type: ignore[misc]
    run.arrival_records = {t.id: {**idle.record(), "service_s": 0.001 * (i + 1)} for i, t in enumerate(tasks)}
    run._scale_budget()
    # t0 twice (its A/A block) at 20 x 11 ms, t1 at 20 x 12 ms, each after one untimed call.
    assert run.rule.budget_s == pytest.approx(10 * (2 * (20 * 0.011 + 0.001) + 20 * 0.012 + 0.002))
