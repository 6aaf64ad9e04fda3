"""The serving_formats topic: its case grid, and the rule that a format whose output is
outside tolerance is shown as such and never recommended, however fast it is.

Without TensorFlow: the YAML against the snippet's functions (read with ``ast``), and the
analysis over hand-built results in which the fastest format gives a wrong answer.
With TensorFlow (``-m tf``): every format reproduces the Keras model at a tiny batch, and
a deliberately perturbed converter goes through the real worker's output check and the
analysis, and comes out flagged and not recommended.
"""

from __future__ import annotations

import ast
import copy
import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tfperf import HARNESS_VERSION, store
from tfperf.analyse import analyse
from tfperf.analyse.judge.effects import EXPECTED
from tfperf.cases import expand
from tfperf.cases.topic import load_topic
from tfperf.store import record_types as ids

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"
YAML = SNIPPETS / "serving_formats.yaml"
TEMPLATE = Path(__file__).parent / "fixtures" / "results" / "valid.json"


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    return names


def test_every_variant_names_functions_the_snippet_defines() -> None:
    topic = load_topic(YAML)
    defined = _functions(topic.snippet)
    for name, v in topic.variants.items():
        assert v["fn"] in defined, f"{name}: fn {v['fn']} missing"
        assert v.get("setup", topic.setup) in defined, f"{name}: setup missing"
        assert v.get("label"), f"{name}: no label for the site"
    assert topic.reference == "keras"


def test_claims_name_declared_variants_and_measured_batches() -> None:
    topic = load_topic(YAML)
    batches = {b for p in topic.profiles.values() for b in p.params["batch"]}
    for claim in topic.claims:
        assert claim["candidate"] in topic.variants and claim["baseline"] in topic.variants, claim["id"]
        assert claim["candidate"] != claim["baseline"], claim["id"]
        assert claim.get("expect", "faster") in EXPECTED, claim["id"]
        for b in claim.get("where", {}).get("batch", []):
            assert b in batches, f"{claim['id']}: batch {b} is never measured"


def test_quick_profile_stays_small() -> None:
    # Budget: the quick profile of this topic is ~20 s here; it must stay one process.
    cases = expand(load_topic(YAML), "quick", cores=2)
    assert len({c.group_key for c in cases}) == 1
    assert len(cases) <= 20
    assert "onnx_from_keras" not in {c.variant for c in cases}  # measured in full only
    assert {c.params["batch"] for c in cases if "trap" in c.variant} == {1}  # one batch shows the output
    assert all(c.budget.budget_s <= 0.5 for c in cases)


def test_full_profile_serves_both_models_and_g2p_at_two_batches() -> None:
    """The grapheme-to-phoneme model costs ~3x the convnet's set-up: full measures it at
    batch 1 and 64 only, with every variant and Keras group the convnet has."""
    cases = expand(load_topic(YAML), "full", cores=2)
    batches: dict[str, set[int]] = {}
    variants: dict[str, set[str]] = {}
    for c in cases:
        batches.setdefault(c.params["model"], set()).add(c.params["batch"])
        variants.setdefault(c.params["model"], set()).add(c.variant)
    assert batches == {"convnet": {1, 8, 64}, "g2p_gru": {1, 64}}
    assert variants["g2p_gru"] == variants["convnet"] == set(load_topic(YAML).variants)
    assert {c.settings["keras"] for c in cases if c.params["model"] == "g2p_gru"} == {"3", "2"}
    assert "serving_formats/batch=64,model=g2p_gru/keras=2/onnx" in {c.case_id for c in cases}


def test_the_models_named_in_the_yaml_are_the_snippets() -> None:
    tree = ast.parse((SNIPPETS / "serving_formats.py").read_text(encoding="utf-8"))
    (models,) = [ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "MODELS" for t in n.targets)]
    assert load_topic(YAML).profiles["full"].params["model"] == list(models)


@pytest.mark.parametrize("profile, batches", [("quick", {1, 32}), ("history", {1, 64})])
def test_quick_and_history_keep_their_case_ids(profile: str, batches: set[int]) -> None:
    """No `model` parameter there: the convnet, under the case ids stored before the
    second model came (the snippet defaults to convnet when the parameter is absent)."""
    cases = expand(load_topic(YAML), profile, cores=2)
    assert all(set(c.params) == {"batch"} for c in cases)
    assert {c.params["batch"] for c in cases} == batches
    assert "serving_formats/batch=1/keras=3/keras" in {c.case_id for c in cases}


def test_trap_paths_are_never_reference_default_or_claimed() -> None:
    """The conversion paths known to give NaN or a constant are measured, never trusted:
    not the reference, not the default, named by no claim or control."""
    topic = load_topic(YAML)
    traps = {v for v in topic.variants if "trap" in v}
    assert traps == {"tflite_trap_concrete", "tflite_trap_saved_model"}
    assert all(topic.variants[v]["label"].startswith("trap path:") for v in traps)
    assert not traps & {topic.reference, topic.default}
    named = {c.get(k) for c in topic.claims + topic.controls for k in ("candidate", "baseline", "variant")}
    assert {"tflite", "onnx", "tf_function"} <= named     # read with the claims' keys
    assert not traps & named
    assert not traps & set(topic.profiles["history"].variants or [])


# -- the analysis never recommends a wrong format --------------------------------------

def _result(topic_hash: str, variant: str, batch: int, median: float, *, within: bool | None,
            diff: float | None, status: str = "ok", error: str | None = None) -> dict[str, Any]:
    r: dict[str, Any] = copy.deepcopy(json.loads(TEMPLATE.read_text(encoding="utf-8"))["results"][0])
    r.update(topic="serving_formats", variant=variant, params={"batch": batch}, settings={"keras": "3"},
             case_id=f"serving_formats/batch={batch}/keras=3/{variant}", is_reference=variant == "keras",
             is_default=variant == "tf_function", env_id=None, status=status, error=error,
             metrics={"load_s": 0.01, "file_bytes": 4e5, "convert_s": 0.2})
    r["key"] = {**r["key"], "snippet_hash": topic_hash, "harness_version": HARNESS_VERSION,
                "runner": "test-runner"}
    r["key_hash"] = ids.key_hash(r["key"])
    if status != "ok":
        r.update(timing=None, first_call_s=None, output=None)
        return r
    samples = [median * f for f in (0.97, 0.98, 0.99, 1.0, 1.0, 1.01, 1.02, 1.03, 1.04)]
    r["timing"] = {"inner_loops": 8, "samples": samples, "stopped_by": "ci", "summary": {
        "n": len(samples), "median": median, "iqr": median * 0.03, "ci_low": median * 0.98,
        "ci_high": median * 1.02, "min": min(samples), "max": max(samples)}}
    r["output"] = {"max_abs_diff": diff, "max_rel_diff": diff, "within_tolerance": within,
                   "rtol": 1e-4, "atol": 1e-4, "note": "reference" if variant == "keras" else None}
    return r


@pytest.fixture()
def wrong_fastest(tmp_path: Path) -> Path:
    """Results in which ONNX Runtime is the fastest format but gives a wrong answer (as a
    converter bug would), and TFLite without XNNPACK failed to run."""
    h = load_topic(YAML).snippet_hash
    results = []
    for batch in (1, 32):
        results += [
            _result(h, "keras", batch, 8e-3, within=True, diff=0.0),
            _result(h, "tf_function", batch, 1e-3, within=True, diff=0.0),
            _result(h, "tflite", batch, 3e-4, within=True, diff=2e-7),
            _result(h, "onnx", batch, 1e-4, within=False, diff=0.37),
            _result(h, "tflite_plain", batch, 0.0, within=None, diff=None, status="error",
                    error="Traceback ...\nValueError: converter said no"),
        ]
    doc = {"schema_version": 2, "scenarios": [], "tfperf_version": "0.1.0",
           "runner": {"label": "test-runner", "description": None, "contributed_by": None},
           "profile": "quick", "environments": {}, "results": results, "noise": [], "breakdowns": []}
    path = store.results_path(tmp_path / "data", "test-runner", "quick")
    path.parent.mkdir(parents=True, exist_ok=True)
    store.write_atomic(path, doc)
    return tmp_path / "data" / "results"


def test_a_wrong_format_is_flagged_and_never_recommended(wrong_fastest: Path) -> None:
    ds = analyse(wrong_fastest, SNIPPETS)
    assert not ds.errors, ds.errors
    recs = ds.recommendations("serving_formats")
    assert len(recs) == 2
    for rec in recs:
        assert rec.fastest_overall == "onnx"            # it is the fastest ...
        assert rec.best == "tflite"                     # ... and still not recommended
        assert "outside tolerance" in rec.excluded["onnx"]
        assert "converter said no" in rec.excluded["tflite_plain"]
        assert rec.default == "tf_function"             # the speedup is over what a server would otherwise run
        assert rec.speedup is not None and rec.speedup.point == pytest.approx(1e-3 / 3e-4)
    rows = [r for r in ds.chart_rows("serving_formats") if r.case.variant == "onnx"]
    assert rows and all(r.status == "output outside tolerance" and not r.correct for r in rows)


def test_a_claim_won_by_a_wrong_format_says_so(wrong_fastest: Path) -> None:
    ds = analyse(wrong_fastest, SNIPPETS)
    res = ds.claim_result("serving_formats", "onnx_beats_tf_single")
    assert res is not None and res.checks
    assert all(ch.note and "outside tolerance" in ch.note for ch in res.checks)


def test_the_page_tables_never_rank_the_wrong_format(wrong_fastest: Path) -> None:
    """The recommendation table names TFLite, not the faster wrong ONNX Runtime, and the
    metrics table (latency beside load time and size) marks ONNX's output as wrong."""
    import re

    from tfperf.render.blocks.blocks import Context, render_block
    from tfperf.render.page.context import parse_block
    from tfperf.render.page.embed import SvgCache

    ds = analyse(wrong_fastest, SNIPPETS)
    ctx = Context(ds, prefix="", svgs=SvgCache(None))
    recs = str(render_block(parse_block("recommendations serving_formats"), ctx))
    onnx, tflite = ds.label("serving_formats", "onnx"), ds.label("serving_formats", "tflite")
    best_cells = re.findall(r"<td><strong>([^<]*)</strong></td>", recs)     # the "fastest correct variant" cells
    assert best_cells == [tflite, tflite]
    metrics = str(render_block(parse_block(
        "metrics serving_formats fields=load_s,convert_s,file_bytes columns=batch"), ctx))
    onnx_row = next(r for r in metrics.split("<tr>") if f"<td>{onnx}</td>" in r)
    assert "outside tolerance (max abs diff 0.37)" in onnx_row
    assert "400 kB" in metrics and "per call, batch 1" in metrics


# -- with TensorFlow ----------------------------------------------------------------------

def _snippet_module() -> Any:
    import importlib.util
    import sys

    sys.path.insert(0, str(SNIPPETS))
    spec = importlib.util.spec_from_file_location("serving_formats_under_test", SNIPPETS / "serving_formats.py")
    assert spec and spec.loader
    sf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sf)
    return sf


@pytest.mark.tf
@pytest.mark.parametrize("model", ["convnet", "g2p_gru"])
def test_every_format_reproduces_the_keras_model(model: str) -> None:
    """Every format but the trap paths, on each model; the g2p model at tiny sizes (a few
    steps, narrow layers; the same code) to keep the test cheap."""
    import numpy as np

    sf = _snippet_module()
    if model == "g2p_gru":
        sf.MAX_LEN, sf.EMBED, sf.UNITS = 4, 16, 24
    topic = load_topic(YAML)
    tol = topic.tolerance

    def run(variant: str) -> tuple[np.ndarray, dict[str, float]]:
        v = topic.variants[variant]
        kwargs = getattr(sf, v["setup"])({"batch": 2, "model": model})
        metrics = kwargs.pop("_metrics")
        out = getattr(sf, v["fn"])(**kwargs)
        return np.asarray(out.numpy() if hasattr(out, "numpy") else out), metrics

    ref, _ = run("keras")
    if model == "g2p_gru":
        assert ref.shape == (2, 4, sf.PHONEMES)
        assert sf.decision_gap(ref) > 100 * tol["atol"]   # no greedy decision a kernel difference could flip
    else:
        assert ref.shape == (2, sf.CLASSES)
    for variant in (v for v in topic.variants if "trap" not in v):  # the trap paths: the harness's gate
        out, metrics = run(variant)
        np.testing.assert_allclose(out, ref, rtol=tol["rtol"], atol=tol["atol"], err_msg=variant)
        assert metrics["file_bytes"] > 10_000 and metrics["load_s"] > 0, variant


@pytest.mark.tf
def test_g2p_greedy_decisions_are_far_from_ties() -> None:
    """At full size, over the requests the profiles measure: the smallest gap between the
    best and second-best logit is far above the output check's tolerance, so another
    format's float error cannot flip a decision (and fail the check falsely)."""
    import numpy as np
    import tensorflow as tf

    sf = _snippet_module()
    model = sf.build({"model": "g2p_gru"})
    forward = tf.function(lambda x: model(x, training=False))
    atol = load_topic(YAML).tolerance["atol"]
    for batch in (1, 64):
        logits = forward(sf.make_request(batch, "g2p_gru")).numpy()
        assert logits.shape == (batch, sf.MAX_LEN, sf.PHONEMES)
        assert sf.decision_gap(logits) > 100 * atol, batch
        assert len(np.unique(logits.argmax(-1))) > 2, "decoding is not a constant"


BROKEN_SNIPPET = textwrap.dedent('''
    """A converter that answers fast and wrong: the model's output computed once at setup,
    perturbed, and returned without any work."""
    import numpy as np
    from serving_formats import *  # noqa: F401,F403
    from serving_formats import keras_call, setup_keras


    def setup_broken(params):
        kwargs = setup_keras(params)
        wrong = np.asarray(keras_call(kwargs["model"], kwargs["x"])) + 0.05
        return {"answer": wrong, "_metrics": kwargs["_metrics"]}


    def broken_call(answer):
        return answer
''')


@pytest.mark.tf
def test_a_perturbed_converter_goes_through_worker_and_analysis(tmp_path: Path) -> None:
    from tfperf.measure.supervise.orchestrate import RunOptions, run

    snippets = tmp_path / "snippets"
    snippets.mkdir()
    shutil.copy(SNIPPETS / "serving_formats.py", snippets)
    shutil.copy(SNIPPETS / "_standalone.py", snippets)
    (snippets / "serving_broken.py").write_text(BROKEN_SNIPPET)
    (snippets / "serving_broken.yaml").write_text(textwrap.dedent("""
        topic: serving_broken
        snippet: serving_broken.py
        setup: setup_keras
        reference: keras
        default: keras
        tolerance: {rtol: 1.0e-4, atol: 1.0e-4}
        variants:
          keras: {fn: keras_call, setup: setup_keras}
          tf_function: {fn: tf_function_call, setup: setup_tf_function}
          broken: {fn: broken_call, setup: setup_broken}
        profiles:
          quick:
            params: {batch: [1]}
            budget: {min_samples: 5, max_samples: 6, budget_s: 0.1, warmup_s: 0.01, min_sample_s: 0.002}
            timeout_s: 60
    """))
    report = run(RunOptions(profile="quick", data_root=tmp_path / "data", snippets_dir=snippets,
                            runner="test-runner", progress=False))
    doc = store.load(report.path)
    by_variant = {r["variant"]: r for r in doc["results"]}
    assert {v: r["status"] for v, r in by_variant.items()} == {"keras": "ok", "tf_function": "ok", "broken": "ok"}
    assert by_variant["broken"]["output"]["within_tolerance"] is False
    assert by_variant["broken"]["output"]["max_abs_diff"] == pytest.approx(0.05, rel=1e-3)
    assert by_variant["tf_function"]["output"]["within_tolerance"] is True
    assert by_variant["broken"]["metrics"]["file_bytes"] > 0

    ds = analyse(tmp_path / "data" / "results", snippets)
    (rec,) = ds.recommendations("serving_broken")
    assert rec.fastest_overall == "broken"          # returning a constant is fastest ...
    assert rec.best != "broken"                     # ... and never recommended
    assert "outside tolerance" in rec.excluded["broken"]
