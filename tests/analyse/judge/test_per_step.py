"""A call's fixed cost apart from its cost per step (analyse/judge/per_step.py), claims judged per
step (``compare: per_step``) and the ``perstep`` block, on the frozen fixture
tests/fixtures/site/per_step/ (made by make_per_step_fixture.py: known costs, see COSTS
there). No TensorFlow."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tfperf import stats
from tfperf.analyse import analyse
from tfperf.analyse.dataset import load_topics
from tfperf.analyse.judge.claims import ClaimResult, check_claim
from tfperf.analyse.judge.effects import Finding, Verdict
from tfperf.analyse.judge.per_step import fit_samples, line, per_step_ratio, step_groups, step_scenarios
from tfperf.analyse.records import Measurement
from tfperf.cases import PARAM_KEY, with_step_param
from tfperf.cases.topic import load_topic
from tfperf.errors import CaseGridError
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import DirectiveError, parse_block
from tfperf.render.page.embed import SvgCache

ROOT = Path(__file__).resolve().parents[3]
FIX = Path(__file__).parents[2] / "fixtures" / "site" / "per_step"
RESULTS, SNIPPETS = FIX / "data" / "results", FIX / "snippets"
T = "fixture_per_step"

sys.path.insert(0, str(Path(__file__).parents[2] / "fixtures" / "site"))
from make_per_step_fixture import COSTS, SCENARIOS


@pytest.fixture(scope="module")
def ds():  # type: ignore[no-untyped-def]
    return analyse(RESULTS, SNIPPETS)


def _render(ds, text: str = f"perstep {T}") -> str:  # type: ignore[no-untyped-def]
    return str(render_block(parse_block(text), Context(ds, prefix="", svgs=SvgCache(None))))


def _changed(tmp_path: Path, variant: str, steps: int, factor: float):  # type: ignore[no-untyped-def]
    """The fixture with one result's samples (and summary) scaled by ``factor``."""
    root = tmp_path / "results"
    shutil.copytree(RESULTS, root)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    for r in doc["results"]:
        if r["variant"] == variant and r["params"]["steps"] == steps:
            r["timing"]["samples"] = [x * factor for x in r["timing"]["samples"]]
            r["timing"]["summary"] = {k: (v * factor if isinstance(v, float) else v)
                                      for k, v in r["timing"]["summary"].items()}
    path.write_text(json.dumps(doc))
    return analyse(root, SNIPPETS)


# -- the fit -------------------------------------------------------------------------------

def test_line_through_two_points() -> None:
    fixed, per = line([2, 32], [0.052, 0.082])
    assert fixed == pytest.approx(0.050) and per == pytest.approx(0.001)
    fixed, per = line([1, 2, 3], [2.0, 3.0, 4.0])          # least squares, exact on a line
    assert fixed == pytest.approx(1.0) and per == pytest.approx(1.0)


def test_a_fit_needs_two_step_counts() -> None:
    with pytest.raises(ValueError, match="two step counts"):
        fit_samples({2: [0.1, 0.2]})
    with pytest.raises(ValueError, match="two step counts"):
        fit_samples({2: [0.1], 32: []})


def test_the_fit_recovers_the_designed_costs_within_its_ci(ds) -> None:  # type: ignore[no-untyped-def]
    (group,) = step_groups(ds.current, T, "steps")
    assert group.steps == (2, 32) and group.params == {"model": "small"} and group.runner == "fixture-a"
    assert {s.variant for s in group.fitted} == set(COSTS)
    for s in group.series:
        fixed, per = COSTS[s.variant]
        fit = s.fit
        assert fit is not None and s.problem is None and fit.steps == (2, 32) and fit.n == (25, 25)
        assert fit.fixed.point == pytest.approx(fixed, rel=1e-9)
        assert fit.per_step.point == pytest.approx(per, rel=1e-9)
        assert fit.fixed.low < fixed < fit.fixed.high
        assert fit.per_step.low < per < fit.per_step.high
        assert fit.breakeven is not None and fit.breakeven.point == pytest.approx(fixed / per, rel=1e-9)
        assert fit.breakeven.low <= fit.breakeven.point <= fit.breakeven.high
        assert fit.fixed_share(2) == pytest.approx(fixed / (fixed + 2 * per), rel=1e-9)
    # the two step counts were measured 7 minutes apart (their median finish times)
    assert group.apart_s == pytest.approx(7 * 60)


def test_the_fit_is_deterministic_and_its_ci_widens_with_noise() -> None:
    rng = np.random.default_rng(1)
    quiet = {k: list(k * 1e-3 * (1 + 0.001 * rng.standard_normal(40))) for k in (2, 32)}
    noisy = {k: [x * (1 + 0.05 * (i % 7 - 3)) for i, x in enumerate(v)] for k, v in quiet.items()}
    a, b = fit_samples(quiet), fit_samples(quiet)
    assert a == b
    n = fit_samples(noisy)
    assert n.per_step.high - n.per_step.low > 5 * (a.per_step.high - a.per_step.low)


def test_no_per_step_cost_gives_no_breakeven() -> None:
    fit = fit_samples({2: [0.05, 0.0501, 0.0499], 32: [0.0499, 0.05, 0.0498]})
    assert fit.per_step.point < 0 and fit.breakeven is None


def test_a_failed_step_count_leaves_the_series_unfitted(tmp_path: Path) -> None:
    root = tmp_path / "results"
    shutil.copytree(RESULTS, root)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    for r in doc["results"]:
        if r["variant"] == "batch" and r["params"]["steps"] == 32:
            r.update(status="error", error="Traceback\nRuntimeError: boom", timing=None)
    path.write_text(json.dumps(doc))
    broken = analyse(root, SNIPPETS)
    (group,) = step_groups(broken.current, T, "steps")
    batch = next(s for s in group.series if s.variant == "batch")
    assert batch.fit is None and batch.problem == "error at 1 of 2 step counts"
    html = _render(broken)
    assert "Not fitted:" in html and "error at 1 of 2 step counts" in html
    res = {c.id: c for c in broken.claim_results(T)}
    (check,) = res["batch_beats_fit"].checks
    assert check.finding == Finding.NO_DATA and [m.variant for m in check.failed] == ["batch"]
    # the claim says it failed, with the error, rather than "no results yet"
    assert res["batch_beats_fit"].verdict_text() == "failed: 1 case (first error: error: RuntimeError: boom)"


# -- claims judged per step ------------------------------------------------------------------

def _judged(cr: ClaimResult) -> tuple[Finding, Verdict | None]:
    """The claim's finding on the fixture's one runner and whether its source's answer holds."""
    assert cr.runners == ["fixture-a"]
    return cr.summary("fixture-a").finding, cr.verdict("fixture-a")


def test_a_per_step_claim_gets_the_verdict_the_per_call_one_does_not(ds) -> None:  # type: ignore[no-untyped-def]
    res = {c.id: c for c in ds.claim_results(T)}
    # per call, train_on_batch wins at both step counts (fit's 50 ms start-up decides) ...
    assert _judged(res["batch_beats_fit_per_call"]) == (Finding.FASTER, Verdict.HOLDS)
    assert len(res["batch_beats_fit_per_call"].checks) == 2
    # ... per step it is half as fast
    per_step = res["batch_beats_fit"]
    assert _judged(per_step) == (Finding.SLOWER, Verdict.DOES_NOT_HOLD)
    (check,) = per_step.checks
    assert check.ratio is not None and check.ratio.point == pytest.approx(COSTS["fit"][1] / COSTS["batch"][1])
    assert check.ratio.low <= check.ratio.point <= check.ratio.high and check.ratio.paired
    assert check.scenario.params == {"model": "small"}
    assert check.note == "per step, from calls of 2 and 32 steps (separate scenarios, not measured side by side)"
    # fit on a dataset: slower per call (its 80 ms start-up), 1.25x as fast per step
    assert _judged(res["dataset_beats_fit_per_call"]) == (Finding.SLOWER, Verdict.DOES_NOT_HOLD)
    assert _judged(res["dataset_beats_fit"]) == (Finding.FASTER, Verdict.HOLDS)
    (check,) = res["dataset_beats_fit"].checks
    assert check.ratio is not None and check.ratio.point == pytest.approx(1.25)
    assert check.ratio.low > 1.05 and check.noise is not None and check.noise.value == pytest.approx(0.02)


def test_claims_without_compare_are_judged_per_call_as_before(ds) -> None:  # type: ignore[no-untyped-def]
    res = {c.id: c for c in ds.claim_results(T)}
    for ch in res["batch_beats_fit_per_call"].checks:
        f, s = ch.scenario.variants["batch"], ch.scenario.variants["fit"]
        assert ch.ratio == ds.cache.speedup(s, f)          # the per-call speedup, paired by round
        assert ch.note is None and "steps" in ch.scenario.params
    claim = ds.claim(T, "batch_beats_fit_per_call")
    assert PARAM_KEY not in claim and with_step_param(claim, "steps") is claim


def test_joint_resampling_of_rounds_is_tighter_than_unpaired(ds) -> None:  # type: ignore[no-untyped-def]
    (g,) = step_scenarios(ds.scenarios(T), "steps")
    fit, dataset = g.sides("fit", "dataset")
    paired = per_step_ratio(fit, dataset)
    alone = {k: dataclasses.replace(m, interleave=None) for k, m in dataset.items()}
    unpaired = per_step_ratio(fit, alone)
    assert paired.paired and not unpaired.paired
    assert paired.point == pytest.approx(unpaired.point)
    assert paired.high - paired.low < (unpaired.high - unpaired.low) / 1.5


def test_a_per_step_claim_loaded_without_its_parameter_is_an_error(ds) -> None:  # type: ignore[no-untyped-def]
    claim = {k: v for k, v in ds.claim(T, "batch_beats_fit").items() if k != PARAM_KEY}
    with pytest.raises(ValueError, match="per_step parameter"):
        check_claim(claim, ds.scenarios(T), ds.noise, ds.cache)


def test_one_step_count_gives_no_per_step_check(ds) -> None:  # type: ignore[no-untyped-def]
    claim = {**ds.claim(T, "batch_beats_fit"), "where": {"steps": [2]}}
    assert check_claim(claim, ds.scenarios(T), ds.noise, ds.cache).checks == []


def test_train_step_judges_its_fit_claims_per_step() -> None:
    topics, errors = load_topics(ROOT / "snippets")
    assert errors == []
    info = topics["train_step"]
    assert info.per_step == "steps"
    per_step = {str(c["id"]) for c in info.claims if c.get(PARAM_KEY) == "steps"}
    assert per_step == {"train_on_batch_beats_fit_small", "dataset_beats_numpy_fit", "function_beats_fit"}


# -- the topic YAML --------------------------------------------------------------------------

TOPIC: dict[str, Any] = {
    "topic": "t", "reference": "a", "default": "a",
    "variants": {"a": {"fn": "f"}, "b": {"fn": "g"}},
    "per_step": {"param": "steps"},
    "profiles": {"quick": {"params": {"steps": [2, 32]}, "settings": {"keras": ["3"]}}},
    "claims": [{"id": "b_beats_a", "candidate": "b", "baseline": "a", "compare": "per_step"}],
}


def _load(tmp_path: Path, data: dict[str, Any]):  # type: ignore[no-untyped-def]
    (tmp_path / "t.py").write_text("def setup(p):\n    return {}\n")
    path = tmp_path / "t.yaml"
    path.write_text(json.dumps(data))
    return load_topic(path)


def test_per_step_keys_load_and_leave_the_snippet_hash_alone(tmp_path: Path) -> None:
    with_keys = _load(tmp_path, TOPIC).snippet_hash
    plain = {**TOPIC, "claims": [{k: v for k, v in TOPIC["claims"][0].items() if k != "compare"}]}
    del plain["per_step"]
    assert _load(tmp_path, plain).snippet_hash == with_keys
    assert _load(tmp_path, {**TOPIC, "claims": [{**TOPIC["claims"][0], "compare": "per_call"}]}).name == "t"


@pytest.mark.parametrize("change, field, words", [
    ({"per_step": None, "claims": TOPIC["claims"]}, "claims.0.compare", "needs the topic's `per_step"),
    ({"claims": [{**TOPIC["claims"][0], "compare": "per_stp"}]}, "claims.0.compare", "not one of per_call, per_step"),
    ({"per_step": {"param": "stpes"}}, "per_step.param", "not a parameter of any profile"),
    ({"per_step": {}}, "per_step.param", "missing"),
    ({"per_step": {"param": "steps", "unit": "step"}}, "per_step.unit", "unknown key"),
    ({"profiles": {"quick": {"params": {"steps": [2, "many"]}}}}, "per_step.param", "positive integers"),
    ({"settings_claims": [{"id": "s", "candidate": "a", "baseline": "a", "candidate_settings": {"keras": "3"},
                           "baseline_settings": {"keras": "2"}, "compare": "per_step"}]},
     "settings_claims.0.compare", "compares two variants"),
])
def test_a_wrong_per_step_key_is_rejected_with_its_path(tmp_path: Path, change: dict[str, Any], field: str,
                                                        words: str) -> None:
    data = {k: v for k, v in {**TOPIC, **change}.items() if v is not None}
    with pytest.raises(CaseGridError) as err:
        _load(tmp_path, data)
    assert err.value.field == field and words in err.value.problem


# -- the block ---------------------------------------------------------------------------------

def test_the_block_shows_fixed_and_per_step_cost_and_says_what_it_means(ds) -> None:  # type: ignore[no-untyped-def]
    html = _render(ds)
    for header in ("fixed cost per call", "cost per step", "break-even (steps per call)",
                   "fixed share of a call of 2 steps"):
        assert header in html
    assert html.count("<tr>") == 1 + len(COSTS)
    assert "50 ms<br><small>95% CI" in html and "1 ms<br><small>95% CI" in html and "80 ms<br><small>95% CI" in html
    assert "about 7 minutes apart" in html and "calls of 2 and 32 steps" in html
    said = ("fit on a dataset (keras=3) pays the largest fixed cost, 80 ms per call, as much as 100 of its own "
            "steps (98% of a call of 2 steps), and a loop of steps (keras=3) the smallest (500 µs); per step, "
            "fit on a dataset (keras=3) is the cheapest (800 µs) and train_on_batch (keras=3) the dearest (2 ms).")
    assert said in html
    assert "fixture-a/full.json" in html                 # provenance


def test_the_sentence_follows_the_data(ds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    before = _render(ds)
    # fit on numpy 3x slower at 32 steps: per step (246 - 52) / 30 ms, the dearest step
    after = _render(_changed(tmp_path, "fit", 32, 3.0))
    assert after != before
    assert "fit on numpy (keras=3) the dearest" in after and "train_on_batch (keras=3) the dearest" in before


def test_the_block_needs_a_topic_with_per_step(ds) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DirectiveError, match="declares no per_step"):
        _render(ds, "perstep nope")
    with pytest.raises(DirectiveError, match="names no topic"):
        _render(ds, "perstep")


def test_the_fixture_passes_the_store() -> None:
    from tfperf.analyse.records import load_results

    docs, errors = load_results(RESULTS)
    assert errors == [] and len(docs) == 1
    assert {r["finished_at"] for r in docs[0][1]["results"]} == {when for _iid, when in SCENARIOS.values()}


def test_stored_samples_are_measurements_of_known_costs() -> None:
    """The fixture as the fit reads it (guards the generator): medians exactly fixed + steps x per_step."""
    doc = json.loads((RESULTS / "fixture-a" / "full.json").read_text())
    for r in doc["results"]:
        fixed, per = COSTS[r["variant"]]
        assert stats.median(r["timing"]["samples"]) == pytest.approx(fixed + r["params"]["steps"] * per, rel=1e-12)
    assert all(isinstance(m, Measurement) for m in analyse(RESULTS, SNIPPETS).current)


def test_a_fixed_cost_within_the_noise_reads_as_about_zero(tmp_path: Path) -> None:
    """A fixed cost whose 95% CI reaches below 0 is "≈ 0 (within noise)", its estimate and
    interval kept in the cell's small type, never "-679 µs (95% CI -1.83 ms – 1.28 ms)"."""
    # the loop's 2-step calls 13% faster: its line meets the time axis at about 0 (0.01 ms)
    ds = _changed(tmp_path, "loop", 2, 0.87)
    loop = next(s for g in step_groups(ds.current, T, "steps") for s in g.series if s.variant == "loop")
    assert loop.fit is not None and loop.fit.fixed.low <= 0 <= loop.fit.fixed.high
    html = _render(ds)
    row = next(r for r in html.split("<tr>") if "a loop of steps" in r)
    assert "≈ 0 (within noise)<br><small>estimate " in row and ", 95% CI " in row, row
    assert "(95% CI -" not in html and "e+0" not in html


def test_seconds_round_before_choosing_the_unit() -> None:
    from tfperf.render.page.html import seconds

    assert seconds(0.000999999) == "1 ms" and seconds(0.0009994) == "999 µs" and seconds(0.05) == "50 ms"


def test_a_fixed_cost_below_zero_is_flagged(tmp_path: Path) -> None:
    # the loop's 2-step calls 30% faster: its line crosses 0 well below, which no call can
    ds = _changed(tmp_path, "loop", 2, 0.7)
    loop = next(s for g in step_groups(ds.current, T, "steps") for s in g.series if s.variant == "loop")
    assert loop.fit is not None and loop.fit.fixed.high < 0
    html = _render(ds)
    assert "1 row has a fixed cost below 0 beyond the CI" in html
    # the cell says so instead of printing a negative cost; the estimate and interval stay, in small type
    assert "below 0: the line is off<br><small>estimate \u2212" in html
    assert "and 1 of the 4 rows has no fixed cost beyond the noise (the 95% CI reaches 0)" in html
    assert "a loop of steps (keras=3) the smallest" not in html


def test_a_per_step_winner_with_wrong_output_does_not_hold(tmp_path: Path) -> None:
    """The candidate is 1.25x as fast per step, but its output at one of the step counts is
    outside tolerance: no result for the scenario, the claim does not hold, and its words
    say why."""
    root = tmp_path / "results"
    shutil.copytree(RESULTS, root)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    for r in doc["results"]:
        if r["variant"] == "dataset" and r["params"]["steps"] == 32:
            r["output"].update(within_tolerance=False, max_abs_diff=0.5)
    path.write_text(json.dumps(doc))
    res = {c.id: c for c in analyse(root, SNIPPETS).claim_results(T)}
    cr = res["dataset_beats_fit"]
    (check,) = cr.checks
    assert check.wrong_output and check.finding == Finding.NO_DATA
    assert check.note == "wrong output: dataset's output is outside tolerance"
    assert cr.verdict("fixture-a") == Verdict.DOES_NOT_HOLD and cr.verdict_text() == "does not hold"
    text = cr.summary_text("fixture-a")
    assert text.startswith("wrong output (outside tolerance) in ")
    assert "all 1 " not in text, text            # one scenario is "the one", not "all 1"
