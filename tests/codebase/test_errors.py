"""Every exception tfperf defines is rooted at TfperfError, the one the CLI turns into a
one-line message, apart from the few listed here that are signals inside the harness and
never reach a user."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tfperf.errors import TfperfError

PACKAGE = Path(__file__).resolve().parents[2] / "bench" / "tfperf"

# Not user errors: control flow between two functions of one stage, always caught there.
SIGNALS = {
    "tfperf.measure.supervise.pool.WorkerGone": "a worker hung or died; the scenario stores the case as failed",
    "tfperf.measure.supervise.orchestrate._Interrupted": "SIGINT/SIGTERM; run() stops and keeps what was measured",
    "tfperf.store.files._HugeInt": "raised by a JSON parse hook; load() reports it as ResultsFileError",
    "tfperf.store.files._DuplicateKey": "raised by a JSON parse hook; load() reports it as ResultsFileError",
}


def _classes() -> list[tuple[str, str]]:
    """(module, class name) of every top-level class in the package's source."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out += [(module, node.name) for node in tree.body if isinstance(node, ast.ClassDef)]
    return out


def _exceptions() -> list[tuple[str, type[BaseException]]]:
    found = []
    for module, name in _classes():
        cls = getattr(importlib.import_module(module), name)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            found.append((f"{module}.{name}", cls))
    return found


def test_the_listing_finds_the_exceptions() -> None:
    names = {n for n, _ in _exceptions()}
    assert {"tfperf.errors.CaseGridError", "tfperf.render.page.context.DirectiveError",
            "tfperf.render.page.builder.ChartError", "tfperf.render.site.faults.FaultsError"} <= names
    assert set(SIGNALS) <= names, "a listed signal no longer exists: drop it from SIGNALS"


@pytest.mark.parametrize("name, cls", _exceptions(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_exception_is_rooted_at_tfperf_error(name: str, cls: type[BaseException]) -> None:
    if name in SIGNALS:
        assert not issubclass(cls, TfperfError), f"{name} is a TfperfError now: drop it from SIGNALS"
        return
    assert issubclass(cls, TfperfError), f"{name} derives from {[b.__name__ for b in cls.__mro__[1:]]}"


@pytest.mark.parametrize("module, name", [("tfperf.render.page.context", "DirectiveError"),
                                          ("tfperf.render.page.builder", "ChartError"),
                                          ("tfperf.render.site.faults", "FaultsError")])
def test_former_value_errors_are_still_value_errors(module: str, name: str) -> None:
    """Callers (and mkdocs hooks outside this package) may catch them as ValueError."""
    assert issubclass(getattr(importlib.import_module(module), name), ValueError)
