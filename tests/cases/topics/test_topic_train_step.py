"""The train_step topic: its case grid (which variant runs in which process), the scaled
model shapes, the page sections, and with TensorFlow at tiny sizes that every variant's
first call returns the same loss as the hand-written TF1 graph."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest
import yaml

from tfperf.analyse.judge.effects import EXPECTED
from tfperf.cases import expand
from tfperf.cases.topic import load_topic

ROOT = Path(__file__).resolve().parents[3]
YAML = ROOT / "snippets" / "train_step.yaml"
SNIPPET = ROOT / "snippets" / "train_step.py"
PAGE = ROOT / "docs" / "topics" / "train_step.md"


def _module_constants() -> dict[str, object]:
    """SIZES, DATA, BATCH and CHANNELS evaluated without importing TensorFlow."""
    tree = ast.parse(SNIPPET.read_text())
    ns: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) \
                and node.targets[0].id in ("SIZES", "DATA", "BATCH", "CHANNELS"):
            exec(compile(ast.Module([node], []), str(SNIPPET), "exec"), ns)  # noqa: S102 (the snippet's literals and comprehensions)
    return ns


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_graph_mode_runs_alone_in_an_eager_off_process(profile: str) -> None:
    cases = expand(load_topic(YAML), profile, cores=2)
    off = [c for c in cases if c.settings["eager"] == "off"]
    assert off and {c.variant for c in off} == {"graph"}
    assert all(c.process.get("eager") is False for c in off)
    assert all("eager" not in c.process for c in cases if c.settings["eager"] == "on")
    assert {c.settings["keras"] for c in off} == {"3"}
    # Every other variant runs under both Keras generations.
    for keras in ("3", "2"):
        on = {c.variant for c in cases if c.settings == {"eager": "on", "keras": keras}}
        assert {"eager", "function", "xla", "train_on_batch", "fit_numpy", "fit_dataset"} <= on


def test_every_params_combination_has_every_variant() -> None:
    cases = expand(load_topic(YAML), "full", cores=2)
    by_params: dict[str, set[str]] = {}
    for c in cases:
        by_params.setdefault(c.params_id, set()).add(c.variant)
    # 8 scaled model/data pairs at 2 steps + small/small at 32 steps, and the 2019 answer's own
    # sizes: small/small at 2 and 32 steps, the medium model on small data at 2 steps.
    assert len(by_params) == 12
    assert all(len(v) == 7 for v in by_params.values())
    assert not any("model=large," in p and "data=small," in p for p in by_params)


def test_the_2019_sizes_are_measured_at_two_step_counts_and_only_with_each_other() -> None:
    """The 2019 answer's own small model on its small data at 2 and 32 steps per call, so the
    per-step analysis separates fixed and per-step cost at the source's size; the 2019 models
    never meet the scaled data (or the reverse), and the scaled cases are the ones they were."""
    cases = expand(load_topic(YAML), "full", cores=2)
    pairs = {(c.params["model"], c.params["data"], c.params["steps"]) for c in cases}
    assert {("small_2019", "small_2019", 2), ("small_2019", "small_2019", 32)} <= pairs
    for model, data, _ in pairs:
        assert model.endswith("_2019") == data.endswith("_2019"), (model, data)
    scaled = {p for p in pairs if not p[0].endswith("_2019")}
    assert len(scaled) == 9 and ("small", "small", 32) in scaled
    ns = _module_constants()
    sizes, lengths = ns["SIZES"], ns["DATA"]
    assert isinstance(sizes, dict) and isinstance(lengths, dict)
    assert sizes["small_2019"][0] == ("conv", 128, 40, 4, "same")           # the answer's small model
    assert (lengths["small_2019"], lengths["medium_2019"], lengths["large_2019"]) == (140, 1400, 14000)
    assert not any(layer[0] == "dropout" for layers in sizes.values() for layer in layers)


def test_scaled_models_fit_their_data() -> None:
    """Every conv leaves at least one time step for every measured model/data pair."""
    ns = _module_constants()
    sizes, data = ns["SIZES"], ns["DATA"]
    assert isinstance(sizes, dict) and isinstance(data, dict)
    measured = {(c.params["model"], c.params["data"]) for c in expand(load_topic(YAML), "full", cores=2)}
    assert {m for m, _ in measured} <= set(sizes) and {d for _, d in measured} <= set(data)
    for model, layers in sizes.items():
        for dname, length in data.items():
            if (model, dname) not in measured:
                continue
            t = length
            for layer in layers:
                if layer[0] == "conv":
                    _, _, kernel, stride, padding = layer
                    t = -(-t // stride) if padding == "same" else (t - kernel) // stride + 1
                    assert t >= 1, (model, dname, layer)
            assert layers[-1] == ("dense", 1, "sigmoid")


def test_the_yaml_names_functions_that_exist() -> None:
    data = yaml.safe_load(YAML.read_text())
    funcs = {n.name for n in ast.parse(SNIPPET.read_text()).body if isinstance(n, ast.FunctionDef)}
    for name, v in data["variants"].items():
        assert v["fn"] in funcs, name
        assert v.get("setup", data["setup"]) in funcs, name
    for claim in data["claims"]:
        assert claim["candidate"] in data["variants"] and claim["baseline"] in data["variants"], claim["id"]
        assert claim.get("expect", "faster") in EXPECTED, claim["id"]


def test_snippet_sections_are_balanced_and_used_by_the_page() -> None:
    text = SNIPPET.read_text()
    starts = re.findall(r"# --8<-- \[start:(\w+)\]", text)
    ends = re.findall(r"# --8<-- \[end:(\w+)\]", text)
    assert starts == ends and len(set(starts)) == len(starts)
    if PAGE.exists():
        used = set(re.findall(r'--8<-- "train_step\.py:(\w+)"', PAGE.read_text()))
        assert used and used <= set(starts)


def _load_snippet():  # type: ignore[no-untyped-def]
    import sys
    sys.path.insert(0, str(SNIPPET.parent))
    spec = importlib.util.spec_from_file_location("train_step_under_test", SNIPPET)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.tf
def test_every_variant_starts_from_the_same_loss() -> None:
    """Tiny run: two steps of the small model on short sequences. The hand-written TF1
    graph and every Keras variant return the same mean loss within the topic's tolerance,
    and a second call returns a different (trained) loss."""
    import numpy as np

    mod = _load_snippet()
    mod.DATA = {**mod.DATA, "tiny": 8}
    data = yaml.safe_load(YAML.read_text())
    tol = data["tolerance"]
    params = {"model": "small", "data": "tiny", "steps": 2}
    outputs = {}
    for name, v in data["variants"].items():
        kwargs = getattr(mod, v.get("setup", data["setup"]))(params)
        fn = getattr(mod, v["fn"])
        outputs[name] = float(np.asarray(fn(**kwargs)))
        if name == "graph":
            assert float(np.asarray(fn(**kwargs))) != outputs[name]   # the update was applied
    ref = outputs["graph"]
    for name, out in outputs.items():
        assert abs(out - ref) <= tol["atol"] + tol["rtol"] * abs(ref), (name, out, ref)
