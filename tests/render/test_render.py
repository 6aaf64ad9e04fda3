"""Rendering: a changed result changes the chart spec and the table; every data string is
escaped; placeholders parse strictly; pages without data still render."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tfperf.analyse import analyse
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import DirectiveError, parse_block, parse_inline
from tfperf.render.page.embed import SvgCache
from tfperf.render.page.html import script_json, table
from tfperf.render.page.topic_chart import chart_spec
from tfperf.render.site.inline import render_inline
from tfperf.render.site.site import Site
from tfperf.store.record_types import env_id

FIX = Path(__file__).parents[1] / "fixtures" / "site" / "analysis"
TOPIC = "fixture_topic"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    shutil.copytree(FIX / "data" / "results", root)
    return root


def _ctx(root: Path) -> Context:
    return Context(analyse(root, FIX / "snippets"), prefix="../../", svgs=SvgCache(None))


def _render(root: Path, text: str) -> str:
    return str(render_block(parse_block(text), _ctx(root)))


def test_changed_result_changes_chart_and_table(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    before_ds = analyse(root, FIX / "snippets")
    before_spec = chart_spec(before_ds.chart_rows(TOPIC), "latency")
    before_table = _render(root, "recommendations fixture_topic")
    assert "the fast way" in before_table

    # fixture-a's "fast" variant on the small size becomes 3x slower than it was.
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    for r in doc["results"]:
        if r["variant"] == "fast" and r["params"]["size"] == "small" and r["key"]["tensorflow"] == "2.21.0":
            r["timing"]["samples"] = [x * 3 for x in r["timing"]["samples"]]
            r["timing"]["summary"] = {k: (v * 3 if isinstance(v, float) else v) for k, v in r["timing"]["summary"].items()}
    path.write_text(json.dumps(doc))

    after_ds = analyse(root, FIX / "snippets")
    after_spec = chart_spec(after_ds.chart_rows(TOPIC), "latency")
    after_table = _render(root, "recommendations fixture_topic")
    assert after_spec != before_spec
    old = {(r["runner"], r["p_size"], r["variant"], r["version"]): r["median"] for r in before_spec["datasets"]["rows"]}
    new = {(r["runner"], r["p_size"], r["variant"], r["version"]): r["median"] for r in after_spec["datasets"]["rows"]}
    key = ("fixture-a", "small", "fast", "TF 2.21.0")
    assert new[key] == pytest.approx(old[key] * 3)
    assert after_table != before_table
    # the small scenario of runner A now recommends the default, not "fast"
    a_small = next(r for r in after_ds.recommendations(TOPIC)
                   if r.scenario.runner == "fixture-a" and r.scenario.params["size"] == "small")
    assert a_small.best == "slow_default"
    assert "the default is the fastest" in after_table and "the default is the fastest" not in before_table
    # that row's "faster" finding is gone with it; the other rows keep theirs
    assert after_table.count("tfperf-verdict tfperf-faster") == before_table.count("tfperf-verdict tfperf-faster") - 1


def test_markup_in_data_is_escaped(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    renamed = {}
    for old, env in list(doc["environments"].items()):
        env["cpu_model"] = "<script>alert(1)</script>"
        renamed[old] = env_id(env)          # the id is a hash of the record
    doc["environments"] = {renamed[k]: v for k, v in doc["environments"].items()}
    for r in doc["results"] + doc["noise"]:
        r["env_id"] = renamed.get(r["env_id"], r["env_id"])
    doc["runner"]["description"] = '"><img src=x onerror=alert(1)>'
    path.write_text(json.dumps(doc))
    ctx = _ctx(root)
    assert ctx.ds.errors == [] and "fixture-a" in ctx.ds.runners
    html = str(render_block(parse_block("runners"), ctx))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)" not in html
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    # the fixture's other runner has markup in its CPU name too
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Fixture CPU B" in html


def test_chart_json_cannot_close_its_script() -> None:
    text = script_json({"label": "</script><script>alert(1)</script>"})
    assert "</script>" not in text and "<" not in text
    assert json.loads(text) == {"label": "</script><script>alert(1)</script>"}


def test_table_escapes_cells() -> None:
    html = table(["<b>h</b>"], [["<i>x</i>", 3]])
    assert "&lt;b&gt;h&lt;/b&gt;" in html and "&lt;i&gt;x&lt;/i&gt;" in html and "<i>" not in html


def test_chart_spec_has_choices_tooltips_and_log_scale(tmp_path: Path) -> None:
    ds = analyse(FIX / "data" / "results", FIX / "snippets")
    spec = chart_spec(ds.chart_rows(TOPIC), "latency")
    text = json.dumps(spec)
    names = {p["name"] for p in spec["params"]}
    assert {"runner", "version"} <= names
    assert '"type": "log"' in text                     # 1 ms and 100 ms: two decades
    assert "95% CI of median" in text and "median_txt" in text
    assert "http" not in text                          # no $schema URL in the page
    static = chart_spec(ds.chart_rows(TOPIC), "latency", static=True)
    assert 0 < len(static["datasets"]["rows"]) < len(spec["datasets"]["rows"])


def test_directive_parsing() -> None:
    d = parse_block(" chart predict_vs_call view=speedup x=batch ")
    assert (d.kind, d.topic, d.options) == ("chart", "predict_vs_call", {"view": "speedup", "x": "batch"})
    with pytest.raises(DirectiveError):
        parse_block("charts predict_vs_call")
    i = parse_inline('speedup("t", "c", model="tiny", batch=1)')
    assert (i.kind, i.args, i.options) == ("speedup", ["t", "c"], {"model": "tiny", "batch": 1})
    for bad in ('speedup(__import__("os"))', "nope()", "speedup(", "os.system('x')"):
        with pytest.raises(DirectiveError):
            parse_inline(bad)


def test_inline_figures() -> None:
    ds = analyse(FIX / "data" / "results", FIX / "snippets")
    one = str(render_inline(parse_inline('speedup("fixture_topic", "fast_beats_default", runner="fixture-a", size="small")'), ds))
    assert "95% CI" in one and "×" in one
    many = str(render_inline(parse_inline('speedup("fixture_topic", "fast_beats_default")'), ds))
    assert " to " in many
    # fast is 2x faster on runner A, the same as the default on runner B: the source's "faster" holds on one
    verdict = str(render_inline(parse_inline('verdict("fixture_topic", "fast_beats_default")'), ds))
    assert ">holds on 1, does not hold on 1 of 2 runners<" in verdict
    # the tooltip says what was found where: the claim, then each machine's finding
    assert 'title="fast is faster than the default. 2-core Fixture (AVX2): faster in both scenarios (2×); ' in verdict
    assert "the same in both scenarios" in verdict
    with pytest.raises(DirectiveError):
        render_inline(parse_inline('verdict("fixture_topic", "no_such_claim")'), ds)


def test_page_without_data_and_fenced_examples(tmp_path: Path) -> None:
    site = Site(tmp_path, tmp_path / "none", FIX / "snippets", tmp_path / "cache")
    site.prepare()
    md = ("# T\n\n<!-- tfperf:recommendations fixture_topic -->\n\n"
          "```\n<!-- tfperf:chart fixture_topic -->\n```\n\nA {{ tfperf.verdict(\"fixture_topic\", \"fast_beats_default\") }}.\n")
    out = site.page_markdown(md, "topics/x.md", "topics/x/")
    assert "```\n<!-- tfperf:chart fixture_topic -->\n```" in out     # examples in code stay as written
    html = site.page_content("<p>" + out.replace("\n\n", "</p><p>") + "</p>", "topics/x.md")
    assert "No results yet" in html and "no results yet" in html
    assert "TFPERFSLOT" not in html


def test_breakdown_shows_stored_per_call_seconds(tmp_path: Path) -> None:
    """Breakdown records store seconds per call of the profiled variant; the table shows
    them as they are (a bug once divided them by the number of calls again)."""
    from tfperf.render.page.html import seconds

    root = _copy(tmp_path)
    path = root / "fixture-a" / "full.json"
    doc = json.loads(path.read_text())
    r = next(r for r in doc["results"] if r["status"] == "ok")
    doc["breakdowns"].append({
        "case_id": r["case_id"], "topic": r["topic"], "variant": r["variant"], "params": r["params"],
        "settings": r["settings"], "key_hash": r["key_hash"], "env_id": r["env_id"], "tool": "stack sampler",
        "calls": 40, "total_s": 1.2,
        "categories": [{"name": "building the input pipeline", "seconds": 0.02, "share": 0.667},
                       {"name": "graph execution", "seconds": 0.01, "share": 0.333}],
        "top_functions": [{"function": "<frozen runpy>:65(_run_code)", "cumulative_s": 0.03, "own_s": 0.0, "calls": 40},
                          {"function": "keras/trainer.py:1(predict)", "cumulative_s": 0.03, "own_s": 0.0, "calls": 40}]})
    path.write_text(json.dumps(doc))
    html = _render(root, "breakdown fixture_topic")
    assert str(seconds(0.02)) in html and str(seconds(0.03)) in html
    assert str(seconds(0.02 / 40)) not in html
    assert "frozen runpy" not in html
