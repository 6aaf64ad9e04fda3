"""`tfperf run` with arrival patterns, with fake workers (no TensorFlow): each pattern of a
profile is a scenario of its own, interleaved round by round as back to back is; its
results keep every request's latency and their percentiles, its A/A pair gets a p99 ratio,
the Poisson blocks of a round share their draws; back-to-back records are as before."""

from __future__ import annotations

import json
import stat
import sys
from collections import Counter
from pathlib import Path

import pytest

from tfperf import stats, store
from tfperf.measure.supervise.orchestrate import RunOptions, plan, run
from tfperf.measure.supervise.scenario import CALIBRATION_ROUNDS

TESTS = Path(__file__).resolve().parents[2]
ROUNDS = 6


def _topic(d: Path) -> None:
    d.mkdir()
    (d / "t.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n\ndef g():\n    return 1\n")
    (d / "t.yaml").write_text(json.dumps({
        "topic": "t", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}, "b": {"fn": "g"}},
        "profiles": {"quick": {
            "params": {"n": [1, 2]},
            "arrivals": [{"pattern": "back_to_back"}, {"pattern": "idle", "gap_s": 0.001, "requests": 4},
                         {"pattern": "poisson", "rate": 0.5, "requests": 6}],
            "exclude": [{"n": 2, "arrival": ["idle-1ms", "poisson-0.5"]}],
            "budget": {"min_samples": ROUNDS, "max_samples": ROUNDS, "budget_s": 5.0, "warmup_s": 0.0,
                       "min_sample_s": 0.001}}}}))


def _python(tmp_path: Path) -> str:
    python = tmp_path / "fake-python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {TESTS / 'fake_worker.py'} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return str(python)


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunOptions, Path]:
    """One run for the module's tests (a run of fake workers takes seconds)."""
    tmp_path = tmp_path_factory.mktemp("arrivals")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FAKE_WORKER_LOG", str(tmp_path / "blocks.log"))
        mp.setenv("FAKE_WORKER_DELAY_S", "0.001")
        snippets = tmp_path / "snippets"
        _topic(snippets)
        opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                          progress=False, python=_python(tmp_path))
        assert [s.id for s in plan(opts).scenarios] == ["t/n=1", "t/n=2", "t/n=1@idle-1ms", "t/n=1@poisson-0.5"]
        report = run(opts)
    assert report.failed == 0 and report.path is not None
    return opts, report.path


def test_each_pattern_is_a_scenario_of_its_own(measured: tuple[RunOptions, Path]) -> None:
    _, path = measured
    doc = store.load(path)                      # validated: case ids, latencies, percentiles
    ids = sorted(r["case_id"] for r in doc["results"])
    assert ids == ["t/n=1/default/a", "t/n=1/default/a@idle-1ms", "t/n=1/default/a@poisson-0.5",
                   "t/n=1/default/b", "t/n=1/default/b@idle-1ms", "t/n=1/default/b@poisson-0.5",
                   "t/n=2/default/a", "t/n=2/default/b"]
    interleaves = {r["case_id"]: r["interleave"]["id"] for r in doc["results"]}
    assert interleaves["t/n=1/default/a@idle-1ms"] == interleaves["t/n=1/default/b@idle-1ms"]
    assert len(set(interleaves.values())) == 4
    assert sorted(s.get("arrival", "-") for s in doc["scenarios"]) == ["-", "-", "idle-1ms", "poisson-0.5"]
    # Back to back as before: no arrival, no latencies.
    for r in doc["results"]:
        if "@" not in r["case_id"]:
            assert "arrival" not in r and set(r["timing"]) == {"inner_loops", "summary", "samples", "stopped_by",
                                                               "rounds"}


def test_every_request_is_kept_with_its_percentiles(measured: tuple[RunOptions, Path]) -> None:
    _, path = measured
    doc = store.load(path)
    by_id = {r["case_id"]: r for r in doc["results"]}
    idle = by_id["t/n=1/default/b@idle-1ms"]
    assert idle["arrival"] == {"pattern": "idle", "id": "idle-1ms", "requests": 4, "gap_s": 0.001,
                               "service_s": 0.001}
    timing = idle["timing"]
    assert timing["rounds"] == list(range(ROUNDS))
    assert timing["latencies"] == [[0.001, 0.002, 0.003, 0.004]] * ROUNDS     # the fake's requests
    assert timing["samples"] == [0.0025] * ROUNDS                              # each round's median
    assert timing["tail"]["n"] == 4 * ROUNDS
    assert timing["tail"]["p99"]["value"] == pytest.approx(0.004)
    assert timing["tail"]["p99"]["ci_high"] is None                           # 24 requests bound no p99
    poisson = by_id["t/n=1/default/a@poisson-0.5"]["arrival"]
    assert poisson["rate_per_s"] == pytest.approx(500.0) and poisson["requests"] == 6


def test_the_aa_pair_of_each_pattern_has_its_p99_ratio(measured: tuple[RunOptions, Path]) -> None:
    _, path = measured
    noise = {n["case_id"]: n for n in store.load(path)["noise"]}
    assert sorted(noise) == ["t/n=1/default/a", "t/n=1/default/a@idle-1ms", "t/n=1/default/a@poisson-0.5",
                             "t/n=2/default/a"]
    assert "arrival" not in noise["t/n=1/default/a"] and "p99" not in noise["t/n=1/default/a"]
    idle = noise["t/n=1/default/a@idle-1ms"]
    assert idle["arrival"] == "idle-1ms" and len(idle["latencies"]) == ROUNDS
    assert idle["ratio"] == 1.0 and idle["p99"] == {"ratio": 1.0, "ci_low": 1.0, "ci_high": 1.0, "rel_noise": 0.0}


def test_each_rate_is_calibrated_side_by_side_first(measured: tuple[RunOptions, Path]) -> None:
    """Before a pattern's rounds, every case takes back-to-back blocks in interleaved
    rounds (not the A/A slot): the throughput its rate is a fraction of."""
    opts, _ = measured
    blocks = [line.split() for line in (opts.data_root.parent / "blocks.log").read_text().splitlines()]
    poisson = [b[-3] for b in blocks if b[-3].endswith("@poisson-0.5")]
    calibration = poisson[:2 * CALIBRATION_ROUNDS]
    assert Counter(calibration) == {"t/n=1/default/a@poisson-0.5": CALIBRATION_ROUNDS,
                                    "t/n=1/default/b@poisson-0.5": CALIBRATION_ROUNDS}
    assert len(poisson) == 2 * CALIBRATION_ROUNDS + 3 * ROUNDS


def test_the_blocks_of_a_round_share_their_poisson_draws(measured: tuple[RunOptions, Path]) -> None:
    opts, _ = measured
    lines = [json.loads(x) for x in (opts.data_root.parent / "blocks.log.schedule").read_text().splitlines()]
    assert len(lines) == 3 * ROUNDS                        # a, b and the A/A block, every round
    assert Counter(x["id"] for x in lines) == {"t/n=1/default/a@poisson-0.5": 2 * ROUNDS,
                                               "t/n=1/default/b@poisson-0.5": ROUNDS}
    schedules = Counter(json.dumps(x["schedule"]) for x in lines)
    assert sorted(schedules.values()) == [3] * ROUNDS       # one draw per round, the same for every slot
    first = json.loads(next(iter(schedules)))
    assert len(first) == 6 and stats.median([b - a for a, b in zip([0.0, *first], first)]) < 0.02


def test_a_second_run_finds_every_pattern_stored(measured: tuple[RunOptions, Path]) -> None:
    opts, _ = measured
    again = plan(opts)
    assert again.scenarios == [] and again.skipped == 8
