"""Analysis on the frozen synthetic fixture (tests/fixtures/site/analysis/, see make_fixture.py):
findings faster, slower and the same, and the source's claim holding or not; stale results;
a wrong-output variant never recommended; a finding that changes between versions;
malformed files skipped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tfperf.analyse import analyse
from tfperf.analyse.judge.effects import Finding, Verdict
from tfperf.analyse.judge.scenarios import ASSUMED_NOISE, noise_floor
from tfperf.analyse.views.answers import findings
from tfperf.store.record_types import key_hash

FIX = Path(__file__).parents[1] / "fixtures" / "site" / "analysis"
TOPIC = "fixture_topic"


@pytest.fixture(scope="module")
def ds():  # type: ignore[no-untyped-def]
    return analyse(FIX / "data" / "results", FIX / "snippets")


def _claim(ds, cid):  # type: ignore[no-untyped-def]
    return ds.claim_result(TOPIC, cid)


def test_loads_cleanly(ds) -> None:  # type: ignore[no-untyped-def]
    assert ds.errors == []
    assert set(ds.runners) == {"fixture-a", "fixture-b"}


def test_findings_and_whether_the_claim_holds(ds) -> None:  # type: ignore[no-untyped-def]
    # fixture-a: fast is 2x; fixture-b: level (CI 1.00-1.02, inside the 5% margin): the same.
    fast = _claim(ds, "fast_beats_default")
    assert {r: fast.summary(r).finding for r in fast.runners} == {"fixture-a": Finding.FASTER,
                                                                  "fixture-b": Finding.SAME}
    assert {r: fast.verdict(r) for r in fast.runners} == {"fixture-a": Verdict.HOLDS,
                                                          "fixture-b": Verdict.DOES_NOT_HOLD}
    assert fast.summary_text("fixture-a") == "faster in both scenarios (2×)"
    assert fast.verdict_text() == "holds on 1, does not hold on 1 of 2 runners"
    # the other way round: slower where fast is faster, so the claim does not hold
    back = _claim(ds, "default_beats_fast")
    assert back.summary("fixture-a").finding == Finding.SLOWER and back.verdict("fixture-a") == Verdict.DOES_NOT_HOLD
    same = _claim(ds, "same_beats_default")
    assert {same.summary(r).finding for r in same.runners} == {Finding.SAME}
    assert Verdict.HOLDS not in {same.verdict(r) for r in same.runners}
    # the where filter: only the small scenario on each runner
    small = _claim(ds, "fast_beats_default_small")
    assert {c.scenario.params["size"] for c in small.checks} == {"small"}


def test_noise_floor_from_aa_pairs(ds) -> None:  # type: ignore[no-untyped-def]
    assert noise_floor(ds.noise, "fixture-a", "keras=3").value == pytest.approx(0.02)
    assert noise_floor(ds.noise, "fixture-b", "keras=2").value == pytest.approx(0.03)   # falls back to the runner
    assert noise_floor(ds.noise, "nobody", "keras=3").value == ASSUMED_NOISE


def test_wrong_output_never_recommended(ds) -> None:  # type: ignore[no-untyped-def]
    recs = ds.recommendations(TOPIC)
    assert recs
    for r in recs:
        assert r.best != "wrong"
        assert r.fastest_overall == "wrong"          # it IS the fastest...
        assert "outside tolerance" in r.excluded["wrong"]   # ...and shown as excluded
    a_small = next(r for r in recs if r.scenario.runner == "fixture-a" and r.scenario.params["size"] == "small")
    assert a_small.best == "fast" and a_small.finding == Finding.FASTER
    assert 1.9 < a_small.speedup.point < 2.1 and a_small.speedup.low < a_small.speedup.point < a_small.speedup.high


def test_failure_shown_as_exclusion(ds) -> None:  # type: ignore[no-untyped-def]
    b_big = next(r for r in ds.recommendations(TOPIC)
                 if r.scenario.runner == "fixture-b" and r.scenario.params["size"] == "big")
    assert b_big.excluded["same"].startswith("error:")


def test_stale_marked_not_hidden(ds) -> None:  # type: ignore[no-untyped-def]
    stale = [m for m in ds.current if m.stale]
    assert [(m.runner, m.params["size"], m.variant) for m in stale] == [("fixture-b", "big", "fast")]
    assert "snippet" in (stale[0].stale_reason or "")
    b_big = next(r for r in ds.recommendations(TOPIC)
                 if r.scenario.runner == "fixture-b" and r.scenario.params["size"] == "big")
    assert b_big.stale and "fast" in b_big.scenario.variants
    assert all(not m.stale for m in ds.history)


def test_current_prefers_non_stale(ds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "results"
    shutil.copytree(FIX / "data" / "results", root)
    path = root / "fixture-b" / "full.json"
    doc = json.loads(path.read_text())
    newer_stale = json.loads(json.dumps(next(r for r in doc["results"] if r["variant"] == "slow_default")))
    newer_stale["key"]["snippet_hash"] = "1" * 16
    newer_stale["key_hash"] = key_hash(newer_stale["key"])
    newer_stale["finished_at"] = "2030-01-01T00:00:00+00:00"
    doc["results"].append(newer_stale)
    path.write_text(json.dumps(doc))
    ds2 = analyse(root, FIX / "snippets")
    assert ds2.errors == []
    cur = [m for m in ds2.current if m.runner == "fixture-b" and m.case_id == newer_stale["case_id"]]
    assert len(cur) == 1 and not cur[0].stale
    assert sum(1 for m in ds2.measurements if m.case_id == newer_stale["case_id"] and m.runner == "fixture-b") == 2


def test_flipped_verdict_between_versions(ds) -> None:  # type: ignore[no-untyped-def]
    assert "fast_beats_default" in ds.changed_claims(TOPIC)
    assert "same_beats_default" not in ds.changed_claims(TOPIC)
    assert ds.versions(TOPIC) == ["TF 2.20.0", "TF 2.21.0"]     # the release; Keras is a setting
    f = next(f for f in findings(ds) if f.answer.claim_id == "fast_beats_default")
    assert f.changed and f.answer.verdict_text == "holds on 1, does not hold on 1 of 2 runners"


def test_malformed_file_skipped_with_file_and_field(tmp_path: Path) -> None:
    root = tmp_path / "results"
    shutil.copytree(FIX / "data" / "results", root)
    (root / "broken").mkdir()
    (root / "broken" / "full.json").write_text("{not json", encoding="utf-8")
    doc = json.loads((root / "fixture-a" / "full.json").read_text())
    doc["results"][0]["timing"]["summary"]["median"] = -1.0
    (root / "negative").mkdir()
    (root / "negative" / "full.json").write_text(json.dumps(doc), encoding="utf-8")
    ds2 = analyse(root, FIX / "snippets")
    paths = {Path(e.path).parent.name: e for e in ds2.errors}
    assert set(paths) == {"broken", "negative"}
    assert "median" in paths["negative"].field
    assert set(ds2.runners) == {"fixture-a", "fixture-b"}     # the good files still load


def test_empty_data(tmp_path: Path) -> None:
    ds2 = analyse(tmp_path / "nothing", FIX / "snippets")
    assert ds2.measurements == [] and ds2.errors == []
    assert ds2.recommendations(TOPIC) == []
    assert _claim(ds2, "fast_beats_default").verdict_text() == "no results yet"


def test_a_tie_names_no_winner(tmp_path: Path) -> None:
    """Give the fast variant the default's very samples on runner A, small size: it is no
    longer faster, so the recommendation is a tie between them (no winner named), in the
    analysis and in the rendered table; runner A's big size keeps its single winner."""
    from tfperf.render.blocks.blocks import Context, render_block
    from tfperf.render.page.context import parse_block
    from tfperf.render.page.embed import SvgCache

    root = tmp_path / "results"
    shutil.copytree(FIX / "data" / "results", root)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    mine = [r for r in doc["results"] if r["topic"] == TOPIC and r["params"]["size"] == "small" and r["timing"]]
    default = next(r for r in mine if r["variant"] == "slow_default")
    for r in mine:
        if r["variant"] in ("fast", "same"):
            r["timing"] = json.loads(json.dumps(default["timing"]))
    path.write_text(json.dumps(doc))
    ds = analyse(root, FIX / "snippets")
    recs = ds.recommendations(TOPIC)
    small = next(r for r in recs if r.scenario.runner == "fixture-a" and r.scenario.params["size"] == "small")
    assert {small.best, *small.tied} == {"slow_default", "fast", "same"}
    others = [r for r in recs if r is not small and r.best == "fast" and r.finding == Finding.FASTER]
    assert others and all(not r.tied for r in others)
    html = str(render_block(parse_block(f"recommendations {TOPIC}"), Context(ds, prefix="", svgs=SvgCache(None))))
    # Runner B's fast variant is level with the default by design (both sizes): ties too.
    assert html.count("no clear winner: ") == 3 and "none faster than the others by more than" in html


def test_do_this_names_the_call_its_typical_speedup_and_where_it_does_not_pay(ds) -> None:  # type: ignore[no-untyped-def]
    """On the fixture, "fast" beats the default 2x on runner A and is the same on runner B
    (by design): the advice names it, with runner B's finding in words; the wrong-output
    variant, though fastest, is never advised."""
    from tfperf.analyse.views.advice import advise
    from tfperf.render.blocks.blocks import Context, render_block
    from tfperf.render.page.context import parse_block
    from tfperf.render.page.embed import SvgCache

    a = advise(ds, TOPIC)
    assert a is not None and a.use == "fast" and a.default == "slow_default"
    by = {r.runner: r for r in a.runners}
    assert by["fixture-a"].summary.finding == Finding.FASTER and 1.9 < (by["fixture-a"].typical or 0) < 2.1
    assert by["fixture-b"].summary.finding == Finding.SAME and by["fixture-b"].typical is None
    html = str(render_block(parse_block(f"dothis {TOPIC}"), Context(ds, prefix="", svgs=SvgCache(None))))
    assert "Do this" in html and "the fast way" in html and "typically 2×, faster in both scenarios" in html
    assert "the same in both scenarios (1.01×–1.02×)" in html            # where it does not pay, in words
    assert "fastest but wrong" not in html


def test_do_this_does_not_advise_a_variant_that_wins_one_scenario_where_the_default_wins_the_rest() -> None:
    """As mixed_precision's page did: mixed_float16 fastest in 1 of 18 scenarios, float32 (the
    default) in the other 17, and the page said "Use mixed_float16 instead of float32"."""
    from types import SimpleNamespace

    from tfperf.analyse.views.advice import advise

    def rec(best: str, finding: Finding, tied: tuple[str, ...] = ()) -> SimpleNamespace:
        return SimpleNamespace(best=best, default="float32", tied=tied, finding=finding)

    recs = [rec("float16", Finding.FASTER)] + [rec("float32", Finding.SAME)] * 17
    ds = SimpleNamespace(recommendations=lambda _t: recs)
    a = advise(ds, "t")  # type: ignore[arg-type]
    assert a is not None and a.use is None
    # Winning as many scenarios as the default keeps (a tie counts for the default) is advice.
    recs[:] = [rec("fast", Finding.FASTER)] * 2 + [rec("fast", Finding.SAME, tied=("float32",))] * 2
    assert _winner_of(ds) == "fast"


def _winner_of(ds: object) -> str | None:
    from tfperf.analyse.views.advice import _winner

    return _winner(ds, "t")  # type: ignore[arg-type]


def test_a_claim_that_failed_on_one_runner_says_so_beside_the_others_verdict(tmp_path: Path) -> None:
    """Runner B's "fast" cases all fail: the claim reads runner A's verdict, then "no result
    on 1 runner" with the first error, so the failure is not hidden by the other's verdict."""
    root = tmp_path / "results"
    shutil.copytree(FIX / "data" / "results", root)
    path = root / "fixture-b" / "full.json"
    doc = json.loads(path.read_text())
    for r in doc["results"]:
        if r["topic"] == TOPIC and r["variant"] == "fast":
            r.update(status="error", error="RuntimeError: boom on B", timing=None, first_call_s=None, output=None)
    path.write_text(json.dumps(doc))
    ds2 = analyse(root, FIX / "snippets")
    claim = _claim(ds2, "fast_beats_default")
    assert claim.runners_with_data == ["fixture-a"]
    assert claim.verdict_text().startswith("holds; no result on 1 runner (failed: ") and "boom on B" in claim.verdict_text()
    assert claim.summary_text("fixture-b").startswith("no result in 2 (failed: ") and "boom on B" in claim.summary_text("fixture-b")
