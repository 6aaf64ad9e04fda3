"""What the import-linter contracts (``[tool.importlinter]`` in pyproject.toml, the one home
of the stages' rules, kept by tests/codebase/test_lint_imports.py) cannot express:

* the analysis facade, the package ``tfperf.analyse``, exports exactly the names render and
  the CLI import from it, and none of them is also the name of one of its modules (which
  would replace the module on the package, and read as importing it);
* no module loads a module by ``importlib.import_module`` or ``__import__`` of a name
  written in it, since import-linter does not see such an import (a standard library
  module may be: it is in no contract).
"""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "bench" / "tfperf"
FACADE = "tfperf.analyse"


def module_name(path: Path, package: Path) -> str:
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _trees(package: Path) -> list[tuple[str, Path, ast.Module]]:
    return [(module_name(p, package), p, ast.parse(p.read_text(encoding="utf-8"), str(p)))
            for p in sorted(package.rglob("*.py"))]


def facade_names(package: Path) -> set[str]:
    """The names imported from the facade by modules outside analyse."""
    out: set[str] = set()
    for me, path, tree in _trees(package):
        if me == FACADE or me.startswith(FACADE + "."):
            continue
        here = me if path.name == "__init__.py" else me.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    mod = ".".join([*base, node.module] if node.module else base)
                else:
                    mod = node.module or ""
                if mod == FACADE:
                    out |= {a.name for a in node.names}
    return out


def facade_exports(package: Path) -> list[str]:
    """The facade's ``__all__``, read from its source."""
    for node in ast.parse((package / "analyse" / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return [ast.literal_eval(e) for e in node.value.elts] if isinstance(node.value, ast.List) else []
    return []


def dynamic_imports(package: Path) -> list[str]:
    """Each ``importlib.import_module("name")`` or ``__import__("name")`` of a name other than
    a standard library module, as ``module:line name``."""
    out: list[str] = []
    for me, _, tree in _trees(package):
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and getattr(node.func, "attr", getattr(node.func, "id", "")) in ("import_module", "__import__")
                    and node.args[0].value.split(".")[0] not in sys.stdlib_module_names):
                out.append(f"{me}:{node.lineno} {node.args[0].value}")
    return out


def test_the_facade_exports_exactly_what_render_and_the_cli_import() -> None:
    exports, used = facade_exports(PACKAGE), facade_names(PACKAGE)
    assert len(exports) == len(set(exports)), "a name twice in tfperf/analyse/__init__.py's __all__"
    assert set(exports) == used, (f"exported, not used: {sorted(set(exports) - used)}; "
                                  f"used, not exported: {sorted(used - set(exports))}")


def test_no_facade_name_is_a_module_name() -> None:
    modules = {p.stem for p in (PACKAGE / "analyse").rglob("*.py")} | {p.name for p in (PACKAGE / "analyse").iterdir()
                                                                        if p.is_dir()}
    assert sorted(set(facade_exports(PACKAGE)) & modules) == []


def test_no_module_hides_an_import_from_import_linter() -> None:
    assert dynamic_imports(PACKAGE) == []


def test_the_reader_sees_what_the_code_does(tmp_path: Path) -> None:
    """The checks' own view, so that a reader bug cannot pass everything: a name render
    imports from the facade is seen, and so are a planted dynamic import and a facade
    export nobody uses."""
    assert "Dataset" in facade_names(PACKAGE)                           # render/site/site.py: from ...analyse import Dataset
    copy = tmp_path / "tfperf"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    html = copy / "render" / "page" / "html.py"
    html.write_text(html.read_text(encoding="utf-8") + "\nimport importlib\nimportlib.import_module('keras')\n",
                    encoding="utf-8")
    assert [d.split(" ")[1] for d in dynamic_imports(copy)] == ["keras"]
    init = copy / "analyse" / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8").replace('__all__ = [\n', '__all__ = [\n    "planted",\n', 1),
                    encoding="utf-8")
    assert "planted" in set(facade_exports(copy)) - facade_names(copy)
