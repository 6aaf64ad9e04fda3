"""The stages' import rules, read from the source of bench/tfperf (every ``import``, also
those inside functions and under ``TYPE_CHECKING``, and ``importlib.import_module`` of a
literal name): cases -> measure -> store -> analyse -> render, each stage importing only
the stages below it.

* the foundation (``tfperf`` itself, ``errors``, ``stats``, ``budget``, ``topic_schema``)
  imports no stage;
* ``store`` imports only the foundation: never cases, measure, analyse or render;
* ``cases`` imports the store's identities (``store.ids``, ``store.schema``);
* ``measure`` imports cases and the store, never analyse or render;
* ``analyse`` imports cases and the store, never measure or render;
* ``render`` imports the store and analyse, never measure or cases;
* the CLI (``cli``, ``cli_advise``) imports every stage; nothing but render and the CLI
  imports ``render``, and nothing imports the CLI;
* only ``measure`` imports TensorFlow, Keras or the runtimes it measures.

A new module must be given a stage below (the test fails until it is). The imports that
break a rule today are listed in ``KNOWN``, each with why: the test fails on any other,
and on a listed one that has gone (so the list only shrinks).

Render and the CLI import analyse only through its facade, the package ``tfperf.analyse``
(``from ..analyse import Dataset``), never one of its modules: ``facade_breaks``. The facade
exports exactly the names they import from it, and none of them is also the name of one of
its modules (which would replace the module on the package, and read here as importing it).
"""

from __future__ import annotations

import ast
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "bench" / "tfperf"

# module (or package prefix) -> stage; the longest prefix wins
STAGES = {
    "tfperf": "foundation", "tfperf.errors": "foundation", "tfperf.stats": "foundation",
    "tfperf.budget": "foundation", "tfperf.hardware": "foundation", "tfperf.arrival": "foundation",
    "tfperf.cases": "cases",
    "tfperf.measure": "measure",
    "tfperf.store": "store",
    "tfperf.analyse": "analyse",
    "tfperf.render": "render",
    "tfperf.cli": "cli", "tfperf.cli_advise": "cli",
}
MAY_IMPORT = {
    "foundation": {"foundation"},
    "store": {"foundation", "store"},
    "cases": {"foundation", "store", "cases"},
    "measure": {"foundation", "store", "cases", "measure"},
    "analyse": {"foundation", "store", "cases", "analyse"},
    "render": {"foundation", "store", "analyse", "render"},
    "cli": {"foundation", "store", "cases", "measure", "analyse", "render", "cli"},
}
FACADE = "tfperf.analyse"
MEASURED = {"tensorflow", "keras", "tf_keras", "tf2onnx", "onnxruntime", "ai_edge_litert", "tflite_runtime"}

# Imports that break a rule today: (importer, imported) -> why. Remove a line when its
# import goes; never add one without saying why here and in the issue.
KNOWN: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    importer: str          # "tfperf.store.files"
    imported: str          # "tfperf.errors", or the top-level name of another package ("numpy")
    where: str             # "store/files.py:17"


def module_name(path: Path, package: Path) -> str:
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str, package: Path) -> bool:
    rel = Path(*name.split(".")[1:])
    return (package / rel).with_suffix(".py").is_file() or (package / rel / "__init__.py").is_file()


def imports(package: Path) -> list[Import]:
    """Every import in the package's modules; an import of a name from a package is an
    import of that submodule when one of that name exists."""
    out: list[Import] = []
    for path in sorted(package.rglob("*.py")):
        me = module_name(path, package)
        here = me if path.name == "__init__.py" else me.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            where = f"{path.relative_to(package)}:{getattr(node, 'lineno', 0)}"
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    mod = ".".join([*base, node.module] if node.module else base)
                else:
                    mod = node.module or ""
                targets = [f"{mod}.{a.name}" if mod.split(".")[0] == package.name
                           and _is_module(f"{mod}.{a.name}", package) else mod for a in node.names]
            elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                  and isinstance(node.args[0].value, str)
                  and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")):
                targets = [node.args[0].value]
            for t in targets:
                top = t.split(".")[0]
                out.append(Import(me, t if top == package.name else top, where))
    return out


def stage(module: str) -> str | None:
    best = max((p for p in STAGES if module == p or module.startswith(p + ".")), key=len, default=None)
    return STAGES[best] if best else None


def broken(imp: Import) -> str | None:
    """Why an import breaks a rule, or None."""
    mine = stage(imp.importer)
    if not imp.imported.startswith("tfperf"):
        if imp.imported in MEASURED and mine != "measure":
            return f"only measure imports {imp.imported}"
        return None
    theirs = stage(imp.imported)
    if mine is None or theirs is None:
        return f"{imp.importer if mine is None else imp.imported} has no stage in tests/test_layers.py STAGES"
    if theirs not in MAY_IMPORT[mine]:
        return f"{mine} may not import {theirs}"
    return None


def violations(package: Path) -> list[str]:
    """Every import that breaks a rule and is not in KNOWN, and every KNOWN one that has gone."""
    found = [(i, broken(i)) for i in imports(package)]
    seen = {(i.importer, i.imported) for i, why in found if why}
    out = list(dict.fromkeys(f"{i.where}: {i.importer} imports {i.imported}: {why}"
                             for i, why in found if why and (i.importer, i.imported) not in KNOWN))
    out += [f"{a} no longer imports {b}: remove it from KNOWN in tests/test_layers.py"
            for a, b in sorted(set(KNOWN) - seen)]
    return out


def facade_breaks(package: Path) -> list[str]:
    """Each import of an analyse module other than the facade from outside analyse (the
    other rules leave render and the CLI)."""
    return sorted({f"{i.importer} imports {i.imported}" for i in imports(package)
                   if stage(i.importer) != "analyse" and stage(i.imported) == "analyse" and i.imported != FACADE})


def facade_names(package: Path) -> set[str]:
    """The names imported from the facade by modules outside analyse."""
    out: set[str] = set()
    for path in sorted(package.rglob("*.py")):
        me = module_name(path, package)
        if stage(me) == "analyse":
            continue
        here = me if path.name == "__init__.py" else me.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = here.split(".")[: len(here.split(".")) - node.level + 1]
                if ".".join([*base, node.module] if node.module else base) == FACADE:
                    out |= {a.name for a in node.names}
    return out


def facade_exports(package: Path) -> list[str]:
    """The facade's ``__all__``, read from its source."""
    for node in ast.parse((package / "analyse" / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return [ast.literal_eval(e) for e in node.value.elts] if isinstance(node.value, ast.List) else []
    return []


def test_the_stages_import_only_what_their_rules_allow() -> None:
    found = violations(PACKAGE)
    assert not found, "imports that break the stages' rules (tests/test_layers.py):\n" + "\n".join(found)


def test_render_imports_analyse_only_through_its_facade() -> None:
    found = facade_breaks(PACKAGE)
    assert not found, ("import these from tfperf.analyse (add the name to its __all__ and imports):\n"
                       + "\n".join(found))


def test_the_facade_exports_exactly_what_render_and_the_cli_import() -> None:
    exports, used = facade_exports(PACKAGE), facade_names(PACKAGE)
    assert len(exports) == len(set(exports)), "a name twice in tfperf/analyse/__init__.py's __all__"
    assert set(exports) == used, (f"exported, not used: {sorted(set(exports) - used)}; "
                                  f"used, not exported: {sorted(used - set(exports))}")


def test_no_facade_name_is_a_module_name() -> None:
    modules = {p.stem for p in (PACKAGE / "analyse").glob("*.py")}
    assert sorted(set(facade_exports(PACKAGE)) & modules) == []


def test_every_module_has_a_stage() -> None:
    assert [m for m in (module_name(p, PACKAGE) for p in PACKAGE.rglob("*.py")) if stage(m) is None] == []


def test_the_reader_sees_what_the_code_does() -> None:
    """The reader's own view of a few imports, so that a resolver bug cannot pass everything."""
    found = {(i.importer, i.imported) for i in imports(PACKAGE)}
    assert ("tfperf.analyse.claims", "tfperf.stats") in found               # from .. import stats
    assert ("tfperf.store.files", "tfperf") in found                        # from .. import __version__
    assert ("tfperf.render.site", FACADE) in found                         # from ..analyse import Dataset
    assert ("tfperf.measure.worker", "tensorflow") in found                 # inside a function
    assert ("tfperf.cases.grid", "tfperf.store.ids") in found


PLANTED = [
    ("store/ids.py", "from ..analyse import Dataset", "store may not import analyse"),
    ("store/ids.py", "from ..render import html", "store may not import render"),
    ("analyse/versions.py", "def f():\n    import tensorflow as tf\n", "only measure imports tensorflow"),
    ("analyse/versions.py", "from ..measure import rounds", "analyse may not import measure"),
    ("render/html.py", "import importlib\nimportlib.import_module('keras')", "only measure imports keras"),
    ("render/html.py", "from ..measure import timing", "render may not import measure"),
    ("analyse/noise.py", "from ..render import html", "analyse may not import render"),
    ("analyse/noise.py", "from .. import cli", "analyse may not import cli"),
    ("render/html.py", "from .. import cli_advise", "render may not import cli"),
    ("measure/limits.py", "from ..render.html import escape", "measure may not import render"),
    ("cases/grid.py", "from ..analyse import dataset", "cases may not import analyse"),
    ("errors.py", "from . import store", "foundation may not import store"),
    ("store/new_module.py", "from tfperf.measure import timing", "store may not import measure"),
]


@pytest.mark.parametrize(("file", "code", "why"), PLANTED, ids=[p[2] for p in PLANTED])
def test_a_planted_violation_fails(tmp_path: Path, file: str, code: str, why: str) -> None:
    copy = tmp_path / "tfperf"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / file
    target.write_text((target.read_text(encoding="utf-8") if target.exists() else "") + "\n" + code + "\n",
                      encoding="utf-8")
    found = violations(copy)
    assert len(found) == 1 and why in found[0], found
    assert found[0].startswith(f"{file}:")


def test_a_listed_import_passes_and_one_that_went_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(KNOWN, ("tfperf.analyse.noise", "tfperf.measure.rounds"), "planted")
    assert violations(PACKAGE) == [
        "tfperf.analyse.noise no longer imports tfperf.measure.rounds: remove it from KNOWN in tests/test_layers.py"]
    copy = tmp_path / "tfperf"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    noise = copy / "analyse" / "noise.py"                       # analyse may not import measure
    noise.write_text(noise.read_text(encoding="utf-8") + "\nfrom ..measure import rounds\n", encoding="utf-8")
    assert violations(copy) == []


def test_a_planted_deep_import_is_a_facade_break(tmp_path: Path) -> None:
    copy = tmp_path / "tfperf"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "render" / "html.py").write_text((copy / "render" / "html.py").read_text(encoding="utf-8")
                                             + "\nfrom ..analyse.noise import noise_floor\n", encoding="utf-8")
    assert facade_breaks(copy) == ["tfperf.render.html imports tfperf.analyse.noise"]
    assert violations(copy) == []           # a stage's rule allows it: the facade test alone fails
