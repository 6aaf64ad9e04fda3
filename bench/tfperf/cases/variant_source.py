"""What a variant runs, as a hash: the staleness of its results.

A result is a result of the code its variant ran. Hashing the whole snippet file made
every result of a topic stale when a comment, a docstring or another variant changed
(asv hashes each benchmark's own source for this reason). Here a variant's hash covers:

* its ``fn`` and ``setup`` functions, and the reference variant's (every output is
  checked against the reference's);
* every top-level definition those reach by name, transitively (helpers, classes,
  constants);
* every top-level statement that runs on import whatever is called: imports, and
  assignments or expressions that call something (they may change state);
* the YAML's definition of the variant and of the reference, the tolerance and the
  default setup name.

The code is hashed as its syntax tree (``ast.dump``) without docstrings, so comments,
docstrings and layout do not count; a change a variant does not reach does not either.
When the reachable code uses ``globals``, ``eval``, ``exec``, ``getattr`` on the module
or imports itself, the names it runs cannot be read from the source: its hash covers
every top-level statement instead. The ``if __name__ == "__main__":`` block of a
snippet (how a reader runs it by hand) never runs in the worker and is left out.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable, Mapping
from copy import deepcopy
from pathlib import Path

from ..errors import CaseGridError

SCHEME = "variant-source-1"          # part of every hash: a new rule is a new hash
OPAQUE = {"globals", "eval", "exec", "vars", "__import__", "importlib", "__name__"}   # and sys.modules


def source_hashes(source: bytes, path: Path, variants: Mapping[str, Mapping[str, object]], reference: str,
                  default_setup: str, tolerance: Mapping[str, float]) -> dict[str, str]:
    """variant -> 16 hex digits of what it runs (see the module's docstring)."""
    if b"\0" in source:                         # Python 3.11 and 3.12 refuse it differently
        raise CaseGridError(str(path), "(file)", f"the snippet does not parse: a null byte (byte {source.index(0)})")
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise CaseGridError(str(path), f"line {exc.lineno}", f"the snippet does not parse: {exc.msg}") from None
    except (RecursionError, MemoryError):        # what CPython's parser raises for deep nesting
        raise CaseGridError(str(path), "(file)", "the snippet does not parse: it nests too deeply") from None
    except ValueError as exc:
        raise CaseGridError(str(path), "(file)", f"the snippet does not parse: {exc}") from None
    module = _Module(tree)
    out: dict[str, str] = {}
    for name, vdef in variants.items():
        roots = {str(d.get(k, default_setup if k == "setup" else "")) for d in (vdef, variants[reference])
                 for k in ("fn", "setup")}
        digest = hashlib.sha256(SCHEME.encode())
        try:
            for i in module.reached(roots):
                digest.update(module.dumped(i))
        except RecursionError:                  # parsed, yet nested too deep to walk
            raise CaseGridError(str(path), "(file)", "the snippet nests too deeply to be read") from None
        digest.update(json.dumps({"variant": vdef, "reference": variants[reference], "reference_name": reference,
                                  "setup": default_setup, "tolerance": tolerance},
                                 sort_keys=True, default=str).encode())
        out[str(name)] = digest.hexdigest()[:16]
    return out


class _Module:
    """A snippet's top-level statements: the named definitions and the ones that always run."""

    def __init__(self, tree: ast.Module) -> None:
        self.body = [s for s in tree.body if not _is_docstring(s) and not _is_main_block(s)]
        self.named: dict[str, list[int]] = {}         # top-level name -> indexes of the statements binding it
        self.always: set[int] = set()
        self._names: dict[int, set[str]] = {}
        self._dumps: dict[int, bytes] = {}
        for i, stmt in enumerate(self.body):
            names = _binds(stmt)
            for n in names:
                self.named.setdefault(n, []).append(i)
            if not names or isinstance(stmt, (ast.Import, ast.ImportFrom)) or (
                    isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and _calls(stmt)):
                self.always.add(i)

    def reached(self, roots: Iterable[str]) -> list[int]:
        """The indexes of the statements the roots reach, in source order; a root that is
        not defined is left for the worker to report when it runs the case."""
        seen = set(self.always)
        todo = [i for r in roots for i in self.named.get(r, [])] + sorted(self.always)
        while todo:
            i = todo.pop()
            seen.add(i)
            used = self._used(i)
            if used & OPAQUE:
                return list(range(len(self.body)))
            todo += [j for n in used for j in self.named.get(n, []) if j not in seen]
        return sorted(seen)

    # What the variants share (the reference's code, helpers, imports) is read once per
    # snippet, not once per variant: copying and dumping each statement again for every
    # variant was most of loading a topic.
    def _used(self, i: int) -> set[str]:
        if i not in self._names:
            self._names[i] = _names_used(self.body[i])
        return self._names[i]

    def dumped(self, i: int) -> bytes:
        """Statement ``i``'s syntax tree without docstrings, as the hash takes it."""
        if i not in self._dumps:
            self._dumps[i] = ast.dump(_without_docstrings(self.body[i]), include_attributes=False).encode()
        return self._dumps[i]


def _binds(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, ast.Assign):
        return {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
        return {stmt.target.id}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return set()


def _names_used(node: ast.AST) -> set[str]:
    """The names a statement reads; ``sys.modules`` counts as ``importlib`` (opaque)."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute) and n.attr == "modules" and isinstance(n.value, ast.Name) \
                and n.value.id == "sys":
            out.add("importlib")
    return out


def _calls(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_main_block(stmt: ast.stmt) -> bool:
    """``if __name__ == "__main__":`` (either operand order), with no ``else``."""
    if not isinstance(stmt, ast.If) or stmt.orelse or not isinstance(stmt.test, ast.Compare):
        return False
    sides = [stmt.test.left, *stmt.test.comparators]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    texts = [s.value for s in sides if isinstance(s, ast.Constant)]
    return len(sides) == 2 and isinstance(stmt.test.ops[0], ast.Eq) and names == ["__name__"] and texts == ["__main__"]


def _without_docstrings(node: ast.stmt) -> ast.stmt:
    """A copy of the statement without the docstrings of the functions and classes in it."""
    copy = deepcopy(node)
    for n in ast.walk(copy):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body and _is_docstring(n.body[0]):
            n.body = n.body[1:] or [ast.Pass()]
    return copy
