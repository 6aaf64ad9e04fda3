"""A finished ``tfperf advise`` run without TensorFlow, for the tests of its report (text,
JSON, HTML, the published runner beside it): the generated topics measured by the fake
worker (tests/fake_worker.py), then the results file edited into designed outcomes:

* model.predict(x) 30 times slower than the other ways at batch 1 and 5 times at batch 4
  (so a tf.function wins, as on the guide's runners);
* XLA twice as slow as the plain tf.function at batch 4;
* TFLite without XNNPACK failed to convert (status "error", kept as data);
* TFLite with XNNPACK the fastest at batch 4 but with a wrong output (never recommended).

``python tests/advise_fixture.py DIR`` writes it into DIR (topics/, results/).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
RUNNER = "test-advise-x86_64"
MODEL = "my_model.keras"


def _fake_python(folder: Path) -> Path:
    python = folder / "fake-python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {TESTS / 'fake_worker.py'} \"$@\"\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return python


def _scale(result: dict, factor: float) -> None:
    timing = result["timing"]
    timing["samples"] = [s * factor for s in timing["samples"]]
    timing["summary"] = {k: (v * factor if k not in ("n",) and isinstance(v, float) else v)
                         for k, v in timing["summary"].items()}


def edit(results: Path) -> None:
    doc = json.loads(results.read_text(encoding="utf-8"))
    for r in doc["results"]:
        batch, variant = r["params"]["batch"], r["variant"]
        if r["topic"] == "advise_predict" and variant == "predict":
            _scale(r, 30.0 if batch == 1 else 5.0)
        elif r["topic"] == "advise_xla" and variant == "xla" and batch == 4:
            _scale(r, 2.0)
        elif r["topic"] == "advise_serving" and variant == "tflite_plain":
            r.update(status="error", error="Traceback (most recent call last):\n  ...\nConverterError: "
                                           "op GRU is neither a custom op nor a flex op")
            r.update(timing=None, output=None)
        elif r["topic"] == "advise_serving" and variant == "tflite" and batch == 4:
            _scale(r, 0.25)
            r["output"] = {**r["output"], "within_tolerance": False, "max_abs_diff": 0.5, "max_rel_diff": 0.9}
    results.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def build(folder: Path) -> Path:
    """The run's folder (topics/, results/<RUNNER>/quick.json): what ``tfperf advise --out`` holds."""
    from tfperf.measure.advise import topics as session
    from tfperf.measure.advise.model import ModelFile, ModelSpec

    folder.mkdir(parents=True, exist_ok=True)
    model = folder / MODEL
    spec = ModelSpec(ModelFile(model, "keras", "0123456789abcdef"), "image", (8, 8, 3), "float32", ((1, 5),),
                     weights=1234)
    os.environ.setdefault("FAKE_WORKER_DELAY_S", "0.001")
    s = session.measure(spec, folder, [1, 4], 600.0, RUNNER, progress=False, python=str(_fake_python(folder)),
                        log=lambda m: None)
    assert s.results is not None and s.results.exists(), s
    edit(s.results)
    return folder


if __name__ == "__main__":
    sys.path.insert(0, str(TESTS.parent / "bench"))
    print(build(Path(sys.argv[1])))
