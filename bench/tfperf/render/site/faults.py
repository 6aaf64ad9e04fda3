"""The "Faults we test" table, generated from the tests so that no row exists without a test.

A fault test says what it tries in its docstring, three lines starting with ``Fault:``,
``Happens:`` and ``Kept:``, and optionally ``Also:`` with other tests that check the same
row: a name of its own file, or ``<file>.py::<name>`` of another; the tests are read with
:mod:`ast` (never imported, so building the site needs neither pytest nor TensorFlow). An
``Also:`` test that does not exist is an error, which fails ``mkdocs build --strict``.

The table is written twice from the same rows: on the site's "Faults we test" page, what
was tried, what happened and what was kept, in a reader's words (:func:`fill`); and in
``docs/maintainers/faults.md``, not published, the same rows with the tests that try them
(:func:`maintainers_page`; ``python -m tfperf.render.site.faults`` rewrites it, ``--check``
only says whether it is current).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ...errors import TfperfError

FIELDS = ("Fault", "Happens", "Kept")
PLACEHOLDER_RE = re.compile(r"^[ \t]*<!--\s*faults:table\s*-->[ \t]*$", re.MULTILINE)
MAINTAINERS_PAGE = Path("docs") / "maintainers" / "faults.md"     # under the repository


@dataclass(frozen=True)
class FaultRow:
    fault: str
    happens: str
    kept: str
    tests: tuple[str, ...]          # "tests/<file>.py::<function>"


class FaultsError(TfperfError, ValueError):
    """A row whose test is missing, or a fault docstring without its three lines.
    Also a ValueError, so that a caller catching one catches it."""


def _fields(doc: str) -> dict[str, str] | None:
    """The Fault/Happens/Kept lines of a docstring, or None when it is not a fault test."""
    out: dict[str, str] = {}
    current: str | None = None
    for raw in doc.strip().splitlines():
        line = raw.strip()
        m = re.match(r"^(Fault|Happens|Kept|Also):\s*(.*)$", line)
        if m:
            current = m.group(1)
            out[current] = m.group(2)
        elif current and line:
            out[current] += " " + line
        elif not line:
            current = None
    return out if "Fault" in out else None


def test_functions(path: Path) -> dict[str, str]:
    """Test function name -> docstring ("" when none) of one test file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {n.name: ast.get_docstring(n) or "" for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")}


def collect(root: str | Path) -> list[FaultRow]:
    """Every fault row: from the docstrings of ``tests/**/test_*.py`` under ``root`` (the
    repository), then the referenced ones. Raises :class:`FaultsError` for a fault docstring
    without all three lines or a referenced test that does not exist."""
    root = Path(root)
    rows: list[FaultRow] = []
    known: set[str] = set()
    tests = root / "tests"
    # The test files of every folder under tests/ (not its fixtures), in the order of their
    # file names, which are unique: a row keeps its place when its file moves to another folder.
    paths = sorted((p for p in tests.rglob("test_*.py") if "fixtures" not in p.relative_to(tests).parts),
                   key=lambda p: p.name)
    where = {p.name: p.relative_to(root).as_posix() for p in paths}
    for path in paths:
        rel = where[path.name]
        for name, doc in test_functions(path).items():
            known.add(f"{rel}::{name}")
            fields = _fields(doc)
            if fields is None:
                continue
            missing = [f for f in FIELDS if not fields.get(f)]
            if missing:
                raise FaultsError(f"{rel}::{name}: fault docstring lacks {', '.join(f + ':' for f in missing)}")
            fault, happens, kept = (_sentence(fields[f]) for f in FIELDS)
            also = tuple(_also(t, rel, where) for t in fields.get("Also", "").replace(",", " ").split())
            rows.append(FaultRow(fault, happens, kept, (f"{rel}::{name}", *also)))
    for row in rows:
        for test in row.tests[1:]:
            if test not in known:
                raise FaultsError(f"{row.tests[0]}: its Also: names {test}, which does not exist")
    return rows


def _also(test: str, rel: str, where: dict[str, str]) -> str:
    """An ``Also:`` entry as "tests/<folder>/<file>.py::<function>": "name" is a function of
    the same file, "<file>.py::name" one of the test file of that name, wherever it is."""
    if "::" not in test:
        return f"{rel}::{test}"
    file, _, name = test.partition("::")
    return f"{where.get(file, 'tests/' + file)}::{name}"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _cell(text: str) -> str:
    """Markdown table cell text: no HTML from the docstring, no column breaks. A `code span`
    is left to Markdown, which shows its < and & as they are (escaped here, they read
    "&lt;file&gt;")."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):      # outside the code spans
        parts[i] = parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts).replace("|", "\\|").replace("\n", " ")


def markdown_table(rows: list[FaultRow], *, tests: bool = False) -> str:
    """The rows as a Markdown table: what was tried, what happened, what was kept, and with
    ``tests`` the tests that try each row."""
    head = ["What was tried", "What happened", "What was kept"] + (["Test"] if tests else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [_cell(r.fault), _cell(r.happens), _cell(r.kept)]
        if tests:
            cells.append("<br>".join(f"`{_cell(t)}`" for t in r.tests))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def fill(markdown: str, root: str | Path) -> str:
    """Replace the ``<!-- faults:table -->`` placeholder with the readers' table."""
    if not PLACEHOLDER_RE.search(markdown):
        return markdown
    # A class for the layout (docs/assets/tfperf.css: fixed column widths); md_in_html
    # renders the Markdown table inside the div.
    table = f'<div class="tfperf-faults" markdown>\n\n{markdown_table(collect(root))}\n</div>\n'
    return PLACEHOLDER_RE.sub(lambda _: table, markdown)


def maintainers_page(root: str | Path) -> str:
    """The text of ``docs/maintainers/faults.md``: every row with the tests that try it."""
    return (
        "# Faults we test: the rows and their tests\n\n"
        "<!-- Generated from the tests' Fault:/Happens:/Kept:/Also: docstrings by\n"
        "     `python -m tfperf.render.site.faults`; tests/render/test_faults_page.py fails while it is stale. -->\n\n"
        "The site's \"Faults we test\" page shows the first three columns of this table; this copy,\n"
        "not published, adds the tests that try each row. How to write a row and run the tests:\n"
        "[README.md](README.md#faults-we-test).\n\n"
        + markdown_table(collect(root), tests=True))


def main(argv: list[str] | None = None) -> int:
    """``python -m tfperf.render.site.faults [--check] [--root DIR]``: rewrite the maintainers'
    table from the tests (exit status 0), or with ``--check`` say whether it is current
    (exit status 1 when it is not)."""
    parser = argparse.ArgumentParser(prog="python -m tfperf.render.site.faults", description=main.__doc__)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the repository (default: here)")
    parser.add_argument("--check", action="store_true", help="only check that the file is current")
    args = parser.parse_args(argv)
    path = args.root / MAINTAINERS_PAGE
    try:
        text = maintainers_page(args.root)
    except FaultsError as exc:
        print(f"faults: error: {exc}", file=sys.stderr)
        return 2
    current = path.is_file() and path.read_text(encoding="utf-8") == text
    if args.check:
        print(f"{path}: {'current' if current else 'stale: run python -m tfperf.render.site.faults'}")
        return 0 if current else 1
    if not current:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"{path}: {'unchanged' if current else 'written'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
