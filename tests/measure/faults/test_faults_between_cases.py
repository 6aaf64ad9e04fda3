"""A worker that dies between two cases (no TensorFlow: tests/fake_worker.py)."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from tfperf import store
from tfperf.measure.supervise.orchestrate import RunOptions, run

TESTS = Path(__file__).resolve().parents[2]


def test_worker_dying_between_cases_loses_no_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault: a worker exits while idle, after it was done with one scenario's case and before the next command (a crash in teardown).
    Happens: the next command finds it gone before it was sent; a new worker takes over the group's cases; no case is blamed for the exit.
    Kept: every case measured, none stored as crashed."""
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "t.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n")
    (snippets / "t.yaml").write_text(
        'topic: t\nreference: a\ndefault: a\nvariants: {a: {fn: f}}\nprofiles: {quick: {params: {n: [1, 2, 3, 4]}}}\n')
    python = tmp_path / "fake-python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {TESTS / 'fake_worker.py'} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    marker = tmp_path / "died"
    monkeypatch.setenv("FAKE_WORKER_DIE_ONCE", str(marker))
    report = run(RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                            progress=False, python=str(python)))
    assert marker.exists(), "the first worker did die"
    doc = store.load(report.path)
    assert sorted(r["params"]["n"] for r in doc["results"]) == [1, 2, 3, 4]
    assert all(r["status"] == "ok" for r in doc["results"]), [r["error"] for r in doc["results"]]
    assert report.failed == 0 and report.ran == 4
