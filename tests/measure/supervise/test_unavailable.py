"""Cases that cannot exist in the worker's TensorFlow are stored with status "unavailable"
and the reason, not as failures: the schema takes them, the run counts them apart, they
take no rounds. The workers are the real worker importing a stand-in ``tensorflow``
(release 2.15.1, tf.keras is Keras 2), so no TensorFlow is needed."""

from __future__ import annotations

import copy
import json
import re
import textwrap
from pathlib import Path

import pytest

from tfperf import cli, store
from tfperf.measure import envinfo as availability

VALID = json.loads((Path(__file__).parents[2] / "fixtures" / "results" / "valid.json").read_text(encoding="utf-8"))

FAKE_TF = textwrap.dedent("""
    \"\"\"A stand-in for TensorFlow 2.15.1, whose tf.keras is Keras 2: just what the worker reads.\"\"\"
    import types

    __version__ = "2.15.1"
    _threads = {"intra": 0, "inter": 0}
    config = types.SimpleNamespace(
        list_physical_devices=lambda kind=None: [],
        threading=types.SimpleNamespace(
            set_intra_op_parallelism_threads=lambda n: _threads.update(intra=n),
            set_inter_op_parallelism_threads=lambda n: _threads.update(inter=n),
            get_intra_op_parallelism_threads=lambda: _threads["intra"],
            get_inter_op_parallelism_threads=lambda: _threads["inter"]))
    sysconfig = types.SimpleNamespace(get_build_info=lambda: {})
    keras = types.ModuleType("keras.api._v2.keras")
    keras.__version__ = "2.15.0"
    keras.backend = types.SimpleNamespace(clear_session=lambda: None)
""")

SNIPPET = textwrap.dedent("""
    import numpy as np
    import tensorflow as tf


    def setup(params):
        return {"x": np.arange(8, dtype="float32")}


    def setup_runtime(params):
        import tfperf_test_runtime_that_is_not_installed  # noqa: F401
        return setup(params)


    def setup_new_api(params):
        tf.an_api_from_a_later_release
        return setup(params)


    def setup_broken(params):
        raise ValueError("a real bug")


    def double(x):
        return x * 2.0
""")

TOPIC = {
    "topic": "avail", "snippet": "avail.py", "reference": "plain", "default": "plain",
    "variants": {"plain": {"fn": "double"}, "runtime": {"fn": "double", "setup": "setup_runtime"},
                 "new_api": {"fn": "double", "setup": "setup_new_api"},
                 "broken": {"fn": "double", "setup": "setup_broken"}},
    "profiles": {"history": {
        "params": {"n": [1]}, "settings": {"keras": ["2", "3"]}, "timeout_s": 60,
        "budget": {"min_samples": 3, "max_samples": 4, "budget_s": 0.05, "warmup_s": 0.01, "min_sample_s": 0.001},
    }},
}


def test_schema_takes_an_unavailable_result_with_its_reason() -> None:
    doc = copy.deepcopy(VALID)
    r = doc["results"][0]
    r.update(status="unavailable", error="keras=3: tf.keras is Keras 2 in TensorFlow 2.15.1",
             first_call_s=None, timing=None, output=None, warmup=None, setup_s=None)
    store.validate(doc)
    r["error"] = None
    assert any("error" in where for where, _ in store.problems(doc))


def test_reasons_from_exceptions() -> None:
    assert availability.from_exception(ModuleNotFoundError("No module named 'tf2onnx'", name="tf2onnx"))
    missing = AttributeError("module 'tensorflow._api.v2.lite' has no attribute 'experimental'")
    assert "does not have" in (availability.from_exception(missing) or "")
    assert availability.from_exception(AttributeError("'NoneType' object has no attribute 'shape'")) is None
    assert availability.from_exception(ValueError("boom")) is None


def test_run_stores_unavailable_apart_from_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "fake_tf" / "tensorflow").mkdir(parents=True)
    (tmp_path / "fake_tf" / "tensorflow" / "__init__.py").write_text(FAKE_TF)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "fake_tf"))   # the workers import the stand-in
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "avail.py").write_text(SNIPPET)
    (snippets / "avail.yaml").write_text(json.dumps(TOPIC))
    code = cli.main(["run", "--profile", "history", "--runner", "test-box", "--data", str(tmp_path / "data"),
                     "--snippets", str(snippets), "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    assert re.search(r"ran 8 case\(s\) \(1 failed, 6 not available in this TensorFlow\)", out), out
    doc = store.load(store.results_path(tmp_path / "data", "test-box", "history"))
    got = {(r["settings"]["keras"], r["variant"]): r for r in doc["results"]}
    assert {k for k, r in got.items() if r["status"] == "ok"} == {("2", "plain")}
    assert got[("2", "broken")]["status"] == "error"
    for keras, variant in [("3", "plain"), ("3", "runtime"), ("3", "new_api"), ("3", "broken"),
                           ("2", "runtime"), ("2", "new_api")]:
        r = got[(keras, variant)]
        assert r["status"] == "unavailable" and r["timing"] is None, (keras, variant)
    assert "tf.keras is Keras 2 in TensorFlow 2.15.1" in got[("3", "plain")]["error"]
    assert "No module named 'tfperf_test_runtime_that_is_not_installed'" in got[("2", "runtime")]["error"]
    assert "an_api_from_a_later_release" in got[("2", "new_api")]["error"]


def test_reason_names_pips_complaint_from_the_venvs_stamp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / availability.STAMP).write_text(json.dumps(
        {"not_installed": {"ai-edge-litert": "Collecting ai-edge-litert\nERROR: No matching distribution found"}}))
    monkeypatch.setattr("sys.prefix", str(tmp_path))
    why = availability.from_exception(ModuleNotFoundError("No module named 'ai_edge_litert'", name="ai_edge_litert"))
    assert why is not None and "ai-edge-litert did not install" in why and "No matching distribution" in why
