"""With TensorFlow, at tiny size: xla_jit's output check is not empty. MobileNetV3Small
(random weights) once ended in a softmax of near-zero logits, 1/1000 everywhere, which
every variant matched exactly; it now returns logits that differ between the images of
a batch by far more than the tolerance, and the wrappers still agree within it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tfperf.cases.topic import load_topic

ROOT = Path(__file__).resolve().parents[3]
SNIPPET = ROOT / "snippets" / "xla_jit.py"
pytestmark = pytest.mark.tf


def test_mobilenet_logits_vary_across_the_batch_and_the_wrappers_agree() -> None:
    import numpy as np

    from tfperf.measure.worker import outputs

    sys.path.insert(0, str(SNIPPET.parent))
    spec = importlib.util.spec_from_file_location("xla_jit_logits_under_test", SNIPPET)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    topic = load_topic(ROOT / "snippets" / "xla_jit.yaml")
    rtol, atol = topic.tolerance["rtol"], topic.tolerance["atol"]
    params = {"model": "mobilenetv3small", "batch": 4}
    ref = np.asarray(mod.call(**mod.setup(params)))
    assert outputs.barely_varies(ref, rtol, atol) is None
    # Each image's logits differ from every other image's by far more than the tolerance:
    # a variant that ignored its input would fail.
    gaps = [np.abs(ref[i] - ref[j]).max() for i in range(4) for j in range(i + 1, 4)]
    assert min(gaps) > 100 * (atol + rtol * np.abs(ref).max()), gaps
    for setup in ("setup_function", "setup_xla"):
        res = outputs.compare(np.asarray(mod.call(**getattr(mod, setup)(params))), ref, rtol, atol)
        assert res["within_tolerance"] is True, (setup, res)
