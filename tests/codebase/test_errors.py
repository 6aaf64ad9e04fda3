"""Every exception tfperf defines is rooted at TfperfError, the one the CLI turns into a
one-line message, apart from the few listed here that are signals inside the harness and
never reach a user."""

from __future__ import annotations

import ast
import builtins
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


def _classes() -> list[tuple[str, ast.ClassDef]]:
    """(module, class) of every top-level class in the package's source."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out += [(module, node) for node in tree.body if isinstance(node, ast.ClassDef)]
    return out


def _exception_names() -> list[str]:
    """Every top-level class of the package that is an exception, read from the source: one
    whose base is a built-in exception or such a class, by name. No module is imported to
    list them: two import TensorFlow (the measuring side), which cost each pytest worker ~5 s
    at collection; each test imports its class's module."""
    known = {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
    classes = _classes()
    found: set[str] = set()
    grown = True
    while grown:
        grown = False
        for module, node in classes:
            bases = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in node.bases}
            if f"{module}.{node.name}" not in found and bases & known:
                found.add(f"{module}.{node.name}")
                known.add(node.name)
                grown = True
    return sorted(found)


def _class(name: str) -> type:
    module, _, cls = name.rpartition(".")
    found = getattr(importlib.import_module(module), cls)
    assert isinstance(found, type), f"{name} is not a class"
    return found


def test_the_listing_finds_the_exceptions() -> None:
    names = set(_exception_names())
    assert {"tfperf.errors.CaseGridError", "tfperf.render.page.context.DirectiveError",
            "tfperf.render.page.builder.ChartError", "tfperf.render.site.faults.FaultsError"} <= names
    assert set(SIGNALS) <= names, "a listed signal no longer exists: drop it from SIGNALS"
    assert "tfperf.errors.TfperfError" in names and "tfperf.store.validate.CheckedFiles" not in names


def test_the_listing_misses_no_exception_of_the_modules_without_tensorflow() -> None:
    """What the source says agrees with what the classes are, in every module that does not
    import TensorFlow (listed by import: the slow way the source listing replaces)."""
    by_import = set()
    for module, node in _classes():
        source = (PACKAGE.parent / module.replace(".", "/")).with_suffix(".py")
        if not source.is_file():
            source = source.with_suffix("") / "__init__.py"
        if "import tensorflow" in source.read_text(encoding="utf-8"):
            continue
        cls = getattr(importlib.import_module(module), node.name)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            by_import.add(f"{module}.{node.name}")
    assert by_import and by_import <= set(_exception_names()), sorted(by_import - set(_exception_names()))


@pytest.mark.parametrize("name", _exception_names())
def test_every_exception_is_rooted_at_tfperf_error(name: str) -> None:
    cls = _class(name)
    assert issubclass(cls, BaseException), f"{name} is not an exception: the source listing is wrong"
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
