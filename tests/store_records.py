"""Builders of results records for the store tests (no TensorFlow).

Records are derived from the frozen fixture ``fixtures/results/valid.json`` so that the
tests use the shape the worker writes; only ids and numbers are changed."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tfperf import stats
from tfperf.store import record_types as ids

FIXTURES = Path(__file__).parent / "fixtures" / "results"
Doc = dict[str, Any]


def valid_doc() -> Doc:
    doc: Doc = json.loads((FIXTURES / "valid.json").read_text(encoding="utf-8"))
    return doc


def make_result(n: int, *, runner: str = "test-runner", status: str = "ok", median: float = 0.001,
                finished_at: str = "2026-05-01T12:00:00+00:00", snippet_hash: str = "abc") -> Doc:
    """Result ``n`` of a fake topic (distinct case ids for distinct ``n``)."""
    base = valid_doc()
    r: Doc = copy.deepcopy(base["results"][0])
    r["params"] = {"batch": n}
    r["case_id"] = f"{r['topic']}/batch={n}/keras=3/{r['variant']}"
    r["key"] = {**r["key"], "runner": runner, "snippet_hash": snippet_hash}
    r["key_hash"] = ids.key_hash(r["key"])
    r["finished_at"] = finished_at
    r["env_id"] = None
    r["status"] = status
    if status == "ok":
        # Scale the samples to the wanted median; the summary is the summary of the samples.
        old = float(stats.median(r["timing"]["samples"]))
        r["timing"]["samples"] = [x * median / old for x in r["timing"]["samples"]]
        r["timing"]["summary"] = stats.summarize(r["timing"]["samples"]).as_dict()
    else:
        r.update(timing=None, first_call_s=None, error="Traceback: boom", output=None)
    return r


def make_doc(runner: str = "test-runner", profile: str = "quick", results: list[Doc] | None = None,
             description: str | None = None) -> Doc:
    return {
        "schema_version": 2, "tfperf_version": "0.1.0", "scenarios": [],
        "runner": {"label": runner, "description": description, "contributed_by": None},
        "profile": profile, "environments": {}, "results": list(results or []), "noise": [], "breakdowns": [],
    }
