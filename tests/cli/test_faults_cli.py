"""Faults met before anything is measured (no TensorFlow): names that try to leave the data
folder, and the memory cap every run gets by default.

Each test's docstring starts with "Fault:" / "Happens:" / "Kept:" lines; the guide's
"Faults we test" page is generated from them (tfperf.render.site.faults)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tfperf import cases
from tfperf.cli import build_parser, main
from tfperf.errors import CaseGridError
from tfperf.measure.supervise import orchestrate

TOPIC = {"topic": "ok_topic", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}},
         "profiles": {"quick": {"params": {"n": [1]}}}}


def _topic(tmp_path: Path, **changes: Any) -> Path:
    d = tmp_path / "snippets"
    d.mkdir(exist_ok=True)
    (d / "ok_topic.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n")
    data = {**TOPIC, **changes}
    (d / "ok_topic.yaml").write_text(json.dumps(data))
    return d


@pytest.mark.parametrize("label", ["../../outside", "/etc/evil", "a/b", "..", ".hidden"])
def test_runner_label_traversal_rejected_by_the_cli(tmp_path: Path, label: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Fault: `tfperf run --runner` with a label that tries path traversal ("../../outside", "/etc/evil", "a/b", "..").
    Happens: one-line error naming the field runner.label, exit status 2, before any worker starts.
    Kept: nothing is written, inside or outside the data folder."""
    data, snippets = tmp_path / "data", _topic(tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    rc = main(["run", "--runner", label, "--data", str(data), "--snippets", str(snippets), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "runner.label" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("change, field", [
    ({"topic": "../../escape"}, "topic"),
    ({"variants": {"../x": {"fn": "f"}}, "reference": "../x", "default": "../x"}, "variants.../x"),
    ({"profiles": {"quick": {"params": {"n": ["../../x"]}}}}, "params"),
])
def test_case_name_traversal_rejected(tmp_path: Path, change: dict[str, Any], field: str) -> None:
    """Fault: a topic YAML whose topic, variant or parameter value tries path traversal ("../../escape").
    Happens: one error naming the YAML file and the field, before any case is planned.
    Kept: case ids stay names (letters, digits, _ . + -), so a result can never name a path."""
    d = _topic(tmp_path, **change)
    with pytest.raises(CaseGridError) as err:
        cases.load(d / "ok_topic.yaml")
    assert err.value.path == str(d / "ok_topic.yaml") and err.value.field == field


def _options(monkeypatch: pytest.MonkeyPatch, *argv: str) -> orchestrate.RunOptions:
    seen: dict[str, orchestrate.RunOptions] = {}
    monkeypatch.setattr(orchestrate, "run", lambda o: seen.setdefault("o", o) and orchestrate.Report())
    args = build_parser().parse_args(["run", *argv])
    args.handler(args)
    return seen["o"]


def test_default_run_has_a_memory_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault: a snippet that takes too much memory, in a run started without options.
    Happens: every `tfperf run` caps each worker at 75% of physical memory by default (--memory-limit-mb N to change, 0 for none); a worker above it is killed and its case stored as crashed.
    Kept: the machine stays usable; the kernel's OOM killer never has to choose a process."""
    ram_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    assert _options(monkeypatch).memory_limit_mb == pytest.approx(0.75 * ram_mb, abs=1)
    assert _options(monkeypatch, "--memory-limit-mb", "900").memory_limit_mb == 900
    assert _options(monkeypatch, "--memory-limit-mb", "0").memory_limit_mb is None
