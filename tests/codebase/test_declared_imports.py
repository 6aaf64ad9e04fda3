"""Every package the code imports is declared in pyproject.toml: the package's and the
scripts' imports in ``dependencies`` or an extra, the tests' too (the test extra). An
undeclared import works here only because something else pulled it in (nbformat came with
mkdocs-jupyter) and breaks the day that changes. No network: the installed distributions'
metadata maps each module to its distribution."""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
# Where the imports are read, and which declarations may cover them.
FOLDERS = ("bench", "scripts", "tests", "snippets")
# Modules of this repository itself (tests' helpers, snippets' shared module, scripts' neighbours).
LOCAL = {p.stem for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")} | {"tfperf"}


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {_name(r) for r in project["dependencies"]}
    for extra in project["optional-dependencies"].values():
        names |= {_name(r) for r in extra}
    return names


def imported() -> dict[str, set[str]]:
    """Top-level module -> files importing it (absolute imports, not the standard library)."""
    found: dict[str, set[str]] = {}
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    modules = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                else:
                    continue
                for m in modules:
                    top = m.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in LOCAL and top != "__future__":
                        found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def undeclared(modules: dict[str, set[str]], names: set[str]) -> dict[str, str]:
    by_module = metadata.packages_distributions()
    out = {}
    for module, files in sorted(modules.items()):
        dists = {d.lower().replace("_", "-") for d in by_module.get(module, [])}
        if not dists:
            out[module] = f"not installed here, imported by {min(files)}"
        elif not dists & names:
            out[module] = f"from {', '.join(sorted(dists))}, imported by {min(files)}"
    return out


def test_every_imported_package_is_declared() -> None:
    assert undeclared(imported(), declared()) == {}


def test_the_declaration_check_can_fail() -> None:
    names = declared() - {"psutil", "nbformat"}
    missing = undeclared(imported(), names)
    assert set(missing) >= {"psutil", "nbformat"}, missing
