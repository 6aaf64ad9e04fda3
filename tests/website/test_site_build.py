"""`mkdocs build --strict` on data with a malformed file: the build passes, the page names
the file and the field, and everything else still renders (no browser needed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures" / "site" / "analysis"


def test_build_with_a_malformed_file(tmp_path: Path) -> None:
    results = tmp_path / "results"
    shutil.copytree(FIX / "data" / "results", results)
    (results / "broken-runner").mkdir()
    (results / "broken-runner" / "full.json").write_text('{"schema_version": 1, "runner": {}}', encoding="utf-8")
    out = tmp_path / "site"
    env = {**os.environ, "TFPERF_RESULTS": str(results), "TFPERF_CACHE": str(ROOT / "build" / "site-cache"),
           "NO_MKDOCS_2_WARNING": "1"}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], check=False,
                          cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert took < 60, f"build took {took:.1f} s"
    home = (out / "index.html").read_text(encoding="utf-8")
    assert "Some data could not be used" in home and "broken-runner/full.json" in home
    assert "field" in home
    data = (out / "data" / "index.html").read_text(encoding="utf-8")
    assert "broken-runner/full.json" in data
    runners = (out / "runners" / "index.html").read_text(encoding="utf-8")
    assert "fixture-a" in runners and "&lt;script&gt;alert(1)&lt;/script&gt;" in runners
    assert (out / "data" / "results" / "fixture-a" / "full.json").is_file()
    assert (out / "data" / "schema_v2.json").is_file()
    assert (out / "notebooks" / "predict_vs_call.ipynb").is_file()
    # The notebooks are in the nav, and out of the search index (the topic pages explain the code).
    assert "Notebooks" in home and 'href="notebooks/predict_vs_call/"' in home
    index = json.loads((out / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert index["docs"] and not [d for d in index["docs"] if d["location"].startswith("notebooks/")]
    notebook_page = (out / "notebooks" / "predict_vs_call" / "index.html").read_text(encoding="utf-8")
    assert "%%writefile" not in notebook_page            # the timing helper's cell is not on the page
    serving = (out / "topics" / "serving_formats" / "index.html").read_text(encoding="utf-8")
    assert "needs TensorFlow and ai-edge-litert, onnxruntime, tf2onnx" in serving
