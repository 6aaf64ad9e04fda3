"""The TF1-style graph variant of snippets/train_step.py must run unchanged on TensorFlow
1.15 (Python 3.7, the official TF 1.15 containers), since TF 1.x cannot be installed here.

Without TensorFlow: the functions the graph variant runs (its fn and setup from the YAML,
and every module-level function they call, transitively) are parsed with ``ast`` and each
``tf.*`` attribute chain they use, with the keyword arguments passed to it, is checked
against ``TF115_API`` below. The module body run at import time is checked the same way,
and the whole file must parse with the Python 3.7 grammar.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SNIPPET = ROOT / "snippets" / "train_step.py"
YAML = ROOT / "snippets" / "train_step.yaml"

# Names present in TensorFlow 1.15's public API, with the keyword arguments we may pass.
# Justification (TF 1.15 API reference, tensorflow/python/... at tag v1.15.0):
# - tf.Graph, tf.float32, tf.matmul, tf.reduce_mean(axis=...), tf.nn.relu and
#   tf.nn.sigmoid_cross_entropy_with_logits(labels=, logits=) are in the 1.x API since 1.0
#   (reduce_mean's `axis` since 1.5; the old `keep_dims` is not used).
# - tf.nn.conv1d(value, filters, stride, padding) exists since 1.0; we pass these four
#   positionally, which works with both its 1.x names (value, filters) and 2.x (input, filters).
# - tf.compat.v1 was added in 1.13 and carries the whole 1.x API in 1.15: placeholder,
#   Variable, Session(graph=), global_variables_initializer, and
#   train.AdamOptimizer(learning_rate, beta1, beta2, epsilon) - 1.x only, kept in 2.x's compat.v1.
TF115_API: dict[str, set[str]] = {
    "tf.Graph": set(),
    "tf.float32": set(),
    "tf.matmul": set(),
    "tf.reduce_mean": {"axis"},
    "tf.nn.relu": set(),
    "tf.nn.conv1d": set(),
    "tf.nn.sigmoid_cross_entropy_with_logits": {"labels", "logits"},
    "tf.compat.v1.placeholder": set(),
    "tf.compat.v1.Variable": set(),
    "tf.compat.v1.Session": {"graph"},
    "tf.compat.v1.global_variables_initializer": set(),
    "tf.compat.v1.train.AdamOptimizer": {"epsilon"},
}
# numpy in the TF 1.15 containers is 1.16-1.18: the Generator API (default_rng, numpy 1.17)
# and newer are not used by the graph variant.
NUMPY_FORBIDDEN = {"default_rng", "Generator"}


def _chain(node: ast.AST) -> str | None:
    """'tf.compat.v1.placeholder' for the attribute chain of a Name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def tf_uses(nodes: list[ast.AST]) -> list[tuple[str, set[str], int]]:
    """(chain, keyword names, line) of every outermost tf.* attribute chain under nodes."""
    found: list[tuple[str, set[str], int]] = []
    inner: set[int] = set()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Call):
                name = _chain(node.func)
                if name and name.split(".")[0] == "tf":
                    found.append((name, {k.arg for k in node.keywords if k.arg}, node.lineno))
                    inner.add(id(node.func))
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Attribute) and id(node) not in inner:
                name = _chain(node)
                if name and name.split(".")[0] == "tf":
                    inner.update(id(n) for n in ast.walk(node))
                    found.append((name, set(), node.lineno))
    # Drop chains that are a prefix of a longer chain found at the same place (tf.nn in tf.nn.relu).
    return [(n, k, ln) for n, k, ln in found
            if not any(o != n and o.startswith(n + ".") and oln == ln for o, _, oln in found)]


def violations(source: str, roots: list[str]) -> list[str]:
    """What in ``source`` (the functions reachable from ``roots`` and the module body)
    is not in TF 1.15's API as listed above."""
    tree = ast.parse(source)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    reach, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in reach:
            continue
        if name not in funcs:
            raise KeyError(f"{name} is not a module-level function")
        reach.add(name)
        for node in ast.walk(funcs[name]):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in funcs:
                todo.append(node.func.id)
    body = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef))
            and not (isinstance(n, ast.If) and "__main__" in ast.dump(n.test))]
    problems = []
    for chain, kwargs, line in tf_uses([funcs[f] for f in sorted(reach)] + body):
        if chain not in TF115_API:
            problems.append(f"line {line}: {chain} is not in the TF 1.15 allow-list")
        elif kwargs - TF115_API[chain]:
            problems.append(f"line {line}: {chain}({', '.join(sorted(kwargs - TF115_API[chain]))}=...) "
                            "is not an allowed keyword")
    for node in [n for f in sorted(reach) for n in ast.walk(funcs[f])]:
        if isinstance(node, ast.Attribute) and node.attr in NUMPY_FORBIDDEN:
            problems.append(f"line {node.lineno}: numpy {node.attr} is newer than TF 1.15's numpy")
    return problems


def _graph_roots() -> list[str]:
    data = yaml.safe_load(YAML.read_text())
    v = data["variants"][data["reference"]]
    assert data["reference"] == "graph"
    return [v["fn"], v.get("setup", data.get("setup", "setup"))]


def test_graph_variant_uses_only_tf115_api() -> None:
    assert violations(SNIPPET.read_text(), _graph_roots()) == []


def test_the_graph_variant_reaches_the_graph_builder() -> None:
    """The check covers what actually runs: the setup's helpers, not only the timed loop."""
    tree = ast.parse(SNIPPET.read_text())
    funcs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert {"build_graph", "session_run", "setup_graph", "initial_weights", "make_batches"} <= funcs
    src = SNIPPET.read_text()
    uses = {c for c, _, _ in tf_uses([ast.parse(src)])}
    assert "tf.compat.v1.Session" in uses and "tf.compat.v1.placeholder" in uses


def test_snippet_parses_with_python37_grammar() -> None:
    ast.parse(SNIPPET.read_text(), feature_version=(3, 7))


@pytest.mark.parametrize("body, bad", [
    ("def f():\n    return tf.function(g)\n", "tf.function"),
    ("def f():\n    return tf.keras.layers.Dense(1)\n", "tf.keras.layers.Dense"),
    ("def f():\n    return tf.compat.v1.Session(config=None)\n", "config"),
    ("def f():\n    return tf.reduce_mean(x, keep_dims=True)\n", "keep_dims"),
    ("def f():\n    return g()\n\ndef g():\n    return tf.random.set_seed(0)\n", "tf.random.set_seed"),
    ("X = tf.data.AUTOTUNE\n\ndef f():\n    pass\n", "tf.data.AUTOTUNE"),
    ("def f():\n    return np.random.default_rng(0)\n", "default_rng"),
])
def test_the_checker_catches_newer_api(body: str, bad: str) -> None:
    problems = violations(body, ["f"])
    assert problems and any(bad in p for p in problems), problems


def test_the_checker_accepts_allowed_api() -> None:
    body = ("def f(x, w):\n    g = tf.Graph()\n"
            "    return tf.nn.relu(tf.matmul(x, w)) + tf.reduce_mean(x, axis=1)\n")
    assert violations(body, ["f"]) == []


def test_walrus_would_be_rejected_by_the_37_grammar() -> None:
    with pytest.raises(SyntaxError):
        ast.parse("if (n := 1):\n    pass\n", feature_version=(3, 7))
