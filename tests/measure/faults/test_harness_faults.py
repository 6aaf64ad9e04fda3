"""The harness end to end with real TensorFlow at tiny sizes: a worker run, and cases
that raise, hang, or kill their worker, each leaving the other results intact."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tfperf import store
from tfperf.measure.supervise.orchestrate import RunOptions, plan, run

pytestmark = pytest.mark.tf

SNIPPET = textwrap.dedent("""
    import os, time
    import numpy as np
    import tensorflow as tf


    def setup(params):
        return {"x": tf.constant(np.arange(4, dtype="float32") * params["scale"])}


    def double(x):
        return x * 2.0


    def double_again(x):
        return tf.add(x, x)


    def wrong(x):
        return x * 2.0 + 1.0


    def raises(x):
        raise RuntimeError("this variant is broken on purpose")


    def hangs(x):
        time.sleep(3600)


    def dies(x):
        os._exit(3)
""")

YAML = textwrap.dedent("""
    topic: faults
    snippet: faults.py
    reference: double
    default: double_again
    variants:
      double: {fn: double}
      double_again: {fn: double_again}
      wrong: {fn: wrong}
      raises: {fn: raises}
      hangs: {fn: hangs}
      dies: {fn: dies}
    profiles:
      quick:
        params: {scale: [1]}
        settings: {keras: ["3"]}
        budget: {min_samples: 5, max_samples: 8, budget_s: 0.2, warmup_s: 0.01, min_sample_s: 0.001}
        timeout_s: 20
""")


@pytest.fixture()
def topic_dir(tmp_path: Path) -> Path:
    d = tmp_path / "snippets"
    d.mkdir()
    (d / "faults.py").write_text(SNIPPET)
    (d / "faults.yaml").write_text(YAML)
    return d


def test_failures_are_stored_and_the_rest_survives(topic_dir: Path, tmp_path: Path) -> None:
    """Fault: a snippet variant that raises, one that hangs past the case timeout, and one that
    kills its worker process (os._exit), in one group.
    Happens: each is stored as a failed result (error with the traceback / timeout / crashed
    with the exit code); a fresh worker takes over the rest of the group.
    Kept: every other case of the group, measured and checked; a second run re-runs nothing.
    """
    opts = RunOptions(profile="quick", data_root=tmp_path / "data", snippets_dir=topic_dir,
                      runner="test-runner", progress=False)
    report = run(opts)
    doc = store.load(report.path)
    by_variant = {r["variant"]: r for r in doc["results"]}
    assert set(by_variant) == {"double", "double_again", "wrong", "raises", "hangs", "dies"}
    assert by_variant["double"]["status"] == "ok"
    assert by_variant["double_again"]["status"] == "ok"
    assert by_variant["double_again"]["output"]["within_tolerance"] is True
    assert by_variant["wrong"]["status"] == "ok"
    assert by_variant["wrong"]["output"]["within_tolerance"] is False
    assert by_variant["wrong"]["output"]["max_abs_diff"] == pytest.approx(1.0)
    assert by_variant["raises"]["status"] == "error"
    assert "broken on purpose" in by_variant["raises"]["error"]
    assert by_variant["hangs"]["status"] == "timeout"
    assert by_variant["dies"]["status"] == "crashed"
    assert "exit code 3" in by_variant["dies"]["error"]
    ok = by_variant["double"]
    assert ok["first_call_s"] > 0 and ok["timing"]["summary"]["n"] >= 5
    env = doc["environments"][ok["env_id"]]
    assert env["versions"]["tensorflow"] and env["runner"] == "test-runner"
    assert env["settings"] == {"keras": "3"}
    assert doc["noise"], "every run measures an A/A pair"
    # A second run with nothing changed executes nothing, failures included.
    assert plan(opts).n_tasks == 0
    again = run(opts)
    assert again.ran == 0 and again.skipped == 6
