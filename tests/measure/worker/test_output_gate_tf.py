"""With TensorFlow, at tiny size: the output gate of a real topic tells a model whose
weights moved by 0.1% from the one measured (so a variant or a settings group that
computes a slightly different model never passes), and oneDNN off does pass it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfperf.cases.topic import load_topic

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.tf

SCRIPT = """
import json, sys, numpy as np
sys.path.insert(0, {snippets!r})
import cpu_threads as t
from tfperf.measure.worker.outputs import save
model = t.build_model("mlp")
x = np.random.default_rng(0).standard_normal((4, 1024), dtype=np.float32)
save(model(x, training=False).numpy(), {out!r} + ".ref.npz")
w = model.get_weights(); w[0] = w[0] * 1.001; model.set_weights(w)
save(model(x, training=False).numpy(), {out!r} + ".perturbed.npz")
"""


def _outputs(tmp: Path, onednn: str) -> Path:
    out = tmp / f"onednn{onednn}"
    env = {"TF_ENABLE_ONEDNN_OPTS": onednn, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": str(ROOT / "bench"),
           "PATH": "/usr/bin:/bin"}
    code = SCRIPT.format(snippets=str(ROOT / "snippets"), out=str(out))
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=300)
    return out


def test_a_slightly_perturbed_model_fails_the_gate_and_onednn_off_passes(tmp_path: Path) -> None:
    from tfperf.measure.worker import outputs

    tol = load_topic(ROOT / "snippets" / "cpu_threads.yaml").tolerance
    on, off = _outputs(tmp_path, "1"), _outputs(tmp_path, "0")
    ref = outputs.load(Path(str(on) + ".ref.npz"))
    assert outputs.barely_varies(ref, tol["rtol"], tol["atol"]) is None
    perturbed = outputs.compare(outputs.load(Path(str(on) + ".perturbed.npz")), ref, tol["rtol"], tol["atol"])
    assert perturbed["within_tolerance"] is False, json.dumps(perturbed)
    other_kernels = outputs.compare(outputs.load(Path(str(off) + ".ref.npz")), ref, tol["rtol"], tol["atol"])
    assert other_kernels["within_tolerance"] is True, json.dumps(other_kernels)
