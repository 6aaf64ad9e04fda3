"""Two ``tfperf run`` processes writing one results file at the same time (no TensorFlow:
the workers are tests/fake_worker.py, which speaks the worker protocol): different topics
append side by side; the same topic's scenarios are shared, each measured and stored once.

The docstring lines "Fault:" / "Happens:" / "Kept:" feed the guide's "Faults we test" page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import fake_run

from tfperf import store
from tfperf.measure.supervise.orchestrate import RunOptions, run
from tfperf.store.claims import Claims

BENCH = fake_run.BENCH
N = 25

RUN = """
    import os, sys, time
    from pathlib import Path
    from tfperf.measure.supervise.orchestrate import RunOptions, run
    data, snippets, topic, python, go = sys.argv[1:]
    while not os.path.exists(go):
        time.sleep(0.001)
    r = run(RunOptions(profile="quick", topics=[topic], runner="shared-box", data_root=Path(data),
                       snippets_dir=Path(snippets), progress=False, python=python))
    print(r.ran, r.failed)
"""


def _topics(d: Path) -> None:
    d.mkdir()
    for name in ("left", "right"):
        (d / f"{name}.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n")
        (d / f"{name}.yaml").write_text(json.dumps({
            "topic": name, "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}},
            "profiles": {"quick": {"params": {"n": list(range(N))}}}}))


def test_two_runs_write_one_results_file_at_once(tmp_path: Path) -> None:
    """Fault: two `tfperf run` processes (different topics, same runner and profile) appending to one results file at the same moment.
    Happens: each append takes the file's lock, re-reads the file and writes it atomically; neither run waits for the other to finish.
    Kept: every result and A/A pair of both runs (nothing lost, nothing doubled); the file validates.
    Also: test_store_faults.py::test_two_processes_appending_lose_nothing"""
    snippets, data, go = tmp_path / "snippets", tmp_path / "data", tmp_path / "go"
    _topics(snippets)
    python = fake_run.fake_python(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(BENCH), "FAKE_WORKER_DELAY_S": "0.005"}
    procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(RUN), str(data), str(snippets), topic,
                               str(python), str(go)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for topic in ("left", "right")]
    time.sleep(0.5)
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out.split() == [str(N), "0"]
    doc = store.load(store.results_path(data, "shared-box", "quick"))
    ids = [r["case_id"] for r in doc["results"]]
    assert len(ids) == len(set(ids)) == 2 * N
    assert {i.split("/")[0] for i in ids} == {"left", "right"}
    assert len(doc["noise"]) == 2 * N     # one A/A pair per scenario (one per parameter value)


# -- two runs of the same scenarios ---------------------------------------------------------

def _shared_topic(d: Path, n: int) -> None:
    d.mkdir()
    (d / "shared.py").write_text("def setup(p):\n    return {}\n\ndef f():\n    return 1\n\ndef g():\n    return 1\n")
    (d / "shared.yaml").write_text(json.dumps({
        "topic": "shared", "reference": "a", "default": "a", "variants": {"a": {"fn": "f"}, "b": {"fn": "g"}},
        "profiles": {"quick": {"params": {"n": list(range(n))}}}}))


def test_two_runs_of_the_same_topic_share_its_scenarios(tmp_path: Path) -> None:
    """Fault: two `tfperf run` processes on the same topic, runner and profile (one results file), started at the same moment.
    Happens: each claims a scenario before measuring it and leaves the scenarios the other holds until last, then finds them stored and skips them; both exit 0, with no error and no hint to `--force`.
    Kept: every case measured and stored exactly once between the two runs (no duplicate, no refusal); the file validates."""
    n = 20
    _shared_topic(tmp_path / "snippets", n)
    go = tmp_path / "go"
    procs = {name: fake_run.start(tmp_path, fake_run.run_argv(tmp_path, "shared", "shared-box"), name, go)
             for name in ("one", "two")}
    time.sleep(0.5)
    go.touch()
    ran = 0
    for name, p in procs.items():
        out, _ = p.communicate(timeout=120)
        err = (tmp_path / f"{name}.err").read_text()
        assert p.returncode == 0, err
        assert "--force" not in err and "tfperf: error" not in err and "Traceback" not in err
        r, skipped = fake_run.summary(out)
        assert r + skipped == 2 * n            # what it did not measure, it found stored
        ran += r
    assert ran == 2 * n                        # between them, each case measured once
    doc = store.load(store.results_path(tmp_path / "data", "shared-box", "quick"))
    ids = [r["case_id"] for r in doc["results"]]
    assert len(ids) == len(set(ids)) == 2 * n
    assert len(doc["scenarios"]) == len(doc["noise"]) == n


def test_a_run_waits_for_a_scenario_another_run_holds_and_keeps_what_that_run_stored(tmp_path: Path) -> None:
    """Fault: a `tfperf run` reaches a scenario that another run on the same results file is measuring (held by that run until it stores it).
    Happens: the run measures the other scenarios first, then says plainly that it waits for the other run to finish that scenario, and waits; when the other run has stored it, the run skips it.
    Kept: the other run's results for that scenario, once; this run's results for the rest; exit status 0."""
    _shared_topic(tmp_path / "snippets", 3)
    # What the "other run" stores: the same scenario, measured into another data folder.
    other = run(RunOptions(profile="quick", topics=["shared"], runner="shared-box", data_root=tmp_path / "other",
                           snippets_dir=tmp_path / "snippets", progress=False,
                           python=str(fake_run.fake_python(tmp_path))))
    theirs = store.load(other.path)
    mine = [r for r in theirs["results"] if r["params"] == {"n": 1}]
    ids = {r["case_id"] for r in mine}
    path = store.results_path(tmp_path / "data", "shared-box", "quick")
    held = Claims(path)                        # this test process plays the other run
    assert held.take("shared/n=1")
    proc = fake_run.start(tmp_path, fake_run.run_argv(tmp_path, "shared", "shared-box"), "run")
    err = tmp_path / "run.err"
    try:
        fake_run.wait_for(lambda: "to finish shared/n=1" in err.read_text(), 60,
                          "the run to say it waits")
        assert "another tfperf run is measuring into" in err.read_text()
        assert f"waiting for another tfperf run on {path} to finish shared/n=1" in err.read_text()
        # The run measured the other two scenarios before it began to wait.
        assert {r["params"]["n"] for r in store.load(path)["results"]} == {0, 2}
        time.sleep(0.3)
        assert proc.poll() is None             # still waiting
        store.append(path, runner_label="shared-box", profile="quick", results=mine,
                     environments=theirs["environments"],
                     noise=[a for a in theirs["noise"] if a["case_id"] in ids],
                     scenarios=[s for s in theirs["scenarios"] if set(s["cases"]) & ids])
    finally:
        held.close()                           # the other run is done with it
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.read_text()
    assert "--force" not in err.read_text()
    assert fake_run.summary(out) == (4, 2) and "2 of them stored by another run meanwhile" in out
    doc = store.load(path)
    ids_all = [r["case_id"] for r in doc["results"]]
    assert len(ids_all) == len(set(ids_all)) == 6
    assert [r for r in doc["results"] if r["case_id"] in ids] == sorted(mine, key=lambda r: r["case_id"])
