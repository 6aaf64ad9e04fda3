"""Contributing a results file: provenance given to ``tfperf run`` is stored in the file and
survives the merge; a second submission of the same file is recognised as a duplicate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from store_records import make_result

from tfperf import store
from tfperf.cli import build_parser
from tfperf.measure.supervise import orchestrate
from tfperf.measure.supervise.orchestrate import Progress


def test_run_flags_reach_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_run(options: orchestrate.RunOptions) -> orchestrate.Report:
        seen["options"] = options
        return orchestrate.Report()

    monkeypatch.setattr(orchestrate, "run", fake_run)
    args = build_parser().parse_args(["run", "--runner", "my-box", "--runner-description", "Ryzen 7 7840U, 32 GB",
                                      "--contributor", "@someone"])
    assert args.handler(args) == 0
    o = seen["options"]
    assert (o.runner, o.description, o.contributed_by) == ("my-box", "Ryzen 7 7840U, 32 GB", "@someone")


def test_provenance_is_stored_and_survives_merge(tmp_path: Path) -> None:
    opts = orchestrate.RunOptions(runner="test-runner", data_root=tmp_path / "fork", description="Ryzen 7 7840U",
                                  contributed_by="@someone", progress=False)
    path = store.results_path(opts.data_root, opts.runner, opts.profile)
    runner = orchestrate.Runner(opts, path, Progress(1, enabled=False))
    runner._save(results=[make_result(1)])
    doc = store.load(path)
    assert doc["runner"] == {"label": "test-runner", "description": "Ryzen 7 7840U", "contributed_by": "@someone"}
    # A later resume without the flags keeps the provenance.
    orchestrate.Runner(orchestrate.RunOptions(runner="test-runner", data_root=opts.data_root, progress=False),
                       path, Progress(1, enabled=False))._save(results=[make_result(2)])
    assert store.load(path)["runner"]["contributed_by"] == "@someone"
    # The maintainer's merge into data/ keeps it; the same file again is a duplicate.
    first = store.merge_into(tmp_path / "data", [path])
    merged = store.load(first.merged[0][1])
    assert merged["runner"]["description"] == "Ryzen 7 7840U" and len(merged["results"]) == 2
    again = store.merge_into(tmp_path / "data", [path])
    assert again.duplicates and not again.merged and not again.written
