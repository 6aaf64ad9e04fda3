"""The xla_jit topic: case grid, page sections, and with TensorFlow at a tiny size that
the four wrappers agree with the eager call within the topic's tolerance."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from pathlib import Path

import pytest
import yaml

from tfperf.cases import expand
from tfperf.cases.topic import load_topic

ROOT = Path(__file__).resolve().parents[3]
YAML = ROOT / "snippets" / "xla_jit.yaml"
SNIPPET = ROOT / "snippets" / "xla_jit.py"
PAGE = ROOT / "docs" / "topics" / "xla_jit.md"


def test_grid_covers_the_models_and_batches() -> None:
    cases = expand(load_topic(YAML), "full", cores=2)
    assert {c.params["model"] for c in cases} == {"mlp", "mobilenetv3small", "efficientnetv2b0", "efficientnetv2s"}
    # The question's own case: EfficientNetV2S (at 384 px, see the snippet) on one image only.
    assert {c.params["batch"] for c in cases if c.params["model"] == "efficientnetv2s"} == {1}
    assert min(c.params["batch"] for c in cases) == 1 and max(c.params["batch"] for c in cases) == 64
    assert {c.variant for c in cases} == {"eager", "function", "function_no_jit", "xla"}
    quick = expand(load_topic(YAML), "quick", cores=2)
    assert len(quick) <= 8   # the quick profile of all topics must stay within 6 minutes


def test_full_budget_keeps_ten_samples_for_the_ten_run_view() -> None:
    data = yaml.safe_load(YAML.read_text())
    assert data["profiles"]["full"]["budget"]["min_samples"] >= 10


def test_the_yaml_names_functions_that_exist() -> None:
    data = yaml.safe_load(YAML.read_text())
    funcs = {n.name for n in ast.parse(SNIPPET.read_text()).body if isinstance(n, ast.FunctionDef)}
    for name, v in data["variants"].items():
        assert v["fn"] in funcs and v.get("setup", data["setup"]) in funcs, name


def test_no_pretrained_weights_are_requested() -> None:
    """Nothing may download at run time: every keras.applications call passes weights=None."""
    tree = ast.parse(SNIPPET.read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Attribute) and n.func.value.attr == "applications"]
    assert calls
    for c in calls:
        kw = {k.arg: k.value for k in c.keywords}
        assert isinstance(kw.get("weights"), ast.Constant) and kw["weights"].value is None


def test_efficientnetv2s_is_built_at_the_questions_384_pixels() -> None:
    tree = ast.parse(SNIPPET.read_text())
    consts = {n.targets[0].id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
              and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant)}
    assert consts["QUESTION_SIZE"] == 384
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "EfficientNetV2S"]
    assert len(calls) == 1
    shape = {k.arg: k.value for k in calls[0].keywords}["input_shape"]
    assert isinstance(shape, ast.Tuple) and [ast.unparse(e) for e in shape.elts] == ["QUESTION_SIZE", "QUESTION_SIZE", "3"]


def test_snippet_sections_are_balanced_and_used_by_the_page() -> None:
    text = SNIPPET.read_text()
    starts = re.findall(r"# --8<-- \[start:(\w+)\]", text)
    assert starts == re.findall(r"# --8<-- \[end:(\w+)\]", text)
    if PAGE.exists():
        used = set(re.findall(r'--8<-- "xla_jit\.py:(\w+)"', PAGE.read_text()))
        assert used and used <= set(starts)


@pytest.mark.tf
def test_wrappers_agree_with_the_eager_call() -> None:
    import numpy as np

    sys.path.insert(0, str(SNIPPET.parent))
    spec = importlib.util.spec_from_file_location("xla_jit_under_test", SNIPPET)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    data = yaml.safe_load(YAML.read_text())
    tol = data["tolerance"]
    params = {"model": "mlp", "batch": 2}
    outs = {name: np.asarray(getattr(mod, v["fn"])(**getattr(mod, v.get("setup", data["setup"]))(params)))
            for name, v in data["variants"].items()}
    for name, out in outs.items():
        np.testing.assert_allclose(out, outs["eager"], rtol=tol["rtol"], atol=tol["atol"], err_msg=name)
