"""The mixed_precision topic: its case grid and output gate as the YAML declares them, and
its analysis and page blocks on a frozen quick run (tests/fixtures/mixed_precision/, a
2-core AMD EPYC with AVX2 only) — without TensorFlow; with TensorFlow (marker tf), at a
tiny size, that the 16-bit policies pass the gate and a wrong model does not."""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfperf.analyse import analyse
from tfperf.cases import expand
from tfperf.cases.topic import load_topic
from tfperf.render.blocks.blocks import Context, render_block
from tfperf.render.page.context import DirectiveError, parse_block
from tfperf.render.page.embed import SvgCache
from tfperf.store.record_types import env_id, key_hash

ROOT = Path(__file__).resolve().parents[3]
YAML = ROOT / "snippets" / "mixed_precision.yaml"
SNIPPET = ROOT / "snippets" / "mixed_precision.py"
PAGE = ROOT / "docs" / "topics" / "mixed_precision.md"
FIX = Path(__file__).parents[2] / "fixtures" / "mixed_precision"
RUNNER = "linux-x86_64-2core-amd-avx2"
T = "mixed_precision"


# -- the YAML ------------------------------------------------------------------------------

def test_full_grid_covers_the_models_policies_modes_and_onednn() -> None:
    cases = expand(load_topic(YAML), "full", cores=2)
    assert {c.params["model"] for c in cases} == {"mlp", "convnet", "rnn"}
    assert {c.variant for c in cases} == {"float32", "bfloat16", "float16"}
    assert {c.params["mode"] for c in cases} == {"predict", "train"}
    assert {c.settings["onednn"] for c in cases} == {"1", "0"}
    # A training step only on a batch; inference on one request too.
    assert {c.params["batch"] for c in cases if c.params["mode"] == "train"} == {64}
    assert {c.params["batch"] for c in cases if c.params["mode"] == "predict"} == {1, 64}


def test_quick_profile_is_small_and_history_decides_every_claim() -> None:
    topic = load_topic(YAML)
    quick = expand(topic, "quick", cores=2)
    assert len(quick) <= 6 and {c.settings["onednn"] for c in quick} == {"1"}
    history = expand(topic, "history", cores=2)
    data = yaml.safe_load(YAML.read_text(encoding="utf-8"))
    for claim in data["claims"]:
        where = claim.get("where") or {}
        assert any(c.variant == claim["candidate"] and all(str({**c.params, **c.settings}.get(k)) in map(str, v)
                                                          for k, v in where.items()) for c in history), claim["id"]
    assert {c.settings["onednn"] for c in history} == {"1", "0"}     # the settings claim too


def test_every_variant_is_held_to_float32_under_the_stated_bound() -> None:
    topic = load_topic(YAML)
    assert topic.reference == "float32" == topic.default
    assert topic.tolerance == {"rtol": 0.02, "atol": 0.05}
    text = YAML.read_text(encoding="utf-8")
    # The bound is justified where it is set: bfloat16's precision and what was measured.
    head = text[:text.index("tolerance:")]
    assert "8 significant bits" in head and "0.021" in head and "top-1" in head


def test_the_yaml_names_functions_that_exist_and_the_page_uses_its_sections() -> None:
    data = yaml.safe_load(YAML.read_text(encoding="utf-8"))
    source = SNIPPET.read_text(encoding="utf-8")
    funcs = {n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)}
    for name, v in data["variants"].items():
        assert v["fn"] in funcs and v.get("setup", data["setup"]) in funcs, name
    starts = re.findall(r"# --8<-- \[start:(\w+)\]", source)
    assert starts == re.findall(r"# --8<-- \[end:(\w+)\]", source)
    used = set(re.findall(r'--8<-- "mixed_precision\.py:(\w+)"', PAGE.read_text(encoding="utf-8")))
    assert used == set(starts)


def test_the_frozen_snippet_is_the_committed_one() -> None:
    """The fixture's results were measured with this snippet; a change to it means
    re-freezing the fixture (a quick run) so the tests read results of what runs now."""
    for name in ("mixed_precision.py", "mixed_precision.yaml"):
        assert (FIX / "snippets" / name).read_bytes() == (ROOT / "snippets" / name).read_bytes(), name


# -- the analysis and the page, on the frozen run -------------------------------------------

@pytest.fixture(scope="module")
def ds():  # type: ignore[no-untyped-def]
    return analyse(FIX / "results", FIX / "snippets")


def _render(ds: Any, text: str) -> str:
    return str(render_block(parse_block(text), Context(ds, prefix="", svgs=SvgCache(None))))


def _with_wrong_bfloat16(tmp_path: Path) -> Any:
    """The frozen run with mixed_bfloat16's inference output outside the bound (as a
    broken kernel would give) and made 10x faster: it must still not be recommended."""
    root = tmp_path / "results"
    shutil.copytree(FIX / "results", root)
    path = root / RUNNER / "quick.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    for r in doc["results"]:
        if r["variant"] == "bfloat16" and r["params"]["mode"] == "predict":
            r["output"] = {**copy.deepcopy(r["output"]), "within_tolerance": False, "max_abs_diff": 0.41}
            r["timing"]["samples"] = [x / 10 for x in r["timing"]["samples"]]
            r["timing"]["summary"] = {k: (v / 10 if isinstance(v, float) else v) for k, v in r["timing"]["summary"].items()}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return analyse(root, FIX / "snippets")


def test_every_16_bit_output_of_the_run_is_within_the_bound(ds) -> None:  # type: ignore[no-untyped-def]
    ms = [m for m in ds.current if m.topic == T]
    assert {m.variant for m in ms} == {"float32", "bfloat16", "float16"}
    for m in ms:
        if m.variant != "float32":
            assert m.within_tolerance is True and m.max_abs_diff is not None
            assert m.output and (m.output.rtol, m.output.atol) == (0.02, 0.05)


def test_outputs_block_states_differences_bound_and_the_cpus_bf16_instructions(ds) -> None:  # type: ignore[no-untyped-def]
    html = _render(ds, f"outputs {T} isa=avx512_bf16,amx_bf16,amx_tile")
    assert "AVX-512 BF16 no; AMX BF16 no; AMX tiles no" in html
    assert "≤ 0.05 + 0.02 × |float32&#x27;s|" in html        # from the results, not typed in
    assert html.count("(within the bound)") == 4          # 2 scenarios x 2 16-bit policies
    assert "<th>mixed_bfloat16</th>" in html and "inference" in html and "one training step" in html
    assert "wrong output" not in html
    assert "oneDNN ran on" not in html                    # these records predate the field
    with pytest.raises(DirectiveError):
        _render(ds, "outputs no_such_topic")


def test_outputs_block_names_the_instructions_onednn_ran_on_where_recorded(tmp_path: Path) -> None:
    root = tmp_path / "results"
    shutil.copytree(FIX / "results", root)
    path = root / RUNNER / "quick.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    new_ids = {}
    for old_id, env in list(doc["environments"].items()):
        env["onednn_used"] = {"version": "oneDNN v3.7.3", "isa": "Intel AVX2", "kernels": ["gemm_api (f32)"]}
        new_ids[old_id] = env_id(env)
    doc["environments"] = {new_ids[k]: v for k, v in doc["environments"].items()}
    for r in [*doc["results"], *doc.get("noise", [])]:
        r["env_id"] = new_ids[r["env_id"]]
    path.write_text(json.dumps(doc), encoding="utf-8")
    html = _render(analyse(root, FIX / "snippets"), f"outputs {T} isa=avx512_bf16,amx_bf16")
    assert "AVX-512 BF16 no; AMX BF16 no. oneDNN ran on: Intel AVX2." in html


def test_a_wrong_bfloat16_output_is_shown_and_never_recommended(ds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = _with_wrong_bfloat16(tmp_path)
    html = _render(bad, f"outputs {T}")
    assert "wrong output: outside tolerance (max abs diff 0.41)" in html
    rec = next(r for r in bad.recommendations(T) if r.scenario.params["mode"] == "predict")
    assert rec.fastest_overall == "bfloat16" and rec.best != "bfloat16" and "bfloat16" in rec.excluded
    check = next(c for c in bad.claim_result(T, "bf16_faster_predict").checks)
    assert check.wrong_output and not check.has_data
    # The training step's result was untouched: its claim still has its finding.
    assert next(iter(bad.claim_result(T, "bf16_faster_train").checks)).has_data


def test_the_page_reads_well_without_results(tmp_path: Path) -> None:
    """No committed data for this topic: the page's blocks say so, none fails."""
    (tmp_path / "results").mkdir()
    empty = analyse(tmp_path / "results", FIX / "snippets")
    for text in (f"outputs {T} isa=avx512_bf16", f"dothis {T}", f"recommendations {T}", f"claims {T}"):
        html = _render(empty, text)
        assert "no results" in html.lower(), text
    page = PAGE.read_text(encoding="utf-8")
    assert 'no_data="No results for this page are published yet' in page


# -- with TensorFlow ---------------------------------------------------------------------------

@pytest.mark.tf
def test_16_bit_policies_pass_the_gate_and_a_wrong_model_does_not() -> None:
    import numpy as np

    from tfperf.measure.worker import outputs

    sys.path.insert(0, str(SNIPPET.parent))
    spec = importlib.util.spec_from_file_location("mixed_precision_under_test", SNIPPET)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    tol = load_topic(YAML).tolerance
    for model in ("mlp", "rnn"):
        for mode in ("predict", "train"):
            params = {"model": model, "batch": 16, "mode": mode}
            ref = outputs.to_host(mod.run(**mod.setup_float32(params)))
            for setup in (mod.setup_bfloat16, mod.setup_float16):
                out = outputs.to_host(mod.run(**setup(params)))
                check = outputs.compare(out, ref, **tol)
                assert check["within_tolerance"], (model, mode, setup.__name__, check)
                if mode == "predict":     # the same top class for (nearly) every example
                    assert np.mean(np.argmax(out, 1) == np.argmax(ref, 1)) >= 0.9
            if mode == "predict":
                assert outputs.barely_varies(ref, **tol) is None
    # Another model's weights (a different seed) are far outside the bound.
    params = {"model": "mlp", "batch": 16, "mode": "predict"}
    kwargs = mod.setup_bfloat16(params)
    ref = outputs.to_host(mod.run(**mod.setup_float32(params)))
    mod.keras.utils.set_random_seed(1)
    wrong = mod.keras.models.clone_model(mod.build_model("mlp", "mixed_bfloat16"))
    out = outputs.to_host(wrong(kwargs["x"], training=False))
    assert not outputs.compare(out, ref, **tol)["within_tolerance"]


def test_the_accuracy_answer_quotes_the_largest_difference_from_the_results(ds, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The bfloat16 question asks what accuracy costs: its answer gives the largest
    difference of mixed_bfloat16's outputs from float32's, where it is, and how many
    results were outside the bound, from the results (not typed in the YAML)."""
    from tfperf.analyse.views.answers import question_answers
    qa = next(q for q in question_answers(ds, T) if q.id == "bfloat16")
    bf16 = [m for m in ds.current if m.topic == T and m.variant == "bfloat16" and m.settings.get("onednn") == "1"]
    largest = max(m.max_abs_diff for m in bf16 if m.max_abs_diff is not None)
    expected = (f"mixed_bfloat16's output differs from float32's by at most {largest:.2g} "
                f"({_where_of(ds, bf16, largest)}); all {len(bf16)} results within the bound")
    assert qa.accuracy == (expected,)
    assert f"<strong>Accuracy: </strong>{qa.accuracy[0]}." in _render(ds, f"answers {T}").replace("&#x27;", "'")
    # A wrong output is counted and named as never recommended.
    bad = next(q for q in question_answers(_with_wrong_bfloat16(tmp_path), T) if q.id == "bfloat16")
    assert "by at most 0.41 " in bad.accuracy[0] and "outside the bound (wrong outputs: never recommended)" in bad.accuracy[0]
    # The other questions do not ask about accuracy.
    assert all(not q.accuracy for q in question_answers(ds, T) if q.id != "bfloat16")


def _runners(tmp_path: Path, machines: dict[str, tuple[str, float]]) -> Any:
    """The frozen run published as several runners: label -> (its CPU's name, a factor on
    every output difference), ids and hashes made again for the new labels."""
    root = tmp_path / "results"
    root.mkdir()
    text = (FIX / "results" / RUNNER / "quick.json").read_text(encoding="utf-8")
    for label, (cpu, factor) in machines.items():
        doc = json.loads(text.replace(RUNNER, label))
        new_ids = {}
        for old_id, env in list(doc["environments"].items()):
            env["cpu_model"] = cpu
            new_ids[old_id] = env_id(env)
        doc["environments"] = {new_ids[k]: v for k, v in doc["environments"].items()}
        for r in [*doc["results"], *doc.get("noise", [])]:
            r["env_id"] = new_ids[r["env_id"]]
            if "key" in r:
                r["key_hash"] = key_hash(r["key"])
            if (r.get("output") or {}).get("max_abs_diff") is not None:
                r["output"]["max_abs_diff"] *= factor
        (root / label).mkdir()
        (root / label / "quick.json").write_text(json.dumps(doc), encoding="utf-8")
    return analyse(root, FIX / "snippets")


def test_machines_with_the_same_accuracy_share_one_sentence(tmp_path: Path) -> None:
    """Five machines repeating one sentence five times pushed the bfloat16 answer past a
    phone's first screen: machines whose outputs differ by the same are named together, a
    machine that differs by more has its own sentence."""
    from tfperf.analyse.views.answers import question_answers
    ds = _runners(tmp_path, {"a-epyc": ("AMD EPYC", 1.0), "b-xeon": ("Intel(R) Xeon(R) Processor", 1.0),
                             "c-epyc": ("AMD EPYC 9B14", 2.0)})
    assert set(ds.runners) == {"a-epyc", "b-xeon", "c-epyc"}, ds.errors
    qa = next(q for q in question_answers(ds, T) if q.id == "bfloat16")
    shared, alone = qa.accuracy
    assert shared.startswith("On the EPYC (AVX2) and Xeon (AVX2): mixed_bfloat16's output differs from float32's by at most 0.021 ")
    assert alone.startswith("On the EPYC 9B14 (AVX2): mixed_bfloat16's output differs from float32's by at most 0.042 ")


def _where_of(ds: Any, ms: list[Any], largest: float) -> str:
    m = next(m for m in ms if m.max_abs_diff == largest)
    info = ds.topics[T]
    return ", ".join(info.value_label(k, m.params[k]) for k in info.param_values if k in m.params)
