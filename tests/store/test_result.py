"""The result model (tfperf.store.result): a stored result read into ``ResultRecord`` and
written back is the same JSON, for every result in the committed data; the harness's records
reach the file through ``to_json``; the readings the analysis shares."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from store_records import make_result

from tfperf import store
from tfperf.store.result import OutputRecord, ResultRecord, TimingRecord

DATA = Path(__file__).resolve().parents[2] / "data" / "results"
FILES = sorted(DATA.glob("*/*.json"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_committed_result_reads_and_writes_back_unchanged(path: Path) -> None:
    results = json.loads(path.read_text(encoding="utf-8"))["results"]
    assert results
    changed = [r["case_id"] for r in results if ResultRecord.from_json(r).to_json() != r]
    assert changed == [], f"{len(changed)} of {len(results)} results change on the way through, e.g. {changed[0]}"


def test_the_committed_data_has_results() -> None:
    assert len(FILES) >= 4            # the parametrised test above cannot pass on no files


def test_a_record_is_frozen_and_its_readings_follow_its_parts() -> None:
    r = ResultRecord.from_json(make_result(1, median=0.002))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.status = "error"  # type: ignore[misc]
    assert r.ok and r.median == pytest.approx(0.002) and r.samples and len(r.rounds) in (0, len(r.samples))
    assert r.arrival_id == "back_to_back" and r.finished.year == 2026
    failed = ResultRecord.from_json(make_result(2, status="error"))
    assert not failed.ok and failed.median is None and failed.samples == () and failed.inner_loops == 1


def test_an_output_of_nothing_but_nan_has_no_difference_to_report() -> None:
    base = ResultRecord.from_json(make_result(1))
    out = OutputRecord(max_abs_diff=0.0, max_rel_diff=0.0, within_tolerance=False, values=10, nonfinite=10)
    assert dataclasses.replace(base, output=out).max_abs_diff is None
    assert dataclasses.replace(base, output=dataclasses.replace(out, nonfinite=3)).max_abs_diff == 0.0


def test_a_reference_without_a_comparison_matches_itself() -> None:
    base = dataclasses.replace(ResultRecord.from_json(make_result(1)), output=None)
    assert dataclasses.replace(base, is_reference=True).within_tolerance is True
    assert dataclasses.replace(base, is_reference=False).within_tolerance is None


def test_rounds_that_do_not_match_the_samples_are_not_read() -> None:
    r = ResultRecord.from_json(make_result(1))
    assert r.timing is not None
    bad = dataclasses.replace(r, timing=dataclasses.replace(r.timing, rounds=(0,)))
    assert bad.rounds == () and bad.samples


def test_the_store_writes_a_record_as_its_json(tmp_path: Path) -> None:
    record = ResultRecord.from_json(make_result(3))
    doc = store.append(tmp_path / "quick.json", runner_label="test-runner", profile="quick", results=[record])
    assert doc["results"] == [record.to_json()]
    timing = TimingRecord(inner_loops=2, summary=record.to_json()["timing"]["summary"],  # type: ignore[index]
                          samples=record.samples)
    assert "rounds" not in timing.to_json() and "tail" not in timing.to_json()
