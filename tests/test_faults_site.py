"""The site built by MkDocs (``--strict``, the real hook) from a data folder holding bad files
beside good ones, and metadata strings carrying HTML and script (no TensorFlow).

The docstring lines "Fault:" / "Happens:" / "Kept:" feed the guide's "Faults we test" page."""

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

from test_intake_limits import deep_nesting, huge_int_median
from tfperf.store.ids import env_id

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
ANALYSIS = FIXTURES / "site" / "analysis"
BAD = {  # runner folder -> frozen malformed fixture (tests/fixtures/results) and the field it names
    "bad-json": ("malformed_json.json", "(file)"),
    "bad-version": ("schema_v7.json", "schema_version"),
    "bad-nan": ("nan_median.json", "results[1].timing.summary.median"),
    "bad-negative": ("negative_time.json", "results[2].timing.summary.median"),
    "bad-missing": ("missing_field.json", "results[1].timing.summary.median"),
}
PAGE = """# Fault page

<!-- tfperf:runners -->

<!-- tfperf:recommendations fixture_topic -->

<!-- tfperf:claims fixture_topic -->
"""
SCRIPT = "<script>alert('tfperf')</script>"
# Files that used to crash the build itself (OverflowError, RecursionError), made at test time.
CRASHING = {"bad-huge-int": huge_int_median, "bad-deep": deep_nesting}


def _data(tmp_path: Path) -> Path:
    results = tmp_path / "data" / "results"
    shutil.copytree(ANALYSIS / "data" / "results", results)
    for folder, (name, _) in BAD.items():
        (results / folder).mkdir()
        shutil.copyfile(FIXTURES / "results" / name, results / folder / "full.json")
    for folder, make in CRASHING.items():
        (results / folder).mkdir()
        (results / folder / "full.json").write_text(make(), encoding="utf-8")
    doc = json.loads((results / "fixture-a" / "full.json").read_text())
    doc["runner"]["description"] = SCRIPT
    doc["runner"]["contributed_by"] = '"><img src=x onerror=alert(1)>'
    renamed = {}
    for old, env in doc["environments"].items():
        env["cpu_model"] = SCRIPT
        renamed[old] = env_id(env)          # the id is a hash of the record: keep the file valid
    doc["environments"] = {renamed[k]: v for k, v in doc["environments"].items()}
    for r in doc["results"]:
        r["env_id"] = renamed.get(r["env_id"], r["env_id"])
    for r in doc["noise"] + doc["breakdowns"]:
        r["env_id"] = renamed.get(r.get("env_id"), r.get("env_id"))
    (results / "fixture-a" / "full.json").write_text(json.dumps(doc))
    return results


def _build(tmp_path: Path, results: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    docs, site = tmp_path / "docs", tmp_path / "site"
    docs.mkdir()
    (docs / "index.md").write_text(PAGE)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config.update(docs_dir=str(docs), site_dir=str(site), nav=[{"Faults": "index.md"}],
                  hooks=[str(ROOT / h) for h in config.get("hooks", [])], extra_css=[], extra_javascript=[])
    for ext in config["markdown_extensions"]:
        if isinstance(ext, dict) and "pymdownx.snippets" in ext:
            ext["pymdownx.snippets"]["base_path"] = [str(ANALYSIS / "snippets")]
    cfg = tmp_path / "mkdocs.yml"
    cfg.write_text(yaml.safe_dump(config))
    env = {**os.environ, "TFPERF_RESULTS": str(results), "TFPERF_SNIPPETS": str(ANALYSIS / "snippets"),
           "TFPERF_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT / "bench")}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(cfg)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    return proc, site


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], str, Path]:
    tmp = tmp_path_factory.mktemp("faultsite")
    results = _data(tmp)
    proc, site = _build(tmp, results)
    html = (site / "index.html").read_text() if (site / "index.html").exists() else ""
    return proc, html, site


def test_site_builds_with_bad_results_files(built: tuple[subprocess.CompletedProcess[str], str, Path]) -> None:
    """Fault: results files that are malformed JSON, of an unknown schema version, with NaN or negative times, missing a field, with a 400-digit integer, or nested 200,000 levels deep, beside valid ones, at site build time.
    Happens: `mkdocs build --strict` still passes; the page shows a box listing each skipped file with the field at fault.
    Kept: the valid runners' tables and claims are drawn as if the bad files were absent; the store's own checks are test_store.py::test_bad_fixture_names_file_and_field and ::test_load_dir_keeps_good_files_despite_bad_ones."""
    proc, html, _ = built
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = re.findall(r"<li>(.*?)</li>", html)
    for folder, (_, field) in BAD.items():
        item = next((i for i in items if f"{folder}/full.json" in i), "")
        assert item, f"{folder} is not named on the page"
        assert field in item, (folder, field, item)
    for folder in CRASHING:
        assert any(f"{folder}/full.json" in i for i in items), f"{folder} is not named on the page"
    assert html.count("fixture-b") > 1 and "fast is faster than the default." in html


def test_metadata_markup_is_rendered_as_text(built: tuple[subprocess.CompletedProcess[str], str, Path]) -> None:
    """Fault: a results file whose runner description, contributor and CPU name are HTML and script ("<script>alert(...)</script>", an <img onerror>).
    Happens: the built page shows them as text (escaped); no script or img element from data reaches the HTML. Unit-level: test_render.py::test_markup_in_data_is_escaped.
    Kept: the runner and its results are still shown."""
    proc, html, _ = built
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "&lt;script&gt;alert(&#x27;tfperf&#x27;)&lt;/script&gt;" in html
    assert SCRIPT not in html and "<img src=x" not in html
    assert 'id="runner-fixture-a"' in html, "the runner with markup in its metadata is still shown"
    assert "fixture-a/full.json</code>" not in html, "and its file was not skipped"
