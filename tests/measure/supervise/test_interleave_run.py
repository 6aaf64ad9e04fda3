"""`tfperf run` measuring scenarios side by side, with fake workers (no TensorFlow):
one live worker per settings group, one measuring at a time, every case sampled in
every round, scenarios split when the groups do not fit."""

from __future__ import annotations

import itertools
import json
import stat
import sys
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tfperf import store
from tfperf.measure.supervise.orchestrate import RunOptions, plan, run

TESTS = Path(__file__).resolve().parents[2]


def _topic(d: Path, flavors: list[str]) -> None:
    d.mkdir()
    (d / "t.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n\ndef g():\n    return 1\n")
    (d / "t.yaml").write_text(json.dumps({
        "topic": "t", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}, "b": {"fn": "g"}},
        "settings_map": {"flavor": {f: {"env": {"FLAVOR": f}} for f in flavors}},
        "baseline_settings": {"flavor": flavors[0]},
        "claims": [{"id": "b_beats_a", "text": "b is faster", "candidate": "b", "baseline": "a"}],
        "profiles": {"quick": {"params": {"n": [1, 2]}, "settings": {"flavor": flavors},
                               "budget": {"min_samples": 6, "max_samples": 6, "budget_s": 5.0,
                                          "warmup_s": 0.0, "min_sample_s": 0.001}}}}))


def _python(tmp_path: Path) -> str:
    python = tmp_path / "fake-python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {TESTS / 'fake_worker.py'} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return str(python)


def _blocks(log: Path) -> list[tuple[int, str, str, float, float]]:
    out = []
    for line in log.read_text().splitlines():
        pid, rest = line.split(" ", 1)
        settings, rest = rest.rsplit("} ", 1)
        task, t0, t1 = rest.split(" ")
        out.append((int(pid), settings + "}", task, float(t0), float(t1)))
    return out


def test_a_scenario_is_measured_in_rounds_with_one_worker_per_group(tmp_path: Path, log: Path) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, ["x", "y"])
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path))
    assert [len(s.tasks) for s in plan(opts).scenarios] == [4, 4]     # 2 variants x 2 groups per scenario
    report = run(opts)
    doc = store.load(report.path)
    assert report.failed == 0 and len(doc["results"]) == 8
    # One interleave per scenario; every case has a sample in each of its 6 rounds.
    by_interleave = defaultdict(list)
    for r in doc["results"]:
        by_interleave[r["interleave"]["id"]].append(r)
        assert r["timing"]["rounds"] == list(range(6)) and len(r["timing"]["samples"]) == 6
    assert sorted(len(v) for v in by_interleave.values()) == [4, 4]
    for rs in by_interleave.values():
        assert {r["interleave"]["baseline"] for r in rs} == {rs[0]["case_id"].rsplit("/", 2)[0] + "/flavor=x/a"}
    # The scenario's own A/A pair, in the same interleave; a scenario record each.
    assert sorted(n["interleave"] for n in doc["noise"]) == sorted(by_interleave)
    assert all(len(n["rounds"]) == 6 for n in doc["noise"])
    assert sorted(s["id"] for s in doc["scenarios"]) == sorted(by_interleave)
    assert all(s["rounds"] == 6 and s["stopped_by"] == "max_rounds" and s["workers"] == 2 for s in doc["scenarios"])
    blocks = _blocks(log)
    # Each group has one worker, kept across the two scenarios: two processes in all.
    pids = defaultdict(set)
    for pid, settings, *_ in blocks:
        pids[settings].add(pid)
    assert sorted(len(p) for p in pids.values()) == [1, 1]
    # Never two blocks at once.
    spans = sorted((t0, t1) for *_, t0, t1 in blocks)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    # 2 scenarios x 6 rounds x (4 cases + the baseline's second block).
    assert len(blocks) == 2 * 6 * 5
    # The order changes from round to round.
    orders = defaultdict(list)
    for pid, settings, task, t0, _ in sorted(blocks, key=lambda b: b[3]):
        orders[task.split("/")[1]].append(f"{settings}{task}")
    firsts = {tuple(seq[i * 5:(i + 1) * 5]) for seq in orders.values() for i in range(6)}
    assert len(firsts) > 3
    # A block is told to warm up exactly when the block before it ran in another process.
    warm = [tuple(map(int, line.split())) for line in Path(str(log) + ".warm").read_text().splitlines()]
    assert warm[0][1] == 1
    assert all(flag == int(pid != prev_pid) for (prev_pid, _), (pid, flag) in itertools.pairwise(warm))
    assert 0 < sum(flag for _, flag in warm) < len(warm)


def test_groups_that_do_not_fit_are_split_into_interleaves_with_the_baseline(tmp_path: Path, log: Path) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, ["x", "y", "z"])
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path), max_workers=2)
    report = run(opts)
    doc = store.load(report.path)
    assert report.failed == 0
    # Per scenario: {x, y} and {x, z}; the baseline group x is measured in both.
    assert len(doc["scenarios"]) == 4
    for s in doc["scenarios"]:
        flavors = {c.split("/")[2] for c in s["cases"]}
        assert "flavor=x" in flavors and len(flavors) == 2 and s["workers"] == 2
    live = defaultdict(set)
    for pid, settings, *_ in _blocks(log):
        live[settings].add(pid)
    assert set(live) == {"{'flavor': 'x'}", "{'flavor': 'y'}", "{'flavor': 'z'}"}


def test_a_rerun_skips_measured_scenarios_and_remeasures_incomplete_ones(tmp_path: Path, log: Path) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, ["x", "y"])
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path))
    report = run(opts)
    assert plan(opts).n_tasks == 0 and run(opts).skipped == 8
    # Drop one result: its whole scenario is measured again (side by side), the others kept.
    doc = store.load(report.path)
    gone = doc["results"].pop(0)
    store.write_atomic(report.path, doc, overwrite=True)
    p = plan(opts)
    assert len(p.scenarios) == 1 and p.scenarios[0].remeasure
    run(opts)
    doc = store.load(report.path)
    assert len(doc["results"]) == 7 + 4
    assert any(r["case_id"] == gone["case_id"] for r in doc["results"])


def test_an_interrupted_forced_run_resumes_with_force_before_its_start(tmp_path: Path, log: Path) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, ["x", "y"])
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path))
    path = run(opts).path
    start = datetime.now(timezone.utc).replace(microsecond=0)     # as the CLI's hint prints it
    # The first run ended a minute before; the forced run started at `start`, measured the
    # first scenario again, then was stopped.
    doc = store.load(path)
    for r in doc["results"]:
        r["finished_at"] = (start - timedelta(minutes=1)).isoformat()
    doc["results"] += [{**r, "finished_at": start.isoformat()} for r in doc["results"] if "/n=1/" in r["case_id"]]
    store.write_atomic(path, doc, overwrite=True)
    opts.force = True
    assert len(plan(opts).scenarios) == 2                          # --force alone: everything again
    opts.force_before = start
    p = plan(opts)
    assert [s.id for s in p.scenarios] == ["t/n=2"] and p.skipped == 4
    assert run(opts).ran == 4
    doc = store.load(path)
    assert len(doc["results"]) == 8 + 4 + 4                        # the first run's results are kept
    assert all("/n=2/" in r["case_id"] for r in doc["results"][-4:])


def test_force_before_takes_a_time_and_means_force(capsys: pytest.CaptureFixture[str]) -> None:
    from tfperf.cli import build_parser

    args = build_parser().parse_args(["run", "--force-before", "2026-12-06T16:58"])
    assert args.force_before == datetime(2026, 12, 6, 16, 58, tzinfo=timezone.utc)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--force-before", "yesterday"])
    assert "expects a time such as" in capsys.readouterr().err


def test_a_budget_scale_gives_every_case_more_time_and_rounds_and_records_it_under_the_same_key(tmp_path: Path) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, ["x", "y"])
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path))
    plain = plan(opts).scenarios
    opts.budget_scale = 2.5
    scaled = plan(opts).scenarios
    # 5 s per slot, 5 slots (4 cases and the A/A one), then times 2.5.
    assert [s.rule.budget_s for s in plain] == [25.0, 25.0] and [s.rule.budget_s for s in scaled] == [62.5, 62.5]
    assert {t.payload["budget"]["budget_s"] for s in scaled for t in s.tasks} == {12.5}
    assert {t.payload["budget"]["warmup_s"] for s in scaled for t in s.tasks} == {0.0}
    # ... and as many more rounds: the cap scales with the seconds (6 rounds in this topic).
    assert [s.rule.max_rounds for s in plain] == [6, 6] and [s.rule.max_rounds for s in scaled] == [15, 15]
    assert {t.payload["budget"]["max_samples"] for s in scaled for t in s.tasks} == {15}
    # How long a case may take is not what it measures: the keys, and so "already measured", stay.
    assert [t.key for s in scaled for t in s.tasks] == [t.key for s in plain for t in s.tasks]


def test_a_scenario_record_keeps_the_budget_its_rounds_had_and_the_scale(tmp_path: Path, log: Path) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, ["x", "y"])
    budgets = {}
    for scale in (1.0, 2.0):
        opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / f"data{scale}", snippets_dir=snippets,
                          progress=False, python=_python(tmp_path), budget_scale=scale)
        doc = store.load(run(opts).path)     # written through the schema
        budgets[scale] = [(s["budget_s"], s.get("budget_scale")) for s in doc["scenarios"]]
    assert budgets[1.0] == [(25.0, None)] * 2
    assert budgets[2.0] == [(50.0, 2.0)] * 2


@pytest.mark.parametrize("text, error", [("two", "expects a number"), ("0", "between 0.1 and 10"),
                                         ("11", "between 0.1 and 10")])
def test_a_budget_scale_that_is_not_a_sensible_factor_is_refused_by_the_cli(
        text: str, error: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tfperf.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--budget-scale", text])
    assert error in capsys.readouterr().err


def test_settled_cases_leave_the_rounds_and_the_wide_one_takes_the_rest(tmp_path: Path, log: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    snippets = tmp_path / "snippets"
    _topic(snippets, ["x", "y"])
    spec = json.loads((snippets / "t.yaml").read_text())
    spec["claims"] = []
    spec["profiles"]["quick"]["params"] = {"n": [1]}
    spec["profiles"]["quick"]["budget"].update(max_samples=40)
    (snippets / "t.yaml").write_text(json.dumps(spec))
    monkeypatch.setenv("FAKE_WORKER_NOISY", "flavor=y/b")
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path))
    doc = store.load(run(opts).path)
    rounds = {r["case_id"].split("/", 2)[2]: r["timing"]["rounds"] for r in doc["results"]}
    # The steady cases settle after the minimum of 6 rounds and take no more blocks;
    # the baseline stays in every round, since each ratio needs it beside the other side.
    assert rounds["flavor=x/b"] == rounds["flavor=y/a"] == list(range(6))
    assert rounds["flavor=y/b"] == rounds["flavor=x/a"] == list(range(40))
    assert doc["scenarios"][0]["stopped_by"] == "max_rounds"
    assert len(doc["noise"][0]["rounds"]) == 6
    assert len(_blocks(log)) == 6 * 5 + 34 * 2


def test_every_group_checks_its_output_against_the_baseline_settings_reference(tmp_path: Path, log: Path) -> None:
    """The baseline (the reference variant under the baseline settings) is prepared first
    and saves its output; every case of another settings group is sent that file and the
    baseline's case id, so its output is compared across processes, not with its own group."""
    snippets = tmp_path / "snippets"
    _topic(snippets, ["x", "y", "z"])
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path))
    run(opts)
    prepares = [json.loads(line) for line in Path(str(log) + ".prepare").read_text().splitlines()]
    assert len(prepares) == 2 * 6                               # 2 scenarios x 3 groups x 2 variants
    for n in ("n=1", "n=2"):
        mine = [p for p in prepares if f"/{n}/" in p["id"]]
        baseline = f"t/{n}/flavor=x/a"
        assert mine[0]["id"] == baseline and mine[0]["save_reference"] and not mine[0]["compare_with"]
        assert all(not p["save_reference"] for p in mine[1:])
        same_group = [p for p in mine[1:] if p["settings"] == {"flavor": "x"}]
        others = [p for p in mine[1:] if p["settings"] != {"flavor": "x"}]
        assert [p["compare_with"] for p in same_group] == [None]          # compared in-process
        assert len(others) == 4
        assert all(p["compare_with"] == {"path": mine[0]["save_reference"], "case_id": baseline} for p in others)
    # The reference file lived only as long as its scenario.
    assert not any(Path(p["save_reference"]).exists() for p in prepares if p["save_reference"])


def test_when_the_baseline_cannot_run_the_next_groups_reference_stands_in(tmp_path: Path, log: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Keras 3 before TensorFlow 2.16: the baseline's group is not available. The first
    reference variant that does run saves its output, every other group compares with it,
    and the results name it as the scenario's output reference."""
    monkeypatch.setenv("FAKE_WORKER_UNAVAILABLE", '{"flavor": "x"}')
    snippets = tmp_path / "snippets"
    _topic(snippets, ["x", "y", "z"])
    opts = RunOptions(profile="quick", runner="box", data_root=tmp_path / "data", snippets_dir=snippets,
                      progress=False, python=_python(tmp_path))
    doc = store.load(run(opts).path)
    prepares = [json.loads(line) for line in Path(str(log) + ".prepare").read_text().splitlines()]
    for n in ("n=1", "n=2"):
        mine = [p for p in prepares if f"/{n}/" in p["id"]]
        stand_in = f"t/{n}/flavor=y/a"
        assert [p["id"] for p in mine[:3]] == [f"t/{n}/flavor=x/a", stand_in, f"t/{n}/flavor=z/a"]
        assert mine[1]["save_reference"] and mine[2]["compare_with"]["case_id"] == stand_in
        assert [p["compare_with"] for p in mine if p["id"] == f"t/{n}/flavor=y/b"] == [None]   # in-process
        assert [p["compare_with"]["case_id"] for p in mine if p["id"] == f"t/{n}/flavor=z/b"] == [stand_in]
        ok = [r for r in doc["results"] if f"/{n}/" in r["case_id"] and r["status"] == "ok"]
        assert {r["interleave"]["output_reference"] for r in ok} == {stand_in}
