"""Arrival patterns in the topic YAML, the case grid, the results file and the analysis (no
TensorFlow): a profile's `arrivals:` is typed and range-checked when the topic loads, each
mistake one line naming the file and the field; without it a topic is exactly what it was;
results stored before patterns load as back to back; a pattern's records are checked
(case id, latencies, percentiles) and kept apart from the back-to-back tables."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tfperf import cases, store
from tfperf.analyse.dataset import analyse_documents
from tfperf.analyse.records import read_documents
from tfperf.arrival import BACK_TO_BACK, Arrival, Pattern
from tfperf.errors import CaseGridError, ResultsFileError
from tfperf.measure.supervise.records import tail_record
from tfperf.stats import median, summarize
from tfperf.store.record_types import key_hash

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "results"

TOPIC: dict[str, Any] = {
    "topic": "t", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}, "b": {"fn": "g"}},
    "claims": [{"id": "b_beats_a", "text": "b is faster", "candidate": "b", "baseline": "a"}],
    "profiles": {"quick": {"params": {"n": [1, 2]}}},
}


def _load(tmp_path: Path, arrivals: Any = None, **profile: Any) -> list[cases.Case]:
    data = copy.deepcopy(TOPIC)
    if arrivals is not None:
        data["profiles"]["quick"]["arrivals"] = arrivals
    data["profiles"]["quick"].update(profile)
    (tmp_path / "t.py").write_text("def setup(p):\n    return {}\n")
    (tmp_path / "t.yaml").write_text(json.dumps(data))
    return cases.expand(cases.load(tmp_path / "t.yaml"), "quick")


def test_patterns_multiply_the_grid_and_name_their_cases(tmp_path: Path) -> None:
    got = _load(tmp_path, [{"pattern": "back_to_back"}, {"pattern": "idle", "gap_s": 0.01},
                           {"pattern": "poisson", "rate": 0.3}, {"pattern": "poisson", "rate": 0.7, "requests": 200}],
                exclude=[{"arrival": ["poisson-0.3", "poisson-0.7"], "n": 2}])
    assert [c.case_id for c in got if c.variant == "b"] == [
        "t/n=1/default/b", "t/n=2/default/b", "t/n=1/default/b@idle-10ms", "t/n=2/default/b@idle-10ms",
        "t/n=1/default/b@poisson-0.3", "t/n=1/default/b@poisson-0.7"]
    assert sorted({c.scenario_id for c in got}) == ["n=1", "n=1@idle-10ms", "n=1@poisson-0.3", "n=1@poisson-0.7",
                                                    "n=2", "n=2@idle-10ms"]
    idle = next(c.arrival for c in got if c.arrival.pattern is Pattern.IDLE)
    assert (idle.gap_s, idle.block) == (0.01, 20)
    assert {c.arrival.block for c in got if c.arrival.pattern is Pattern.POISSON} == {50, 200}


def test_a_topic_without_patterns_is_what_it_was(tmp_path: Path) -> None:
    """Every topic of the project: its back-to-back cases have the ids stored before
    patterns; a profile that declares no pattern is back to back alone; a per-request
    pattern is one request of one sample (batch 1)."""
    assert [c.case_id for c in _load(tmp_path)] == ["t/n=1/default/a", "t/n=1/default/b",
                                                    "t/n=2/default/a", "t/n=2/default/b"]
    declared = set()
    for path in sorted((ROOT / "snippets").glob("*.yaml")):
        topic = cases.load(path)
        for name, profile in topic.profiles.items():
            got = cases.expand(topic, name)
            plain = [c for c in got if not c.arrival.per_request]
            assert plain and all("@" not in c.case_id and c.scenario_id == c.params_id for c in plain)
            if profile.arrivals == (BACK_TO_BACK,):
                assert len(plain) == len(got)
            else:
                declared.add(f"{topic.name}/{name}")
                assert all(c.params["batch"] == 1 for c in got if c.arrival.per_request)
    assert declared == {"cpu_threads/full", "cpu_threads/history", "predict_vs_call/full", "serving_formats/full",
                        "serving_formats/history"}


@pytest.mark.parametrize(("arrivals", "field", "problem"), [
    ([], "profiles.quick.arrivals", "must list at least one pattern"),
    ("idle", "profiles.quick.arrivals", "must be a list"),
    ([{"gap_s": 0.01}], "profiles.quick.arrivals.0.pattern", "missing"),
    ([{"pattern": "burst"}], "profiles.quick.arrivals.0.pattern", "must be one of back_to_back, idle, poisson"),
    ([{"pattern": "idle"}], "profiles.quick.arrivals.0.gap_s", "missing (the idle pattern needs it)"),
    ([{"pattern": "idle", "gap_s": -0.01}], "profiles.quick.arrivals.0.gap_s", "must be seconds from 0 to 1"),
    ([{"pattern": "idle", "gap_s": 10}], "profiles.quick.arrivals.0.gap_s", "must be seconds from 0 to 1"),
    ([{"pattern": "idle", "gap_s": 0.01, "rate": 0.5}], "profiles.quick.arrivals.0.rate",
     "not a key of the idle pattern"),
    ([{"pattern": "poisson"}], "profiles.quick.arrivals.0.rate", "missing (the poisson pattern needs it)"),
    ([{"pattern": "poisson", "rate": 1}], "profiles.quick.arrivals.0.rate", "above 0 and below 1, got 1"),
    ([{"pattern": "poisson", "rate": 0}], "profiles.quick.arrivals.0.rate", "above 0 and below 1, got 0"),
    ([{"pattern": "poisson", "rate": ".nan"}], "profiles.quick.arrivals.0.rate", "above 0 and below 1"),
    ([{"pattern": "poisson", "rate": 0.5, "requests": 1}], "profiles.quick.arrivals.0.requests",
     "a whole number from 2 to 10000"),
    ([{"pattern": "poisson", "rate": 0.5, "requests": 2.5}], "profiles.quick.arrivals.0.requests",
     "a whole number from 2 to 10000"),
    ([{"pattern": "poisson", "rate": 0.5, "gap": 1}], "profiles.quick.arrivals.0.gap", "unknown key"),
    ([{"pattern": "back_to_back", "requests": 10}], "profiles.quick.arrivals.0.requests",
     "not a key of the back_to_back pattern (its keys: none)"),
    ([{"pattern": "poisson", "rate": 0.3}, {"pattern": "poisson", "rate": 0.30, "requests": 9}],
     "profiles.quick.arrivals.1", "poisson-0.3 is listed twice"),
])
def test_a_wrong_declaration_is_one_line_naming_the_file_and_field(tmp_path: Path, arrivals: Any, field: str,
                                                                   problem: str) -> None:
    with pytest.raises(CaseGridError) as err:
        _load(tmp_path, arrivals)
    assert err.value.path == str(tmp_path / "t.yaml") and err.value.field == field
    assert problem in err.value.problem and "\n" not in str(err.value)


def test_only_an_exclude_may_name_the_arrival(tmp_path: Path) -> None:
    data = copy.deepcopy(TOPIC)
    data["claims"][0]["where"] = {"arrival": "idle-10ms"}
    (tmp_path / "t.py").write_text("def setup(p):\n    return {}\n")
    (tmp_path / "t.yaml").write_text(json.dumps(data))
    with pytest.raises(CaseGridError, match="claims.0.where.arrival: names no parameter"):
        cases.load(tmp_path / "t.yaml")


def test_an_arrival_record_round_trips() -> None:
    for arrival in (Arrival(Pattern.IDLE, gap_s=0.002, requests=30), Arrival(Pattern.POISSON, rate=0.7)):
        assert Arrival.of(arrival.record()) == (arrival if arrival.requests else Arrival(Pattern.POISSON, rate=0.7,
                                                                                         requests=50))
    assert Arrival.of(None) == BACK_TO_BACK and BACK_TO_BACK.id == "back_to_back"
    with pytest.raises(ValueError):
        BACK_TO_BACK.record()


# -- the results file ---------------------------------------------------------------------------

def _valid() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((FIXTURES / "valid.json").read_text(encoding="utf-8"))
    return doc


def _with_pattern(doc: dict[str, Any]) -> dict[str, Any]:
    """The valid fixture with its first result measured under a 10 ms idle gap: 3 rounds
    of 4 requests."""
    r = copy.deepcopy(doc["results"][0])
    latencies = [[0.0021, 0.0022, 0.0023, 0.0031], [0.0020, 0.0024, 0.0022, 0.0025], [0.0023, 0.0021, 0.0026, 0.0029]]
    samples = [median(x) for x in latencies]
    r["case_id"] += "@idle-10ms"
    r["arrival"] = {**Arrival(Pattern.IDLE, gap_s=0.01, requests=4).record(), "service_s": 0.0009}
    r["timing"] = {"inner_loops": 1, "samples": samples, "summary": summarize(samples).as_dict(), "rounds": [0, 1, 2],
                   "latencies": latencies, "tail": tail_record([x for lat in latencies for x in lat])}
    doc["results"].append(r)
    return doc


def test_old_results_load_as_back_to_back() -> None:
    for name in ("valid.json", "published_v1.json"):
        doc = store.load(FIXTURES / name)
        assert not any("arrival" in r for r in doc["results"])
        ms, noise, _, _ = read_documents([(FIXTURES / name, doc)])
        assert ms and all(m.arrival_id == "back_to_back" and m.latencies == () for m in ms)
        assert all(n.arrival == "back_to_back" for n in noise)
        assert all(Arrival.of(r.get("arrival")) == BACK_TO_BACK for r in doc["results"])


def test_a_pattern_result_is_valid_and_read_apart(tmp_path: Path) -> None:
    doc = _with_pattern(_valid())
    store.validate(doc, "pattern.json")
    path = tmp_path / "quick.json"
    store.write_atomic(path, doc)
    ds = analyse_documents([(path, store.load(path))], ROOT / "snippets")
    assert [m.case_id for m in ds.arrivals] == [doc["results"][-1]["case_id"]]
    assert ds.arrivals[0].arrival_id == "idle-10ms" and len(ds.arrivals[0].latencies) == 3
    assert len(ds.measurements) == len(doc["results"]) - 1 and all("@" not in m.case_id for m in ds.measurements)


def _problem(doc: dict[str, Any]) -> ResultsFileError:
    with pytest.raises(ResultsFileError) as err:
        store.validate(doc, "bad.json")
    assert "\n" not in str(err.value)
    return err.value


@pytest.mark.parametrize(("change", "field", "problem"), [
    (lambda r: r.pop("arrival"), "results[4].case_id", "does not end with its variant"),
    (lambda r: r["arrival"].update(id="idle-2ms"), "results[4].case_id", "its variant and arrival pattern"),
    (lambda r: r["arrival"].update(pattern="burst"), "results[4].arrival.pattern", "is not one of"),
    (lambda r: r["arrival"].update(rate=1.5), "results[4].arrival.rate", "must be < 1"),
    (lambda r: r["timing"]["latencies"][1].__setitem__(2, -0.001), "results[4].timing.latencies[1][2]",
     "must be > 0"),
    (lambda r: r["timing"]["latencies"].pop(), "results[4].timing.latencies", "2 rounds of latencies for 3 samples"),
    (lambda r: r["timing"]["latencies"][0].__setitem__(1, 0.0029), "results[4].timing.samples[0]",
     "is not the median latency of round 0's requests"),
    (lambda r: r["timing"]["tail"].update(n=11), "results[4].timing.tail.n", "but there are 12 latencies"),
    (lambda r: r["timing"]["tail"]["p99"].update(value=0.01), "results[4].timing.tail.p99.value",
     "is not the p99 of the latencies"),
    (lambda r: r["timing"]["latencies"].__setitem__(0, []), "results[4].timing.latencies[0]", "should be non-empty"),
])
def test_a_wrong_pattern_record_is_refused_naming_its_field(change: Any, field: str, problem: str) -> None:
    doc = _with_pattern(_valid())
    change(doc["results"][-1])
    err = _problem(doc)
    assert err.field == field and problem in err.problem, str(err)


def test_latencies_without_an_arrival_are_refused() -> None:
    doc = _with_pattern(_valid())
    r = doc["results"][-1]
    r.pop("arrival")
    r["case_id"] = r["case_id"].split("@")[0]
    err = _problem(doc)
    assert err.field == "results[4].timing.latencies" and "without an arrival pattern" in err.problem


def test_a_pattern_noise_record_is_checked_too() -> None:
    doc = _valid()
    noise = copy.deepcopy(doc["noise"][0])
    noise.update(case_id=noise["case_id"] + "@poisson-0.7", arrival="poisson-0.7", samples=[0.002, 0.003],
                 rounds=[0, 1], latencies=[[0.001, 0.002, 0.003], [0.003, -1.0, 0.004]],
                 p99={"ratio": 1.02, "ci_low": 0.95, "ci_high": 1.1, "rel_noise": 0.075})
    doc["noise"].append(noise)
    err = _problem(doc)
    assert err.field == f"noise[{len(doc['noise']) - 1}].latencies[1][1]" and "must be > 0" in err.problem
    noise["latencies"][1][1] = 0.003
    store.validate(doc, "ok.json")
    assert key_hash(doc["results"][0]["key"]) == doc["results"][0]["key_hash"]
