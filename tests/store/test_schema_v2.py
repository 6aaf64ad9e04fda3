"""Schema version 2 (interleaved rounds): the step from version 1, and speedups that are
paired when two results share an interleave and unpaired otherwise. No TensorFlow."""

from __future__ import annotations

import copy
import dataclasses
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from tfperf import store
from tfperf.analyse.judge.scenarios import RatioCache
from tfperf.analyse.records import read_documents
from tfperf.errors import ResultsFileError
from tfperf.store.record_types import key_hash

FIXTURES = Path(__file__).parents[1] / "fixtures" / "results"


def test_published_v1_file_migrates_to_v2_and_keeps_every_record(tmp_path: Path) -> None:
    """A frozen slice of the file published before version 2 (measured case after case)."""
    raw = json.loads((FIXTURES / "published_v1.json").read_text(encoding="utf-8"))
    assert raw["schema_version"] == 1
    doc = store.load(FIXTURES / "published_v1.json")
    assert doc["schema_version"] == 2 == store.SCHEMA_VERSION
    assert doc["scenarios"] == []
    assert len(doc["results"]) == len(raw["results"]) and len(doc["noise"]) == len(raw["noise"])
    assert all(r["interleave"] is None for r in doc["results"])
    for old, new in zip(raw["results"], doc["results"]):
        assert {k: v for k, v in new.items() if k != "interleave"} == old
    store.validate(doc, "migrated")
    # Written back, it is a valid version-2 file.
    out = tmp_path / "r" / "full.json"
    out.parent.mkdir()
    store.write_atomic(out, doc)
    assert json.loads(out.read_text())["schema_version"] == 2


def test_v1_results_give_unpaired_speedups() -> None:
    doc = store.load(FIXTURES / "published_v1.json")
    ms, noise, _, _ = read_documents([(FIXTURES / "published_v1.json", doc)])
    by = {m.variant: m for m in ms}
    r = RatioCache().speedup(by["predict"], by["call"])
    assert not r.paired and r.point > 1
    assert all(n.interleave is None for n in noise)


def _v2(tmp_path: Path) -> dict[str, Any]:
    """Two results of one interleave, rounds 0..9; the candidate is exactly 2x faster in
    each round while the machine drifts 3x across the run."""
    doc = store.load(FIXTURES / "valid.json")
    template = next(r for r in doc["results"] if r["status"] == "ok")
    results = []
    for variant, scale in (("predict", 1.0), ("call", 0.5)):
        r = copy.deepcopy(template)
        samples = [scale * (1 + 0.2 * i) / 1000 for i in range(10)]
        r["case_id"] = "/".join(r["case_id"].split("/")[:3] + [variant])
        r["variant"] = variant
        r["timing"]["samples"] = samples
        r["timing"]["rounds"] = list(range(10))
        r["timing"]["summary"] = {**r["timing"]["summary"], "n": 10, "median": statistics.median(samples),
                                  "min": min(samples), "max": max(samples),
                                  "ci_low": min(samples), "ci_high": max(samples)}
        r["interleave"] = {"id": "0123456789abcdef", "baseline": r["case_id"], "seed": "s"}
        results.append(r)
    doc["results"] = results
    return doc


def test_v2_results_of_one_interleave_give_paired_speedups(tmp_path: Path) -> None:
    doc = _v2(tmp_path)
    store.validate(doc, "v2")
    ms, _, _, _ = read_documents([(tmp_path / "v2.json", doc)])
    by = {m.variant: m for m in ms}
    paired = RatioCache().speedup(by["predict"], by["call"])
    assert paired.paired and paired.n == 10
    assert paired.point == pytest.approx(2.0) and paired.low == pytest.approx(2.0)
    # The same samples without the interleave: the drift widens the unpaired interval.
    unpaired = RatioCache().speedup(by["predict"], dataclasses.replace(by["call"], interleave=None))
    assert not unpaired.paired and unpaired.high - unpaired.low > 0.5


def test_round_indices_must_match_the_samples(tmp_path: Path) -> None:
    doc = _v2(tmp_path)
    doc["results"][0]["timing"]["rounds"] = [0, 1]
    with pytest.raises(ResultsFileError, match=r"timing.rounds.*2 round indices for 10 samples"):
        store.validate(doc, "bad.json")


def test_scenario_records_are_checked(tmp_path: Path) -> None:
    doc = _v2(tmp_path)
    snap = {"load": [0.5, 0.4, 0.3], "governor": None, "freq_mhz": None}
    good = {"id": "0123456789abcdef", "topic": doc["results"][0]["topic"], "params": {}, "runner": doc["runner"]["label"],
            "baseline": doc["results"][0]["case_id"], "cases": [r["case_id"] for r in doc["results"]],
            "rounds": 10, "stopped_by": "ci", "seconds": 1.0, "before": snap, "after": snap, "loaded": False,
            "time": "2026-11-23T10:00:00+00:00"}
    doc["scenarios"] = [good]
    store.validate(doc, "ok.json")
    doc["scenarios"] = [{**good, "after": {**snap, "probe_ms": 12.3}}]       # the host probe, since it exists
    store.validate(doc, "ok.json")
    doc["scenarios"] = [{**good, "after": {**snap, "probe_ms": -1.0}}]
    with pytest.raises(ResultsFileError, match=r"scenarios\[0\]\.after\.probe_ms"):
        store.validate(doc, "bad.json")
    doc["scenarios"] = [{**good, "loaded": "no"}]
    with pytest.raises(ResultsFileError, match=r"scenarios\[0\]\.loaded"):
        store.validate(doc, "bad.json")
    doc["scenarios"] = [{**good, "cases": ["../../etc/passwd"]}]
    with pytest.raises(ResultsFileError, match=r"scenarios\[0\]\.cases\[0\]"):
        store.validate(doc, "bad.json")


def test_key_hash_of_fixture_is_consistent() -> None:
    doc = store.load(FIXTURES / "published_v1.json")
    assert all(key_hash(r["key"]) == r["key_hash"] for r in doc["results"])
