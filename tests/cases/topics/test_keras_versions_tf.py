"""With TensorFlow, at the smallest sizes: the reference variant of predict_vs_call and of
serving_formats gives the same output under Keras 3 and under Keras 2 (tf_keras, process
env TF_USE_LEGACY_KERAS=1), within the topic's tolerance. The harness compares every
settings group with the reference under the baseline settings (keras 3), so the two
Keras must build the same model: the snippets set every weight from numpy, since the
two Keras' initialisers draw different numbers from the same seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfperf.cases.topic import load_topic

ROOT = Path(__file__).resolve().parents[3]
SNIPPETS = ROOT / "snippets"
pytestmark = pytest.mark.tf

# The reference variant's setup and fn (read from the YAML) for each parameter set, its
# output saved with the harness's own outputs.save; the Keras in use printed as JSON.
SCRIPT = """
import importlib, json, sys
import numpy as np
sys.path.insert(0, {snippets!r})
from _standalone import keras_label
from tfperf.measure.worker.outputs import save, to_host
mod = importlib.import_module({module!r})
for i, params in enumerate({params!r}):
    kwargs = getattr(mod, {setup!r})(params)
    kwargs.pop("_metrics", None)
    save(to_host(getattr(mod, {fn!r})(**kwargs)), {out!r} + f".{{i}}.npz")
print(json.dumps(keras_label(mod.keras)))
"""

CASES = {
    "predict_vs_call": [{"model": m, "batch": 2, "input": "numpy"} for m in ("tiny", "medium", "large")],
    "serving_formats": [{"batch": 2}, {"batch": 2, "model": "g2p_gru"}],
}


def _run(topic: str, tmp: Path, legacy: bool) -> tuple[str, Path]:
    t = load_topic(SNIPPETS / f"{topic}.yaml")
    ref = t.variants[t.reference]
    out = tmp / f"{topic}-{'k2' if legacy else 'k3'}"
    code = SCRIPT.format(snippets=str(SNIPPETS), module=topic, params=CASES[topic],
                         setup=ref.get("setup", t.setup), fn=ref["fn"], out=str(out))
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
    env.update(TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=str(ROOT / "bench"))
    if legacy:
        env["TF_USE_LEGACY_KERAS"] = "1"
    proc = subprocess.run([sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), out


@pytest.mark.parametrize("topic", sorted(CASES))
def test_the_reference_gives_the_same_output_under_keras_3_and_keras_2(topic: str, tmp_path: Path) -> None:
    from tfperf.measure.worker import outputs

    tol = load_topic(SNIPPETS / f"{topic}.yaml").tolerance
    label3, out3 = _run(topic, tmp_path, legacy=False)
    label2, out2 = _run(topic, tmp_path, legacy=True)
    assert label3.startswith("Keras 3") and "(tf_keras)" in label2, (label3, label2)
    for i, params in enumerate(CASES[topic]):
        ref = outputs.load(Path(f"{out3}.{i}.npz"))
        assert outputs.barely_varies(ref, tol["rtol"], tol["atol"]) is None, params
        res = outputs.compare(outputs.load(Path(f"{out2}.{i}.npz")), ref, tol["rtol"], tol["atol"])
        print(topic, params, "Keras 2 vs 3:", res["max_abs_diff"], res["max_rel_diff"])
        assert res["within_tolerance"] is True, (params, res)
