"""Per-step times (per_call), the metrics table, the break-even and ten-run tables, and
"not measured in this setting" — on the frozen fixture tests/fixtures/site/gaps/."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tfperf.analyse import analyse
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import DirectiveError, parse_block, parse_inline
from tfperf.render.page.embed import SvgCache
from tfperf.render.page.topic_chart import chart_spec
from tfperf.render.site.inline import render_inline

FIX = Path(__file__).parents[2] / "fixtures" / "site" / "gaps"
T = "fixture_steps"


@pytest.fixture(scope="module")
def ds():  # type: ignore[no-untyped-def]
    return analyse(FIX / "data" / "results", FIX / "snippets")


def _render(ds, text: str) -> str:  # type: ignore[no-untyped-def]
    return str(render_block(parse_block(text), Context(ds, prefix="", svgs=SvgCache(None))))


def _changed(tmp_path: Path, variant: str, factor: float, first: float = 1.0):  # type: ignore[no-untyped-def]
    root = tmp_path / "results"
    shutil.copytree(FIX / "data" / "results", root)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    for r in doc["results"]:
        if r["topic"] == T and r["variant"] == variant:
            r["timing"]["samples"] = [x * factor for x in r["timing"]["samples"]]
            r["timing"]["summary"] = {k: (v * factor if isinstance(v, float) else v)
                                      for k, v in r["timing"]["summary"].items()}
            r["first_call_s"] *= first
            for k in r.get("metrics", {}):
                r["metrics"][k] *= factor
    path.write_text(json.dumps(doc))
    return analyse(root, FIX / "snippets")


def test_per_step_times_in_chart_rows(ds) -> None:  # type: ignore[no-untyped-def]
    assert ds.unit(T) == "step" and ds.unit("fixture_settings") == "call"
    rows = {(r.case.params["model"], r.case.params["steps"], r.case.variant, r.case.settings["eager"]): r
            for r in ds.chart_rows(T)}
    two, many = rows[("small", 2, "fit", "on")], rows[("small", 32, "fit", "on")]
    m2 = next(m for m in ds.current if m.topic == T and m.params == {"model": "small", "steps": 2}
              and m.variant == "fit")
    assert two.median == pytest.approx(m2.median / 2)               # per step, not per call
    assert many.median == pytest.approx(two.median, rel=0.05)       # the same work per step
    assert two.first_call == pytest.approx(m2.first_call_s)         # the first call stays a whole call
    spec = chart_spec(ds.chart_rows(T), "latency", x="steps", facet="model", unit=ds.unit(T))
    assert "time per step" in json.dumps(spec)


def test_inline_median_per_step(ds) -> None:  # type: ignore[no-untyped-def]
    html = str(render_inline(parse_inline('median("fixture_steps", "fit", model="small", steps=32, eager="on")'), ds))
    assert "per step" in html


def test_default_missing_by_design_is_not_a_failure(ds) -> None:  # type: ignore[no-untyped-def]
    html = _render(ds, "recommendations fixture_steps")
    assert "default not measured in this setting" in html
    assert "default failed" not in html
    # scenario and settings in reader words, as the charts name them, not as ids
    assert "small, steps 2" in html and "model=small" not in html and "steps=2" not in html


def test_tables_name_settings_by_their_labels(ds) -> None:  # type: ignore[no-untyped-def]
    """A settings column reads the YAML's ``settings_labels`` words, as the charts' do."""
    info = ds.topics[T]
    ds.topics[T] = replace(info, settings_labels={"eager": {"on": "eager on", "off": "eager off"}})
    try:
        for block in ("recommendations fixture_steps", "tenrun fixture_steps"):
            cells = re.findall(r"<td[^>]*>(.*?)</td>", _render(ds, block))
            assert "eager on" in cells and "eager off" in cells and not any("eager=" in c for c in cells), block
    finally:
        ds.topics[T] = info


def test_metrics_table(ds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    html = _render(ds, "metrics fixture_steps fields=load_s,convert_s,file_bytes columns=model")
    assert "123 kB" in html and "65.5 kB" in html and "500 ms" in html and "per step, small" in html
    assert "reference" in html and "within tolerance" in html
    summaries = re.findall(r"<summary>(.*?)</summary>", html)
    assert any("steps 2" in x for x in summaries) and not any("steps=" in x for x in summaries), summaries
    after = _render(_changed(tmp_path, "fit", 3.0), "metrics fixture_steps fields=load_s,convert_s,file_bytes columns=model")
    assert after != html and "1.5 s" in after          # convert_s of fit tripled
    with pytest.raises(DirectiveError):
        _render(ds, "metrics fixture_steps")            # no fields
    with pytest.raises(DirectiveError):
        _render(ds, "metrics fixture_steps fields=load_s columns=nope")


def test_metrics_table_marks_wrong_output(tmp_path: Path) -> None:
    root = tmp_path / "results"
    shutil.copytree(FIX / "data" / "results", root)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    for r in doc["results"]:
        if r["topic"] == T and r["variant"] == "xla":
            r["output"].update(within_tolerance=False, max_abs_diff=0.5)
    path.write_text(json.dumps(doc))
    html = _render(analyse(root, FIX / "snippets"), "metrics fixture_steps fields=load_s")
    assert "outside tolerance (max abs diff 0.5)" in html


def test_breakeven_table(ds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    rows = ds.breakeven(T, "function", "xla")
    by = {(b.params["model"], b.params["steps"]): b for b, _ms in rows}
    assert by[("big", 2)].calls is None                # xla slower per call on the big model: never
    small = by[("small", 2)]
    assert small.calls is not None and small.calls_best <= small.calls <= small.calls_worst
    html = _render(ds, "breakeven fixture_steps baseline=function candidate=xla")
    assert f"after {small.calls} calls" in html and "never" in html and "median per step" in html
    # xla's first call 3x longer: the break-even moves later
    after = _changed(tmp_path, "xla", 1.0, first=3.0)
    later = {(b.params["model"], b.params["steps"]): b for b, _ms in after.breakeven(T, "function", "xla")}
    assert later[("small", 2)].calls > small.calls
    assert _render(after, "breakeven fixture_steps baseline=function candidate=xla") != html
    with pytest.raises(DirectiveError):
        _render(ds, "breakeven fixture_steps baseline=function candidate=nope")
    with pytest.raises(DirectiveError):
        _render(ds, "breakeven fixture_steps")


def test_tenrun_table(ds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    views = ds.ten_runs(T)
    assert len(views) == len([m for m in ds.current if m.topic == T and m.ok])
    m, v = views[0]
    assert v.first_mean == pytest.approx(sum(m.samples[:10]) / 10)   # inner_loops 1: ten samples
    html = _render(ds, "tenrun fixture_steps")
    assert "one 10-call mean" in html and "median (95% CI)" in html
    n_out = sum(1 for _m, v in views if v.first_mean_outside_ci)
    assert f"<strong>{n_out} of {len(views)}</strong> cases" in html
    n_rows = len(re.findall(r"<tr>", html)) - 1
    assert n_rows == len(views)
    # each row names its variant by its display name, never by its id; scenarios in words
    cells = re.findall(r"<td[^>]*>(.*?)</td>", html)
    assert "jit_compile step" in cells and "xla" not in cells and "<code>xla</code>" not in html
    assert "small, steps 2" in html and "model=small" not in html
    after = _render(_changed(tmp_path, "graph", 2.0), "tenrun fixture_steps")
    assert after != html


def test_new_kinds_need_a_topic() -> None:
    for kind in ("settings", "metrics", "breakeven", "tenrun"):
        with pytest.raises(DirectiveError):
            render_block(parse_block(kind), Context(None, prefix="", svgs=SvgCache(None)))  # type: ignore[arg-type]


def test_charts_of_one_page_share_their_rows(ds) -> None:  # type: ignore[no-untyped-def]
    ctx = Context(ds, prefix="", svgs=SvgCache(None))
    html = "".join(str(render_block(parse_block(f"chart fixture_steps view={v} x=steps facet=model"), ctx))
                   for v in ("latency", "speedup", "first_call"))
    ids = re.findall(r'id="tfperf-rows-([0-9a-f]+)"', html)
    assert len(ids) == 1                                   # one copy of the rows for three charts
    specs = [json.loads(s) for s in re.findall(r'-spec">(.*?)</script>', html)]
    assert len(specs) == 3 and all(s["usermeta"]["tfperf_rows"] == ids[0] and s["datasets"]["rows"] == [] for s in specs)
    rows = json.loads(re.search(r'id="tfperf-rows-[0-9a-f]+">(.*?)</script>', html).group(1))
    assert len(rows) == len(ds.chart_rows(T))


def test_nominal_x_in_the_yaml_order(ds) -> None:  # type: ignore[no-untyped-def]
    rows = ds.chart_rows(T)
    spec = chart_spec(rows, "latency", x="model", order={"model": ["small", "big"]})
    assert '"sort": ["small", "big"]' in json.dumps(spec)      # not alphabetical (big, small)
