"""``tfperf advise``'s report without TensorFlow, from a finished run (tests/advise_fixture.py)
and synthetic published results (tests/fixtures/site/make_fixture.py): each answer beside
what the guide found on the published runner with this machine's CPU, the HTML page, and
that page in a real browser (drawn, nothing loaded from outside the file, no serious
accessibility violation)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from advise_fixture import RUNNER, build

from tfperf.analyse import Dataset, Finding, analyse
from tfperf.cli.guide import published
from tfperf.errors import TfperfError
from tfperf.render.advise import NO_CHARTS, PLAIN, Context, as_json, page, report
from tfperf.render.page.embed import LIBS, NAME_CHARTS, VENDOR, chart_scripts, vendor_files

ROOT = Path(__file__).resolve().parents[2]
TOPICS = ["advise_predict", "advise_xla", "advise_serving", "advise_threads"]
GUIDE_RUNNER = "fixture-2core"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("advise-run"))


@pytest.fixture(scope="module")
def ds(run: Path) -> Dataset:
    got = analyse(run / "results", run / "topics")
    assert not got.errors, got.errors
    return got


@pytest.fixture(scope="module")
def guide_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("guide")
    subprocess.run([sys.executable, str(ROOT / "tests/fixtures/site/make_fixture.py"), "site", "--out", str(out)],
                   check=True, cwd=ROOT, capture_output=True)
    return out / "results"


@pytest.fixture(scope="module")
def ctx(ds: Dataset, guide_results: Path) -> Context:
    return context(ds, guide_results)


def context(ds: Dataset, guide_results: Path, runner: str = GUIDE_RUNNER) -> Context:
    return Context(model="my_model.keras", described="one input 'image' of 8x8x3 float32, 1 output",
                   topics=[(t, ds.topics[t].title) for t in TOPICS], results="results/quick.json",
                   published=published(ds, TOPICS, runner, str(guide_results), str(ROOT / "snippets")),
                   skipped=[("advise_threads", "not enough budget left: it needs about 30 s")])


def test_each_answer_stands_beside_the_guides_on_the_runner_with_this_cpu(ds: Dataset, ctx: Context) -> None:
    pub = ctx.published
    assert pub is not None and pub.runner == GUIDE_RUNNER
    got = {b.claim_id: b for b in pub.claims}
    assert (got["call_vs_predict_b1"].guide_topic, got["call_vs_predict_b1"].guide_claim) == \
        ("predict_vs_call", "call_beats_predict_single")
    assert got["call_vs_predict_b4"].guide_claim == "call_beats_predict_large_batch"
    assert got["onnx_vs_tf_function_b4"].guide_claim == "onnx_beats_tf_batch"
    assert got["one_thread_b1"].guide_claim == "one_thread_single_request"
    assert "tf_function_vs_predict_b1" not in got          # a comparison the guide does not make
    # Two answers differ exactly where both are plain findings and not the same one.
    for b in pub.claims:
        assert b.differs == (b.yours in PLAIN and Finding(b.guide) in PLAIN and b.yours != b.guide if b.guide
                             else False), b
    assert {b.differs for b in pub.claims} == {True, False}
    text = report(ds, ctx)
    n = sum(b.differs for b in pub.claims) + sum(w.differs for w in pub.winners)
    assert "Beside the guide's published runner with the same CPU, " in text and f"{n} answers differ" in text
    differing = next(b for b in pub.claims if b.differs)
    assert f"      DIFFERS: on the guide's runner: {differing.guide_brief}." in text
    # The winners: ours at batch 4 against the guide's fastest at its nearest batch.
    serving = [w for w in pub.winners if w.topic == "advise_serving"]
    assert [w.batch for w in serving] == [1, 4] and all(w.guide for w in serving)
    data = as_json(ds, ctx)
    assert data["published"]["runner"] == GUIDE_RUNNER
    assert sum(c["differs"] for c in data["published"]["claims"]) == sum(b.differs for b in pub.claims)
    assert data["skipped_for_budget"] == [{"topic": "advise_threads", "why": "not enough budget left: it needs about 30 s"}]
    assert "Left out for lack of budget: Threads and oneDNN for your model (not enough budget left" in text


def test_no_published_runner_with_this_cpu_is_said(ds: Dataset, guide_results: Path) -> None:
    ctx = context(ds, guide_results, runner="linux-aarch64-4core-arm-neon")
    assert ctx.published is not None and ctx.published.runner is None and not ctx.published.claims
    text = report(ds, ctx)
    assert ("No published runner has this machine's CPU (linux-aarch64-4core-arm-neon; published: fixture-16core, "
            f"fixture-2core in {guide_results}), so the answers stand alone.") in text
    assert "DIFFERS" not in text and as_json(ds, ctx)["published"]["runner"] is None


def test_the_page_holds_the_answers_failures_machine_and_charts(ds: Dataset, ctx: Context) -> None:
    html = page(ds, ctx, RUNNER, ["/* libs */"])
    assert html.count("<h1>") == 1 and html.count("<h2>") == len(TOPICS) + 1
    assert "<h3>Your code calls model.predict(x): what should it call instead?</h3>" in html
    assert "ConverterError: op GRU is neither a custom op nor a flex op" in html      # a conversion that failed
    assert "wrong output, never recommended: TFLite, XNNPACK at batch 4" in html      # outside tolerance
    assert "<th>What</th><th>Value</th>" in html and "<td>tensorflow</td>" in html    # the machine and versions
    charts = re.findall(r'<div class="tfperf-chart" id="([^"]+)"[^>]*role="figure" aria-label="([^"]+)"', html)
    assert len(charts) == len(TOPICS) and all(alt.strip() for _, alt in charts)
    assert all(f'id="{cid}-spec"' in html for cid, _ in charts)
    assert 'class="guide differs"' in html
    assert not re.search(r"""\bsrc\s*=|<link\b|url\(\s*["']?https?:""", html)   # nothing loaded from elsewhere
    assert "<noscript>" not in html
    no_charts = page(ds, ctx, RUNNER, None)
    assert "data-tfperf-chart" not in no_charts and "<script>" not in no_charts
    assert no_charts.count(NO_CHARTS) == 1 and NO_CHARTS not in html       # said once, never silently dropped


def test_unreadable_chart_libraries_are_one_line_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(TfperfError) as err:
        chart_scripts(tmp_path)
    assert str(err.value) == (f"{tmp_path / LIBS[0]}: the chart library cannot be read (No such file or directory); "
                              "the page is written without charts")


def test_the_chart_libraries_ship_in_the_package_data() -> None:
    # An installed copy has what pyproject's package-data names, not the repository: every
    # vendored file, the libraries first, must match one of its patterns under bench/tfperf.
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    pkg = ROOT / "bench" / "tfperf"
    shipped = {p for pattern in data["tfperf"] for p in pkg.glob(pattern) if p.is_file()}
    files = [path for _, path in vendor_files()]
    assert all((VENDOR / lib) in files for lib in LIBS) and "vendor" in VENDOR.parts[-1]
    assert VENDOR.is_relative_to(pkg) and not {*files, NAME_CHARTS} - shipped
    scripts = chart_scripts()
    assert len(scripts) == len(LIBS) + 1 and "function tfperfNameChart(el)" in scripts[-1]


@pytest.mark.browser
def test_the_page_draws_offline_with_no_serious_accessibility_violation(ds: Dataset, ctx: Context,
                                                                      tmp_path: Path) -> None:
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.skip("Debian chromium is not installed")
    from playwright.sync_api import sync_playwright

    path = tmp_path / "answers.html"
    path.write_text(page(ds, ctx, RUNNER, chart_scripts()), encoding="utf-8")
    axe = next((ROOT / "tests" / "vendor").glob("axe-core-*/axe.min.js")).read_text(encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--no-first-run", "--disable-sync"])
        tab = browser.new_page(viewport={"width": 1200, "height": 900})
        requests: list[str] = []
        errors: list[str] = []
        tab.on("request", lambda r: requests.append(r.url))
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.goto(path.as_uri(), wait_until="load")
        tab.wait_for_function("() => [...document.querySelectorAll('[data-tfperf-chart]')]"
                              ".every(el => el.getAttribute('data-rendered'))", timeout=60_000)
        drawn = tab.evaluate("() => [...document.querySelectorAll('[data-tfperf-chart]')]"
                             ".map(el => [el.getAttribute('data-rendered'), el.querySelectorAll('svg').length])")
        requests_before_axe = list(requests)
        tab.add_script_tag(content=axe)
        violations = tab.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']}))"
                                  ".violations.map(v => [v.id, v.impact, v.nodes.length, v.nodes[0].target.join(' ')])")
        browser.close()
    assert len(drawn) == len(TOPICS) and all(state == "true" and svgs >= 1 for state, svgs in drawn), drawn
    assert requests_before_axe == [path.as_uri()], requests_before_axe
    assert not errors, errors
    serious = [v for v in violations if v[1] in ("serious", "critical")]
    assert not serious, json.dumps(serious)
