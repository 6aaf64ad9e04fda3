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
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from test_intake_limits import deep_nesting, huge_int_median

from tfperf.store.record_types import env_id

ROOT = Path(__file__).resolve().parents[2]
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


def _reserved_copy(path: Path) -> None:
    """A valid results file claiming a reserved runner label, one folder too deep."""
    path.parent.mkdir(parents=True)
    doc = json.loads((ANALYSIS / "data" / "results" / "fixture-b" / "full.json").read_text())
    doc["runner"]["label"] = "gha-macos15-arm64"
    path.write_text(json.dumps(doc))


def _in_folder(make: Callable[[Path], None]) -> Callable[[Path], None]:
    def made(path: Path) -> None:
        path.parent.mkdir(parents=True)
        make(path)
    return made


# Paths under the results folder that are not regular results files where the build reads
# them (path -> how it is made, what the page says it is). They used to be published byte for
# byte (/etc/passwd, the build's environment), copied until a size cap (/dev/zero), or to
# stop the build (FileNotFoundError, IsADirectoryError).
ODD: dict[str, tuple[Callable[[Path], None], str]] = {
    "passwd-box/full.json": (_in_folder(lambda p: p.symlink_to("/etc/passwd")), "is a symbolic link to /etc/passwd"),
    "environ-box/full.json": (_in_folder(lambda p: p.symlink_to("/proc/self/environ")),
                              "is a symbolic link to /proc/self/environ"),
    "zero-box/full.json": (_in_folder(lambda p: p.symlink_to("/dev/zero")), "is a symbolic link to /dev/zero"),
    "gone-box/full.json": (_in_folder(lambda p: p.symlink_to(p.parent / "nowhere.json")), "which does not exist"),
    "folder-box/full.json": (_in_folder(lambda p: p.mkdir()), "is a directory"),
    "fifo-box/full.json": (_in_folder(os.mkfifo), "is a FIFO (named pipe)"),
    "my-box/sub/full.json": (_reserved_copy, "is not at &lt;runner&gt;/&lt;profile&gt;.json"),
}


def _data(tmp_path: Path) -> Path:
    results = tmp_path / "data" / "results"
    shutil.copytree(ANALYSIS / "data" / "results", results)
    for folder, (name, _) in BAD.items():
        (results / folder).mkdir()
        shutil.copyfile(FIXTURES / "results" / name, results / folder / "full.json")
    for folder, make in CRASHING.items():
        (results / folder).mkdir()
        (results / folder / "full.json").write_text(make(), encoding="utf-8")
    for rel, (make_odd, _) in ODD.items():
        make_odd(results / rel)
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


def _build(tmp_path: Path, results: Path, page: str = PAGE,
           snippets: Path = ANALYSIS / "snippets") -> tuple[subprocess.CompletedProcess[str], Path]:
    docs, site = tmp_path / "docs", tmp_path / "site"
    docs.mkdir()
    (docs / "index.md").write_text(page)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config.update(docs_dir=str(docs), site_dir=str(site), nav=[{"Faults": "index.md"}],
                  hooks=[str(ROOT / h) for h in config.get("hooks", [])], extra_css=[], extra_javascript=[])
    for ext in config["markdown_extensions"]:
        if isinstance(ext, dict) and "pymdownx.snippets" in ext:
            ext["pymdownx.snippets"]["base_path"] = [str(snippets)]
    cfg = tmp_path / "mkdocs.yml"
    cfg.write_text(yaml.safe_dump(config))
    env = {**os.environ, "TFPERF_RESULTS": str(results), "TFPERF_SNIPPETS": str(snippets),
           "TFPERF_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT / "bench")}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(cfg)], check=False, env=env,
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
    Kept: the valid runners' tables and claims are drawn as if the bad files were absent.
    Also: test_store.py::test_bad_fixture_names_file_and_field test_store.py::test_load_dir_keeps_good_files_despite_bad_ones"""
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
    Happens: the built page shows them as text (escaped); no script or img element from data reaches the HTML.
    Kept: the runner and its results are still shown.
    Also: test_render.py::test_markup_in_data_is_escaped"""
    proc, html, _ = built
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "&lt;script&gt;alert(&#x27;tfperf&#x27;)&lt;/script&gt;" in html
    assert SCRIPT not in html and "<img src=x" not in html
    assert 'id="runner-fixture-a"' in html, "the runner with markup in its metadata is still shown"
    assert "fixture-a/full.json</code>" not in html, "and its file was not skipped"


def test_links_folders_and_fifos_in_the_results_folder_are_named_and_never_published(
        built: tuple[subprocess.CompletedProcess[str], str, Path]) -> None:
    """Fault: in the results folder at site build time, symbolic links named full.json to /etc/passwd, /proc/self/environ (the build's environment) and /dev/zero, a link to nothing, a folder and a FIFO named full.json, and a valid file one folder too deep claiming the reserved label gha-macos15-arm64.
    Happens: `mkdocs build --strict` passes; the page's box names each path and what it is ("is a symbolic link to /etc/passwd", "is a FIFO (named pipe)", "is not at <runner>/<profile>.json"); nothing is read through a link, and the reserved runner is not listed.
    Kept: the site publishes exactly the results files that loaded, read again as regular files within the size limit: no link's target, no malformed file."""
    proc, html, site = built
    assert proc.returncode == 0, proc.stderr[-3000:]
    items = re.findall(r"<li>(.*?)</li>", html)
    for rel, (_, words) in ODD.items():
        item = next((i for i in items if rel in i), "")
        assert words in item, (rel, item)
    assert "gha-macos15-arm64" not in html
    published = sorted(p.relative_to(site / "data" / "results").as_posix()
                       for p in (site / "data" / "results").rglob("*") if p.is_file())
    loaded = sorted(p.relative_to(ANALYSIS / "data" / "results").as_posix()
                    for p in (ANALYSIS / "data" / "results").rglob("*.json"))
    assert published == loaded
    for p in (site / "data" / "results").rglob("*"):
        assert not p.is_symlink() and (p.is_dir() or b"root:" not in p.read_bytes())


# -- a topic YAML or snippet that does not load --------------------------------------------

BAD_TOPIC_PAGE = """# Bad topics

<!-- tfperf:claims fixture_topic -->

<!-- tfperf:recommendations fixture_topic -->

<!-- tfperf:claims second_topic -->

```python
--8<-- "second_topic.py"
```
"""


@pytest.fixture(scope="module")
def bad_topics(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], str, Path]:
    tmp = tmp_path_factory.mktemp("badtopic")
    snippets = tmp / "snippets"
    shutil.copytree(ANALYSIS / "snippets", snippets)
    text = (snippets / "fixture_topic.yaml").read_text()
    (snippets / "fixture_topic.yaml").write_text(text.replace('settings: {keras: ["3"]}',
                                                              'settings: {keras: ["3"]}\n    budget: {budget_s: fast}'))
    (snippets / "second_topic.yaml").write_text(text.replace("topic: fixture_topic", "topic: second_topic")
                                                .replace("snippet: fixture_topic.py", "snippet: second_topic.py"))
    (snippets / "second_topic.py").write_bytes((snippets / "fixture_topic.py").read_bytes() + b"# caf\xe9\n")
    proc, site = _build(tmp, ANALYSIS / "data" / "results", page=BAD_TOPIC_PAGE, snippets=snippets)
    html = (site / "index.html").read_text() if (site / "index.html").exists() else ""
    return proc, html, snippets


def test_a_bad_topic_yaml_or_snippet_gets_an_error_box_and_fails_strict_with_its_cause(
        bad_topics: tuple[subprocess.CompletedProcess[str], str, Path]) -> None:
    """Fault: at site build time, a topic YAML with `budget_s: fast` and a topic whose snippet holds a non-UTF-8 byte (included in the page with `--8<--`).
    Happens: `mkdocs build --strict` fails without a traceback, and its warnings are one line per topic naming the file, the key path and the cause; each topic's blocks show one box with the same error, and the include line says the snippet is not shown.
    Kept: the page is still built: the other blocks and the results files are drawn; nothing of the broken topics is drawn as if they had no claims."""
    proc, html, snippets = bad_topics
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("WARNING")]
    assert warnings[:2] == [
        ("WARNING -  tfperf: topic fixture_topic not loaded: "
        f"{snippets / 'fixture_topic.yaml'}: profiles.full.budget.budget_s: must be a finite number above 0, "
        "got 'fast'"),
        (f"WARNING -  tfperf: topic second_topic not loaded: {snippets / 'second_topic.py'}: (file): not UTF-8 text "
        f"(byte {len((snippets / 'fixture_topic.py').read_bytes()) + 5})")], warnings
    assert "Aborted with 2 warnings in strict mode!" in proc.stdout + proc.stderr
    assert html.count("The topic fixture_topic could not be loaded") == 1
    assert html.count("The topic second_topic could not be loaded") == 1
    assert "budget_s: must be a finite number above 0" in html and "declares no claims" not in html
    assert "second_topic.py: not shown: topic second_topic did not load" in html
