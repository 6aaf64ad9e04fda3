"""The maintainers' reports over the committed data (scripts/method_report.py,
scripts/classic_findings.py) run to the end and speak the guide's vocabulary: both once
read claim fields that a rewrite of the analysis had removed, and nothing noticed until a
maintainer ran them. No TensorFlow."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tfperf.analyse.effects import vocabulary

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
