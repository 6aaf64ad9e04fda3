"""The per-request arrival patterns judged and answered (analyse/judge/arrivals.py, answers.py),
on the frozen fixture of tests/fixtures/site/make_arrivals_fixture.py (its docstring gives
the designed outcomes), without TensorFlow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfperf.analyse import Finding, question_answers
from tfperf.analyse.dataset import Dataset, analyse_documents
from tfperf.arrival import Pattern, parse_id, words
from tfperf.cases.topic import load_topic
from tfperf.errors import CaseGridError

FIX = Path(__file__).parents[1] / "fixtures" / "site" / "arrivals"
TOPIC = "fixture_arrivals"


@pytest.fixture(scope="module")
def ds() -> Dataset:
    docs = [(p, json.loads(p.read_text(encoding="utf-8"))) for p in sorted((FIX / "data" / "results").rglob("*.json"))]
    return analyse_documents(docs, FIX / "snippets", FIX / "data" / "results")


def test_pattern_ids_parse_and_read_in_words() -> None:
    assert parse_id("idle-10ms") == parse_id("idle-10ms") and parse_id("idle-10ms").gap_s == pytest.approx(0.01)  # type: ignore[union-attr]
    assert parse_id("poisson-0.7").pattern is Pattern.POISSON  # type: ignore[union-attr]
    assert parse_id("back_to_back").pattern is Pattern.BACK_TO_BACK  # type: ignore[union-attr]
    for bad in ("poisson-1", "poisson-0", "idle-5000ms", "idle", "fast", "idle-10"):
        assert parse_id(bad) is None, bad
    assert [words(i) for i in ("back_to_back", "idle-10ms", "poisson-0.3")] == [
        "back to back", "after 10 ms idle", "at random at 30% of full load"]


def test_back_to_back_tables_never_see_a_pattern(ds: Dataset) -> None:
    assert {m.arrival_id for m in ds.measurements} == {"back_to_back"}
    rec = ds.recommendations(TOPIC)
    assert len(rec) == 1 and rec[0].best == "onnx" and rec[0].speedup is not None
    assert rec[0].speedup.point == pytest.approx(4.0)


def test_each_pattern_has_its_table_with_percentiles_and_findings(ds: Dataset) -> None:
    tables = ds.arrival_tables(TOPIC)
    assert [(t.runner, t.profile, t.arrival) for t in tables] == [("fixture-a", "full", "idle-10ms"),
                                                                   ("fixture-a", "full", "poisson-0.7")]
    idle, busy = tables
    assert [r.variant for r in idle.rows] == ["graph", "eager", "onnx"]          # the default first
    graph, eager, onnx = idle.rows
    assert graph.requests == 400 and graph.p50_speedup is None
    assert graph.p50 is not None and graph.p50.value == pytest.approx(2.5e-3, rel=0.01)
    assert graph.p99 is not None and graph.p99.ci_high is not None            # 400 requests bound a p99
    assert onnx.p50_speedup is not None and onnx.p50_speedup.ratio.point == pytest.approx(1 / 0.7, rel=1e-4)
    assert onnx.p50_speedup.finding == Finding.FASTER and onnx.p50_speedup.margin == pytest.approx(0.08)
    assert onnx.p99_speedup is not None and onnx.p99_speedup.finding == Finding.FASTER
    assert onnx.p99_speedup.margin == pytest.approx(0.3)                        # the pattern's A/A noise at p99
    assert eager.p50_speedup is not None and eager.p50_speedup.finding == Finding.SLOWER
    assert idle.noise is not None and idle.noise.value == pytest.approx(0.08) and idle.p99_noise == 0.3
    b_onnx = busy.rows[2]
    assert b_onnx.p50_speedup is not None and b_onnx.p50_speedup.finding == Finding.SAME


def test_a_topic_without_patterns_has_no_tables(ds: Dataset) -> None:
    assert ds.arrival_tables("no_such_topic") == [] and ds.arrival_ids("no_such_topic") == []
    assert ds.arrival_claim_results(TOPIC, "idle-500ms") == []


def test_questions_are_answered_from_the_pattern_they_name(ds: Dataset) -> None:
    qas = {qa.id: qa for qa in question_answers(ds, TOPIC)}
    assert qas["throughput"].arrival is None and qas["throughput"].lead == "Yes" and not qas["throughput"].changes
    one = qas["one_at_a_time"]
    assert one.arrival == "idle-10ms" and one.arrival_text == "Answered for requests after 10 ms idle, one at a time."
    assert [c.runners[0].finding for c in one.claims] == [Finding.FASTER, Finding.SLOWER]
    assert one.changes == (("After 10 ms idle, ONNX Runtime is only 1.43× faster than a tf.function "
                           "(back to back: 4×)"),
                           ("After 10 ms idle, the Keras model eagerly is only 1.4× slower than a tf.function "
                           "(back to back: 2×)"))
    busy = qas["busy"]
    assert busy.lead == "No" and busy.claims[0].runners[0].finding == Finding.SAME
    assert busy.changes == (("At random at 70% of full load, ONNX Runtime is as fast as a tf.function "
                            "(1×; back to back: faster, 4×)"),)


def test_a_question_whose_pattern_has_no_results_is_left_out(ds: Dataset) -> None:
    """Until its pattern is measured: a back-to-back answer would answer another question."""
    assert [qa.id for qa in question_answers(ds, TOPIC)] == ["throughput", "one_at_a_time", "busy"]
    ds2 = analyse_documents([], FIX / "snippets")
    assert [qa.id for qa in question_answers(ds2, TOPIC)] == ["throughput"]


@pytest.mark.parametrize("value", ["idle-10", "poisson-1.5", "slow", "idle-5000ms"])
def test_a_question_naming_no_pattern_fails_in_one_line(tmp_path: Path, value: str) -> None:
    text = (FIX / "snippets" / f"{TOPIC}.yaml").read_text(encoding="utf-8").replace("arrival: poisson-0.7",
                                                                                     f"arrival: {value}")
    (tmp_path / f"{TOPIC}.yaml").write_text(text, encoding="utf-8")
    (tmp_path / f"{TOPIC}.py").write_text((FIX / "snippets" / f"{TOPIC}.py").read_text(encoding="utf-8"))
    with pytest.raises(CaseGridError) as err:
        load_topic(tmp_path / f"{TOPIC}.yaml")
    line = str(err.value)
    assert "\n" not in line and f"{TOPIC}.yaml" in line and "questions.2.arrival" in line and value in line
