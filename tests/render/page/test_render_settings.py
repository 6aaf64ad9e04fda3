"""Settings comparisons (cpu_threads-like topics): speedups against baseline_settings and
their findings, settings_claims' findings and whether their sources' claims hold, the
settings chart and table, and prose that branches on a finding. Frozen fixture:
tests/fixtures/site/gaps/ (made by tests/fixtures/site/make_gaps_fixture.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfperf.analyse import analyse
from tfperf.analyse.judge.effects import Finding, Verdict
from tfperf.analyse.judge.scenarios import baseline_of
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.builder import ChartError
from tfperf.render.page.context import DirectiveError, parse_block
from tfperf.render.page.embed import SvgCache
from tfperf.render.page.settings_chart import settings_chart_spec, x_positions

FIX = Path(__file__).parents[2] / "fixtures" / "site" / "gaps"
T = "fixture_settings"


@pytest.fixture(scope="module")
def ds():  # type: ignore[no-untyped-def]
    return analyse(FIX / "data" / "results", FIX / "snippets")


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    shutil.copytree(FIX / "data" / "results", root)
    return root


def _render(ds, text: str) -> str:  # type: ignore[no-untyped-def]
    return str(render_block(parse_block(text), Context(ds, prefix="../../", svgs=SvgCache(None))))


def _verdicts(cr) -> dict[str, Verdict | None]:  # type: ignore[no-untyped-def]
    return {r: cr.verdict(r) for r in cr.runners}


def _findings(cr) -> dict[str, Finding]:  # type: ignore[no-untyped-def]
    return {r: cr.summary(r).finding for r in cr.runners}


def test_baseline_keeps_settings_the_baseline_does_not_name() -> None:
    assert baseline_of({"threads": "2", "onednn": "0", "keras": "2"}, {"threads": "default", "onednn": "1"}) == \
        {"threads": "default", "onednn": "1", "keras": "2"}


def test_speedups_against_baseline_settings(ds) -> None:  # type: ignore[no-untyped-def]
    sps = {(s.runner, s.measurement.settings_id, s.params["batch"]): s for s in ds.settings_speedups(T)}
    base = sps[("fixture-a", "onednn=1,threads=default", 64)]
    assert base.is_baseline and base.ratio is not None and base.ratio.point == 1.0 and base.finding is None
    off = sps[("fixture-a", "onednn=0,threads=default", 64)]
    assert off.baseline is base.measurement
    assert off.ratio is not None and off.ratio.point == pytest.approx(0.5, rel=0.02)
    assert off.ratio.low <= off.ratio.point <= off.ratio.high
    assert off.finding == Finding.SLOWER               # its whole CI below the baseline, beyond the margin
    one = sps[("fixture-a", "onednn=1,threads=1", 64)]
    assert one.ratio is not None and one.ratio.point == pytest.approx(1 / 1.8, rel=0.02)
    assert one.finding == Finding.SLOWER
    omp = sps[("fixture-b", "onednn=1,threads=omp1", 1)]
    assert omp.ratio is not None and 0.95 < omp.ratio.low <= omp.ratio.high < 1.05
    assert omp.finding == Finding.SAME                 # its whole CI within the ±5% margin
    # runner A measured 4 threads, runner B (2 cores) did not
    assert ("fixture-a", "onednn=1,threads=4", 1) in sps and ("fixture-b", "onednn=1,threads=4", 1) not in sps


def test_settings_claim_findings_and_verdicts(ds) -> None:  # type: ignore[no-untyped-def]
    res = {c.id: c for c in ds.claim_results(T)}
    assert _findings(res["onednn_faster"]) == {"fixture-a": Finding.FASTER, "fixture-b": Finding.FASTER}
    assert _verdicts(res["onednn_faster"]) == {"fixture-a": Verdict.HOLDS, "fixture-b": Verdict.HOLDS}
    assert len(res["onednn_faster"].checks) == 4       # 2 runners x 2 batches, threads=default only
    assert all(c.scenario.settings == {"threads": "default"} for c in res["onednn_faster"].checks)
    assert res["one_thread_slower"].verdict_text() == "holds on both runners"
    assert [c.scenario.params["batch"] for c in res["one_thread_slower"].checks] == [64, 64]
    # Level within the margin: the same, so the source's "faster" does not hold ...
    omp = res["omp_faster"]
    assert {c.finding for c in omp.checks} == {Finding.SAME}
    assert set(_findings(omp).values()) == {Finding.SAME} and set(_verdicts(omp).values()) == {Verdict.DOES_NOT_HOLD}
    assert omp.summary_text("fixture-a") == "the same in both scenarios (1×)"
    # ... nor does a claim whose candidate is slower; the finding tells the two apart
    batch = res["one_thread_faster_batch"]
    assert set(_findings(batch).values()) == {Finding.SLOWER}
    assert set(_verdicts(batch).values()) == {Verdict.DOES_NOT_HOLD}
    assert batch.verdict_text() == "does not hold on both runners"
    # the noise floor is the runner's A/A floor for one of the two groups; "the same" means
    # within the larger of that and the 5% margin
    assert all(c.noise is not None and c.noise.value == pytest.approx(0.02) for c in res["onednn_faster"].checks)
    assert all(c.margin == pytest.approx(0.05) for c in res["onednn_faster"].checks)


def test_a_changed_result_changes_the_verdict_and_the_outputs(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    before = analyse(root, FIX / "snippets")
    before_table = _render(before, "settings fixture_settings")
    before_chart = settings_chart_spec(before.settings_rows(T), x="threads", color="onednn")
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    for r in doc["results"]:    # oneDNN off becomes 4x faster than it was on runner A: now faster than on
        if r["topic"] == T and r["settings"]["onednn"] == "0":
            r["timing"]["samples"] = [x / 4 for x in r["timing"]["samples"]]
            r["timing"]["summary"] = {k: (v / 4 if isinstance(v, float) else v) for k, v in r["timing"]["summary"].items()}
    path.write_text(json.dumps(doc))
    after = analyse(root, FIX / "snippets")
    res = {c.id: c for c in after.claim_results(T)}
    assert _findings(res["onednn_faster"]) == {"fixture-a": Finding.SLOWER, "fixture-b": Finding.FASTER}
    assert _verdicts(res["onednn_faster"]) == {"fixture-a": Verdict.DOES_NOT_HOLD, "fixture-b": Verdict.HOLDS}
    assert res["onednn_faster"].verdict_text() == "does not hold on 1, holds on 1 of 2 runners"
    after_table = _render(after, "settings fixture_settings")
    assert after_table != before_table
    # oneDNN off was slower than on everywhere; on runner A it is now faster, and the table says so
    assert "tfperf-faster" not in before_table and "tfperf-faster" in after_table.split("<summary>2-core Fixture (AVX2)")[0]
    assert "tfperf-faster" not in after_table.split("<summary>2-core Fixture (AVX2)")[1]
    assert settings_chart_spec(after.settings_rows(T), x="threads", color="onednn") != before_chart


def test_x_positions_log2_then_named() -> None:
    pos = x_positions(["omp1", "4", "1", "default", "2", "inter1"], ["default", "1..cores", "inter1", "omp1"])
    assert [pos[v] for v in ("1", "2", "4")] == [0.0, 1.0, 2.0]
    assert [pos[v] for v in ("default", "inter1", "omp1")] == [3.0, 4.0, 5.0]
    assert x_positions(["1", "6"])["6"] == pytest.approx(2.585)
    # a declared list of values is a list of names, in its order, even when some look like numbers
    assert x_positions(["avx2", "0", "1"], ["1", "0", "avx2"]) == {"1": 0.0, "0": 1.0, "avx2": 2.0}


def test_settings_chart_extends_with_more_cores(ds) -> None:  # type: ignore[no-untyped-def]
    rows = ds.settings_rows(T)
    spec = settings_chart_spec(rows, x="threads", color="onednn", facet="model", row="batch")
    data = spec["datasets"]["rows"]
    a = sorted({d["x_pos"] for d in data if d["runner"] == "fixture-a" and d["x_num"]})
    b = sorted({d["x_pos"] for d in data if d["runner"] == "fixture-b" and d["x_num"]})
    assert a == [0.0, 1.0, 2.0] and b == [0.0, 1.0]          # 4 cores: one more point on the curve
    named = {d["s_threads"]: d["x_pos"] for d in data if not d["x_num"]}
    assert min(named.values()) > max(a)                       # named settings to the right of every curve
    assert {d["c_txt"] for d in data} == {"oneDNN on", "oneDNN off"}     # settings_labels in the legend
    text = json.dumps(spec)
    assert "speedup over" in text and "strokeDash" in text
    assert spec["facet"]["field"] == "panel" and all(p.startswith("batch ") and ", " in p
                                                      for p in spec["facet"]["sort"])  # batch × model, in words
    # both runners are drawn (no runner choice), the other choices are bound to selects
    assert {d["runner"] for d in data} == {"fixture-a", "fixture-b"}
    static = settings_chart_spec(rows, x="threads", color="onednn", facet="model", row="batch", static=True)
    assert len(static["datasets"]["rows"]) == len(data)      # nothing left to choose: all rows drawn
    with pytest.raises(ChartError, match="not a setting"):
        settings_chart_spec(rows, x="batch")                  # a parameter, not a setting


def test_settings_chart_block_and_key(ds) -> None:  # type: ignore[no-untyped-def]
    html = _render(ds, "chart fixture_settings view=settings x=threads color=onednn facet=model row=batch")
    assert 'data-tfperf-chart' in html and "OMP_NUM_THREADS=1" in html and "intra-op threads = 4" in html
    with pytest.raises(DirectiveError):
        _render(ds, "chart fixture_settings view=settings")          # no x
    with pytest.raises(DirectiveError):
        _render(ds, "chart fixture_steps view=settings x=eager")      # no baseline_settings


def test_settings_table_filters_and_labels(ds) -> None:  # type: ignore[no-untyped-def]
    html = _render(ds, "settings fixture_settings threads=default,omp1 onednn=1")
    assert "baseline" in html and "OMP_NUM_THREADS=1" in html and "the same</span>" in html and "tfperf-same" in html
    assert "noise floor ±2%" in html and "tfperf-slower" not in html      # one thread via OpenMP: the same
    assert "oneDNN off" not in html and "intra-op threads" not in html
    full = _render(ds, "settings fixture_settings")
    assert "oneDNN off" in full and "slower</span>" in full and "<summary>2-core Fixture (AVX2)" in full
    with pytest.raises(DirectiveError):
        _render(ds, "settings fixture_settings cores=4")


def test_settings_claims_in_claims_table(ds) -> None:  # type: ignore[no-untyped-def]
    html = _render(ds, "claims fixture_settings")
    assert "speedup of oneDNN on over oneDNN off" in html
    rows = {r.split("<br>")[0]: r for r in html.split("<tr><td>")[1:]}
    onednn = rows["oneDNN on is faster than off."]
    assert "the source said: faster" in onednn
    # each runner by its hardware: the claim holds, with the finding over its scenarios
    assert onednn.count("tfperf-holds") == 2 and "4-core Fixture (AVX2)" in onednn and "2-core Fixture (AVX2)" in onednn
    assert "faster in both scenarios (2×)" in onednn
    omp = rows["OMP_NUM_THREADS=1 is faster."]
    assert omp.count("does not hold</span>") == 2 and omp.count("the same in both scenarios") == 2


def test_prose_branches_on_the_finding(ds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tfperf.render.page.context import parse_inline
    from tfperf.render.site.inline import render_inline

    def when(claim: str, ds=ds, where: str = "") -> str:  # type: ignore[no-untyped-def]
        return str(render_inline(parse_inline(
            f'when("fixture_settings", "{claim}", {where}faster="still <b>faster</b>", slower="now `slower`", '
            'same="no different", unclear="cannot be told", depends="it depends")'), ds))

    assert "still &lt;b&gt;faster&lt;/b&gt;" in when("onednn_faster")          # escaped
    assert "now <code>slower</code>" in when("one_thread_faster_batch")
    assert "no different" in when("omp_faster")
    assert 'data-outcome="the same"' in when("omp_faster")
    # without a text for the finding, its word
    assert ">the same</span>" in str(render_inline(parse_inline('when("fixture_settings", "omp_faster")'), ds))
    with pytest.raises(DirectiveError):
        render_inline(parse_inline('when("fixture_settings", "omp_faster", sometimes="x")'), ds)
    with pytest.raises(DirectiveError):       # the old vocabulary's keys are no findings
        render_inline(parse_inline('when("fixture_settings", "omp_faster", holds="x")'), ds)
    with pytest.raises(DirectiveError):
        render_inline(parse_inline('when("fixture_settings", "nope", faster="x")'), ds)
    # runner A's oneDNN-off results become 4x faster: the runners now disagree, and the text
    # names each runner's finding instead of one branch
    root = _copy(tmp_path)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    for r in doc["results"]:
        if r["topic"] == T and r["settings"]["onednn"] == "0":
            r["timing"]["samples"] = [x / 4 for x in r["timing"]["samples"]]
            r["timing"]["summary"] = {k: v if k == "n" else v / 4 for k, v in r["timing"]["summary"].items()}
    path.write_text(json.dumps(doc))
    after = analyse(root, FIX / "snippets")
    split = when("onednn_faster", after)
    assert "slower on the 4-core Fixture (AVX2); faster on the 2-core Fixture (AVX2)" in split
    assert "still" not in split and "now" not in split
    assert "now <code>slower</code>" in when("onednn_faster", after, 'runner="fixture-a", ')
    assert "still &lt;b&gt;faster&lt;/b&gt;" in when("onednn_faster", after, 'runner="fixture-b", ')


def test_when_restricted_to_some_scenarios(ds) -> None:  # type: ignore[no-untyped-def]
    from tfperf.render.page.context import parse_inline
    from tfperf.render.site.inline import render_inline

    def when(extra: str) -> str:
        return str(render_inline(parse_inline(
            f'when("fixture_settings", "onednn_faster", {extra}faster="yes", depends="it depends", no_data="none")'), ds))

    assert "yes" in when('batch=64, ')
    assert "yes" in when('runner="fixture-b", ')
    assert "none" in when('batch=7, ')
    with pytest.raises(DirectiveError):
        when('colour="red", ')


def test_settings_table_order_follows_the_yaml(ds) -> None:  # type: ignore[no-untyped-def]
    html = _render(ds, "settings fixture_settings onednn=1")
    runner_a = html.split("<summary>2-core Fixture (AVX2)")[0]
    rows = re.findall(r"<small>(onednn=[^<]+)</small>", runner_a)
    assert rows == ["onednn=1,threads=default", "onednn=1,threads=1", "onednn=1,threads=2",
                    "onednn=1,threads=4", "onednn=1,threads=omp1"]
    heads = re.findall(r"<th>([^<]*)</th>", runner_a)
    assert heads[1:] == ["batch 1, mlp", "batch 64, mlp"]


def test_a_failed_control_makes_the_scenarios_settings_claims_unclear(tmp_path: Path) -> None:
    """On the 4-core fixture runner A, threads=4 must measure as the default does. With
    runner A's threads=4 samples made equal to the default's, the control passes; then make
    the default group 30% slower at batch 64: the control fails there, the claims' findings
    in that scenario become "unclear" naming the control (and a claim measured only there
    is unclear, not holding), and batch 1 keeps its findings."""
    snippets = tmp_path / "snippets"
    shutil.copytree(FIX / "snippets", snippets)
    spec = yaml.safe_load((snippets / f"{T}.yaml").read_text())
    spec["controls"] = [{"id": "all_cores_is_default", "text": "threads=cores is the default", "variant": "call",
                         "settings": {"threads": "{cores}"}, "same_as": {"threads": "default"}}]
    (snippets / f"{T}.yaml").write_text(yaml.safe_dump(spec))
    root = _copy(tmp_path)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    ours = [r for r in doc["results"] if r["topic"] == T and r["settings"]["onednn"] == "1"]
    default = {r["params"]["batch"]: r for r in ours if r["settings"]["threads"] == "default"}
    for r in ours:
        if r["settings"]["threads"] == "4":
            r["timing"] = json.loads(json.dumps(default[r["params"]["batch"]]["timing"]))
    path.write_text(json.dumps(doc))
    before = analyse(root, snippets)
    slow = default[64]["timing"]
    slow["samples"] = [x * 1.3 for x in slow["samples"]]
    slow["summary"] = {k: (v * 1.3 if isinstance(v, float) else v) for k, v in slow["summary"].items()}
    path.write_text(json.dumps(doc))
    after = analyse(root, snippets)

    def checks(d: Any) -> dict[tuple[str, tuple[str, str, str]], Any]:
        return {(cr.id, ch.scenario.key): ch for cr in d.claim_results(T) for ch in cr.checks
                if ch.scenario.runner == "fixture-a"}

    old, new = checks(before), checks(after)
    assert old and not any(ch.note and "control failed" in ch.note for ch in old.values())
    hit = {k for k, ch in new.items() if ch.note and "control failed" in ch.note}
    assert hit and all("batch=64" in k[1][2] for k in hit)
    for k in hit:
        assert old[k].finding in (Finding.FASTER, Finding.SLOWER, Finding.SAME)
        assert new[k].finding == Finding.UNCLEAR and new[k].note.startswith("unclear: control failed")
        assert "threads=4 measured" in new[k].note and "threads=default" in new[k].note
    for k, ch in new.items():
        if k[1][2].startswith("batch=1,"):
            assert ch.finding == old[k].finding and ch.note == old[k].note
    # one_thread_slower is measured at batch 64 only: on runner A it held, now it is unclear
    res = {cr.id: cr for cr in after.claim_results(T)}
    was = {cr.id: cr for cr in before.claim_results(T)}
    assert was["one_thread_slower"].verdict("fixture-a") == Verdict.HOLDS
    assert res["one_thread_slower"].summary("fixture-a").finding == Finding.UNCLEAR
    assert res["one_thread_slower"].verdict("fixture-a") == Verdict.UNCLEAR
    from tfperf.render.page.context import parse_inline
    from tfperf.render.site.inline import render_inline
    prose = str(render_inline(parse_inline('when("fixture_settings", "one_thread_slower", runner="fixture-a", '
                                           'faster="faster", unclear="cannot be told")'), after))
    assert "cannot be told" in prose and 'data-outcome="unclear"' in prose
