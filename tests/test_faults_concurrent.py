"""Two ``tfperf run`` processes writing one results file at the same time (no TensorFlow:
the workers are tests/fake_worker.py, which speaks the worker protocol).

The docstring lines "Fault:" / "Happens:" / "Kept:" feed the guide's "Faults we test" page."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tfperf import store

TESTS = Path(__file__).resolve().parent
BENCH = TESTS.parent / "bench"
N = 25

RUN = """
    import os, sys, time
    from pathlib import Path
    from tfperf.measure.orchestrate import RunOptions, run
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
    Kept: every result and A/A pair of both runs (nothing lost, nothing doubled); the file validates. Backed at the store level by test_store_faults.py::test_two_processes_appending_lose_nothing."""
    snippets, data, go = tmp_path / "snippets", tmp_path / "data", tmp_path / "go"
    _topics(snippets)
    python = tmp_path / "fake-python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {TESTS / 'fake_worker.py'} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
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
