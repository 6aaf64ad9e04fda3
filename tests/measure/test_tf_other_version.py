"""A real worker under a second TensorFlow release: ``tfperf run --tf 2.15.1`` measures in
``.venvs/tf-2.15.1`` (made by ``tfperf venv 2.15.1``) while the parent stays here. Skipped
when that venv is absent: creating it downloads about 300 MB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tfperf import store
from tfperf.measure import venvs

pytestmark = pytest.mark.tf

ROOT = Path(__file__).resolve().parents[2]
VERSION = "2.15.1"
VENVS = ROOT / ".venvs"

SNIPPET = textwrap.dedent("""
    import numpy as np
    import tensorflow as tf


    def setup(params):
        return {"x": tf.constant(np.arange(8, dtype="float32"))}


    def setup_new_api(params):
        tf.an_api_from_a_later_release
        return setup(params)


    def dense(x):
        return tf.keras.layers.Dense(2, kernel_initializer="ones")(tf.reshape(x, (1, 8)))
""")

TOPIC = {"topic": "other_tf", "snippet": "other_tf.py", "reference": "dense", "default": "dense",
         "variants": {"dense": {"fn": "dense"}, "new_api": {"fn": "dense", "setup": "setup_new_api"}},
         "profiles": {"history": {"params": {"n": [1]}, "settings": {"keras": ["2", "3"]}, "timeout_s": 120,
                                  "budget": {"min_samples": 3, "max_samples": 4, "budget_s": 0.1,
                                             "warmup_s": 0.02, "min_sample_s": 0.002}}}}


@pytest.mark.skipif(not venvs.is_ready(venvs.venv_path(VENVS, VERSION), venvs.recipe_for(VERSION)),
                    reason=f"no ready .venvs/tf-{VERSION}: run `tfperf venv {VERSION}` (from the project root) first")
def test_worker_runs_under_another_tensorflow(tmp_path: Path) -> None:
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "other_tf.py").write_text(SNIPPET)
    (tmp_path / "snippets" / "other_tf.yaml").write_text(json.dumps(TOPIC))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "bench")}
    done = subprocess.run([sys.executable, "-m", "tfperf.cli", "run", "--tf", VERSION, "--venvs", str(VENVS),
                           "--profile", "history", "--runner", "test-box", "--data", str(tmp_path / "data"),
                           "--snippets", str(tmp_path / "snippets"), "--no-progress"], check=False,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "(0 failed, 3 not available in this TensorFlow)" in done.stdout
    doc = store.load(store.results_path(tmp_path / "data", "test-box", "history"))
    assert {e["versions"]["tensorflow"] for e in doc["environments"].values()} == {VERSION}
    got = {(r["settings"]["keras"], r["variant"]): r for r in doc["results"]}
    ok = got[("2", "dense")]
    assert ok["status"] == "ok" and ok["key"]["tensorflow"] == VERSION and ok["key"]["keras"] == "2.15.1"
    assert ok["output"]["within_tolerance"] is True
    assert doc["environments"][ok["env_id"]]["versions"]["keras"] == "2.15.1"
    assert got[("3", "dense")]["status"] == "unavailable"
    assert "Keras 3 is tf.keras from TensorFlow 2.16" in got[("3", "dense")]["error"]
    assert got[("2", "new_api")]["status"] == "unavailable"
    assert doc["runner"]["label"] == "test-box"
