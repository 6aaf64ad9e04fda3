"""This machine's results beside the published ones, never in their place (no
TensorFlow).

`scripts/main` measures the quick profile into local/results/<runner>/quick.json, under
the same runner label as a published runner. The site built with that local set must show
the published findings, verdicts, claim counts, tables and chart data exactly as the build
without it, plus a "this machine" section beside them. And a quick file that does land in the
published root (an older checkout) is a series of its own: never joined with the full
profile's results into one finding or chart line."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tfperf.analyse import analyse
from tfperf.analyse.judge.effects import Finding, Verdict
from tfperf.analyse.views.versus import this_machine

ROOT = Path(__file__).resolve().parents[2]
ANALYSIS = ROOT / "tests" / "fixtures" / "site" / "analysis"
TOPIC = "fixture_topic"
PAGES = {
    "index.md": "# Home\n\n<!-- tfperf:findings -->\n\n<!-- tfperf:runners -->\n",
    "topic.md": (f"# Topic\n\n<!-- tfperf:recommendations {TOPIC} -->\n\n"
                 f"<!-- tfperf:chart {TOPIC} view=latency x=size -->\n\n"
                 f"<!-- tfperf:chart {TOPIC} view=speedup x=size -->\n\n"
                 f"<!-- tfperf:claims {TOPIC} -->\n\nThe end.\n"),
}
TITLE = "This machine (quick profile, not published)"


def quick_doc() -> dict:
    """fixture-a's published full profile as a newer quick run of the same runner label on
    which "fast" is five times slower: merged with the published results it would turn
    fast_beats_default from faster (holds) to slower (does not hold) and change the charts."""
    doc = json.loads((ANALYSIS / "data" / "results" / "fixture-a" / "full.json").read_text())
    doc["profile"] = "quick"
    for r in doc["results"]:
        r["finished_at"] = "2026-11-20T12:00:00+00:00"
        t = r.get("timing")
        if r["variant"] == "fast" and t:
            t["samples"] = [s * 5 for s in t["samples"]]
            t["summary"] = {k: (v if k == "n" or v is None else v * 5)
                            for k, v in t["summary"].items()}
    return doc


def _published(tmp: Path) -> Path:
    results = tmp / "data" / "results"
    shutil.copytree(ANALYSIS / "data" / "results", results)
    return results


def _local(tmp: Path) -> Path:
    local = tmp / "local" / "results"
    (local / "fixture-a").mkdir(parents=True)
    (local / "fixture-a" / "quick.json").write_text(json.dumps(quick_doc()))
    return local


def _build(tmp: Path, results: Path, local: Path | None) -> tuple[subprocess.CompletedProcess[str], Path]:
    docs, site = tmp / "docs", tmp / "site"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config.update(docs_dir=str(docs), site_dir=str(site), nav=[{"Home": "index.md"}, {"Topic": "topic.md"}],
                  hooks=[str(ROOT / h) for h in config.get("hooks", [])], extra_css=[], extra_javascript=[])
    for ext in config["markdown_extensions"]:
        if isinstance(ext, dict) and "pymdownx.snippets" in ext:
            ext["pymdownx.snippets"]["base_path"] = [str(ANALYSIS / "snippets")]
    cfg = tmp / "mkdocs.yml"
    cfg.write_text(yaml.safe_dump(config))
    env = {**os.environ, "TFPERF_RESULTS": str(results), "TFPERF_SNIPPETS": str(ANALYSIS / "snippets"),
           "TFPERF_CACHE": str(tmp / "cache"), "TFPERF_LOCAL": str(local) if local else "",
           "PYTHONPATH": str(ROOT / "bench")}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(cfg)], check=False, env=env,
                          capture_output=True, text=True, timeout=300, cwd=tmp)
    return proc, site


def strip_this_machine(html: str) -> str:
    """The page without its "this machine" sections (each a balanced <div>)."""
    start = '<div class="tfperf-this-machine"'
    while (i := html.find(start)) >= 0:
        depth, j = 0, i
        for m in re.compile(r"<div\b|</div>").finditer(html, i):
            depth += 1 if m.group(0) == "<div" else -1
            if depth == 0:
                j = m.end()
                break
        assert j > i, "unbalanced this-machine section"
        html = html[:i] + html[j:]
    return html


def _pages(site: Path) -> dict[str, str]:
    """Every page drawn from data (the notebook pages are the snippet alone, with random cell ids)."""
    return {str(p.relative_to(site)): p.read_text() for p in sorted(site.rglob("*.html"))
            if not str(p.relative_to(site)).startswith("notebooks/")}


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[subprocess.CompletedProcess[str], Path]]:
    without, with_local = tmp_path_factory.mktemp("published"), tmp_path_factory.mktemp("withlocal")
    return {"published": _build(without, _published(without), None),
            "local": _build(with_local, _published(with_local), _local(with_local))}


def test_local_quick_run_leaves_published_pages_unchanged(builds) -> None:  # type: ignore[no-untyped-def]
    """A local quick run of a published runner's label: every published figure (findings,
    verdicts, claim counts, recommendation tables, chart data, SVG fallbacks) is byte for byte
    the build without it; "this machine" is added after the claims table and the runner list,
    with each claim's finding here beside the published runners'."""
    (p0, site0), (p1, site1) = builds["published"], builds["local"]
    assert p0.returncode == 0, p0.stderr[-3000:]
    assert p1.returncode == 0, p1.stderr[-3000:]
    before, after = _pages(site0), _pages(site1)
    assert before.keys() == after.keys()
    assert TITLE not in "".join(before.values())
    for name in before:
        assert strip_this_machine(after[name]) == before[name], f"{name}: published content changed"
    topic = after["topic/index.html"]
    assert topic.count(TITLE) == 1
    claims_at = topic.index("fast is faster than the default.")
    end = topic.index("<p>The end.</p>")        # the paragraph, not the page's description
    assert claims_at < topic.index(TITLE) < end, "the section follows the claims table"
    section = topic[topic.index(TITLE):end]
    assert "local/results/fixture-a/quick.json" in section and "fixture-a/full" in section
    # fast is 5x slower here: fast_beats_default is "slower" on this machine, "faster" on the
    # published fixture-a/full (this CPU) over the same scenarios
    row = next(r for r in section.split("<tr>") if r.startswith("<td>fast is faster than the default.</td>"))
    here, there_a = re.findall(r"<td>(.*?)</td>", row)[1:3]
    assert "tfperf-slower" in here and "slower in both scenarios (0.4×)" in here
    assert "tfperf-faster" in there_a and "faster in both scenarios (2×)" in there_a
    assert TITLE in after["index.html"], "the Runners list is followed by this machine's summary"
    svgs = lambda site: {p.name: p.read_bytes() for p in (site / "assets" / "charts").glob("*.svg")}
    assert svgs(site0) == svgs(site1)
    assert sorted(p.name for p in (site1 / "data" / "results").rglob("*.json")) == ["full.json", "full.json"], \
        "the local file is not published with the raw data"


def test_quick_file_in_published_root_is_its_own_series(tmp_path: Path) -> None:
    """A quick file in the published root beside the same runner's full one (a checkout
    that an earlier scripts/main wrote into) is the runner "fixture-a/quick": fixture-a's
    findings and verdicts, current results and chart rows are those of the full profile
    alone, and no chart row of one runner name mixes profiles."""
    results = _published(tmp_path)
    snippets = ANALYSIS / "snippets"
    clean = analyse(results, snippets)
    (results / "fixture-a" / "quick.json").write_text(json.dumps(quick_doc()))
    mixed = analyse(results, snippets)
    assert set(mixed.runners) == {"fixture-a", "fixture-a/quick", "fixture-b"}
    findings = lambda ds: {(c.id, r): (c.summary(r).finding, c.verdict(r), c.summary_text(r))
                           for c in ds.claim_results(TOPIC) for r in c.runners_with_data}
    assert {k: v for k, v in findings(mixed).items() if k[1] != "fixture-a/quick"} == findings(clean)
    assert findings(clean)[("fast_beats_default", "fixture-a")][:2] == (Finding.FASTER, Verdict.HOLDS)
    assert findings(mixed)[("fast_beats_default", "fixture-a/quick")][:2] == (Finding.SLOWER, Verdict.DOES_NOT_HOLD)
    rows = lambda ds, runner: sorted(json.dumps(r.columns(), sort_keys=True) for r in ds.chart_rows(TOPIC)
                                      if r.runner == runner)
    assert rows(mixed, "fixture-a") == rows(clean, "fixture-a")
    profiles: dict[str, set[str]] = {}
    for r in mixed.chart_rows(TOPIC):
        profiles.setdefault(r.runner, set()).add(r.profile)
    assert profiles == {"fixture-a": {"full"}, "fixture-a/quick": {"quick"}, "fixture-b": {"full"}}


def test_this_machine_compares_like_tfperf_compare(tmp_path: Path) -> None:
    """The local view is `tfperf compare` over each local file: per claim the finding here
    and on each published runner over the same scenarios; the published root is read, not
    changed. A local file that cannot be read is named, not raised."""
    results, local = _published(tmp_path), _local(tmp_path)
    (local / "broken").mkdir()
    (local / "broken" / "quick.json").write_text("{not json")
    tm = this_machine(local, results, ANALYSIS / "snippets", shown_as="local/results")
    assert len(tm.views) == 1 and len(tm.errors) == 1 and "broken" in tm.errors[0]
    v = tm.views[0]
    assert tm.file_of(v) == "local/results/fixture-a/quick.json"
    assert {s.name for s in v.runners} == {"fixture-a/full", "fixture-b/full"}
    claim = next(c for c in v.claims if c.claim_id == "fast_beats_default")
    assert claim.here != claim.there["fixture-a/full"]
    assert (claim.here_finding, claim.there_finding["fixture-a/full"]) == (Finding.SLOWER, Finding.FASTER)
    assert sorted(p.name for p in results.rglob("*.json")) == ["full.json", "full.json"]
