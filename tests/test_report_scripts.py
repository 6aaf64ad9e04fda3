"""The maintainers' reports over the committed data (scripts/method_report.py,
scripts/classic_findings.py) run to the end and speak the guide's vocabulary: both once
read claim fields that a rewrite of the analysis had removed, and nothing noticed until a
maintainer ran them. No TensorFlow."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from tfperf.analyse.dataset import Dataset, analyse_documents
from tfperf.analyse.judge.effects import vocabulary

ROOT = Path(__file__).resolve().parents[1]
RUNNERS = sorted(p.name for p in (ROOT / "data" / "results").iterdir() if (p / "full.json").is_file())


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("runner", RUNNERS)
def test_the_method_report_runs_on_each_published_runner(runner: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = _script("method_report").main(["--runner", runner])
    out = capsys.readouterr().out
    assert code in (0, 1), out                     # 1: a target missed, said in the last line
    assert "A/A pairs:" in out and "published speedups:" in out
    assert out.rstrip().splitlines()[-1] in ("all targets met", "some targets missed")


def test_classic_findings_names_each_claims_findings(capsys: pytest.CaptureFixture[str]) -> None:
    assert _script("classic_findings").main([]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) > 5
    words = vocabulary()
    for row in rows[1:]:
        today = row.split(" | ")[4]
        assert any(w in today for w in words), row
        assert "refuted" not in today and "inconclusive" not in today, row


# -- arrival patterns, on the synthetic fixture (tests/fixtures/site/make_arrivals_fixture.py) --

ARRIVALS = ROOT / "tests" / "fixtures" / "site" / "arrivals"


def _arrivals_dataset() -> Dataset:
    docs = [(p, json.loads(p.read_text(encoding="utf-8"))) for p in sorted((ARRIVALS / "data" / "results").rglob("*.json"))]
    return analyse_documents(docs, ARRIVALS / "snippets", ARRIVALS / "data" / "results")


def test_the_method_report_gives_each_patterns_aa_ratio_and_p99_widths() -> None:
    doc = json.loads((ARRIVALS / "data" / "results" / "fixture-a" / "full.json").read_text(encoding="utf-8"))
    lines, ok = _script("method_report").arrival_patterns(doc)
    text = "\n".join(lines)
    assert ok and lines[0] == "arrival patterns: 2"
    assert "idle-10ms (after 10 ms idle): 3 results, 1 A/A pairs; p50 ratios 1.000–1.000, outside ±5% (the target): 0" \
        in text
    assert "CI half-width median 30.0%" in text and "results' CI width (relative to the p99) median" in text
    doc["noise"][1]["ratio"] = 1.07                  # the idle pair, off by more than 5%
    lines, ok = _script("method_report").arrival_patterns(doc)
    assert not ok and "outside ±5% (the target): 1" in "\n".join(lines)
    assert _script("method_report").arrival_patterns({"results": [], "noise": []}) == (
        ["arrival patterns: no arrival data (back to back only)"], True)


def test_vs_pyperf_names_the_pattern_pyperfs_median_matches() -> None:
    match = _script("vs_pyperf").pattern_match
    ds = _arrivals_dataset()
    case = {"topic": "fixture_arrivals", "variant": "graph", "params": {"batch": 1}, "settings": {"keras": "3"}}
    lines = match(2.4e-3, ds, "fixture-a", **case)          # the default: 1 ms back to back, 2.5 ms after idle
    assert lines[-1] == "pyperf's median matches best: after 10 ms idle (idle-10ms)"
    assert any(line.startswith("  back to back: 1.000 ms, pyperf 2.40x") for line in lines)
    assert match(1.02e-3, ds, "fixture-a", **case)[-1] == "pyperf's median matches best: back to back (back_to_back)"
    ds.arrivals = []
    assert match(1.5e-3, ds, "fixture-a", **case) == [
        ("arrival patterns: no arrival data for fixture_arrivals/graph on fixture-a; pyperf's median is 1.50x the "
        "harness's back-to-back median")]
