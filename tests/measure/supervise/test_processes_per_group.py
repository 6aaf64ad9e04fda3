"""More than one worker process per settings group (``processes`` in a profile's budget),
with fake workers (no TensorFlow): every case prepared in each process, the rounds taking
turns between them, the A/A pair across two processes, and the count in the records; and
the interval of a ratio whose processes disagree."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

import pytest
from test_interleave_run import _blocks, _python

from tfperf import stats, store
from tfperf.measure.supervise.orchestrate import RunOptions, run
from tfperf.measure.supervise.rounds import Rounds, Slot, process_of


def _topic(d: Path, processes: int) -> None:
    d.mkdir()
    (d / "t.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n\ndef g():\n    return 1\n")
    (d / "t.yaml").write_text(json.dumps({
        "topic": "t", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}, "b": {"fn": "g"}},
        "settings_map": {"flavor": {f: {"env": {"FLAVOR": f}} for f in ("x", "y")}},
        "baseline_settings": {"flavor": "x"},
        "profiles": {"quick": {"params": {"n": [1]}, "settings": {"flavor": ["x", "y"]},
                               "budget": {"min_samples": 6, "max_samples": 6, "budget_s": 5.0, "warmup_s": 0.0,
                                          "min_sample_s": 0.001, "processes": processes}}}}))


def test_each_group_runs_in_two_processes_that_take_the_rounds_in_turn(tmp_path: Path, log: Path) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, processes=2)
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path))
    report = run(opts)
    doc = store.load(report.path)
    assert report.failed == 0 and len(doc["results"]) == 4
    assert all(r["interleave"]["processes"] == 2 for r in doc["results"])
    assert [s["workers"] for s in doc["scenarios"]] == [4]
    # Every case prepared once in each of its group's two processes; the second process of
    # each group checks every case against the reference's saved output.
    prepares = [json.loads(line) for line in Path(str(log) + ".prepare").read_text().splitlines()]
    pids = defaultdict(set)
    for p in prepares:
        pids[str(p["settings"])].add(p["pid"])
    assert sorted(len(v) for v in pids.values()) == [2, 2]
    per_case = defaultdict(list)
    for p in prepares:
        per_case[p["id"]].append(p)
    assert all(len(v) == 2 for v in per_case.values())
    assert all(v[1]["compare_with"] for v in per_case.values())
    # Round by round, each group's blocks alternate between its two processes; the baseline's
    # second block of a round runs in its other process.
    blocks = sorted(_blocks(log), key=lambda b: b[3])
    assert len(blocks) == 6 * 5
    per_round: list[list[tuple[int, str, str, float, float]]] = [blocks[i * 5:(i + 1) * 5] for i in range(6)]
    for settings, both in pids.items():
        used = [{pid for pid, s, *_ in r if s == settings} for r in per_round]
        if settings == "{'flavor': 'x'}":
            assert all(u == both for u in used)            # the baseline and its A/A block: both processes
        else:
            firsts = [next(iter(u)) for u in used]
            assert all(len(u) == 1 for u in used) and firsts[0] != firsts[1] and firsts[::2] == [firsts[0]] * 3


def test_a_profile_with_one_process_keeps_one_worker_per_group_and_says_nothing(tmp_path: Path, log: Path) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, processes=1)
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path))
    doc = store.load(run(opts).path)
    assert all("processes" not in r["interleave"] for r in doc["results"])
    assert [s["workers"] for s in doc["scenarios"]] == [2]


def test_the_aa_block_runs_in_the_next_process() -> None:
    base, aa = Slot("g", "t"), Slot("g", "t", aa=True)
    assert [process_of(base, i, 2) for i in range(4)] == [0, 1, 0, 1]
    assert [process_of(aa, i, 2) for i in range(4)] == [1, 0, 1, 0]
    assert [process_of(aa, i, 1) for i in range(3)] == [0, 0, 0]


def test_an_interval_takes_in_each_process_pairs_own_median() -> None:
    # 200 rounds of +-5% noise, alternating between two process pairs; the second pair
    # measures 4% faster. The rounds alone give an interval of about +-1% around 1.02.
    rng = random.Random(7)
    a = [1.0] * 200
    b = [rng.uniform(0.95, 1.05) / (1.00 if i % 2 == 0 else 1.04) for i in range(200)]
    labels = [i % 2 for i in range(200)]
    point, lo, hi = stats.paired_ratio(a, b, processes=labels)
    alone = stats.paired_ratio(a, b)
    first = stats.median([x / y for x, y, k in zip(a, b, labels) if k == 0])
    second = stats.median([x / y for x, y, k in zip(a, b, labels) if k == 1])
    assert point == alone[0] and alone[1] > first and alone[2] < second
    assert (lo, hi) == (first, second)
    # Processes that agree leave the interval as it was.
    same = [x / 1.03 for x in b[::2] for _ in (0, 1)]
    assert stats.paired_ratio(a, same, processes=labels) == stats.paired_ratio(a, same)
    with pytest.raises(ValueError, match="3 process labels for 200 rounds"):
        stats.paired_ratio(a, b, processes=[0, 1, 0])


def test_the_rounds_noise_floor_counts_what_differs_between_the_baselines_processes() -> None:
    # The baseline's process 1 is 6% slower than its process 0; the A/A block runs in the
    # other process of each round, so its ratio is 1.06 in even rounds and 1/1.06 in odd ones.
    rounds = Rounds(baseline="t", processes=2)
    one = Rounds(baseline="t")
    slow = {0: 1.0, 1: 1.06}
    for i in range(30):
        base, aa = slow[i % 2], slow[(i + 1) % 2]
        for r in (rounds, one):
            r.add(i, "t", base)
            r.add(i, "t#aa", aa)
    noise = rounds.aa_noise()
    assert noise is not None and noise >= 0.05
    lo_hi = rounds.ratio("t", "t#aa")
    assert lo_hi is not None and lo_hi[1] <= 1 / 1.06 + 1e-9 and lo_hi[2] >= 1.06 - 1e-9


def test_groups_whose_processes_do_not_fit_run_in_one_process_each_not_in_two_interleaves(
        tmp_path: Path, log: Path) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, processes=2)
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path), max_workers=3)
    doc = store.load(run(opts).path)
    assert len(doc["scenarios"]) == 1 and doc["scenarios"][0]["workers"] == 2
    assert len({r["interleave"]["id"] for r in doc["results"]}) == 1
    assert all("processes" not in r["interleave"] for r in doc["results"])
